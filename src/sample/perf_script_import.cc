#include "sample/perf_script_import.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "live/elf_image.h"
#include "util/file_io.h"
#include "util/printable.h"

namespace covkit::sample {

namespace {

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::optional<uint64_t> hex(std::string_view s) {
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  uint64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<int32_t> decimal(std::string_view s) {
  int32_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

std::string build_id(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  elf_version(EV_CURRENT);
  std::string out;
  if (Elf* e = elf_begin(fd, ELF_C_READ, nullptr)) {
    const void* id = nullptr;
    ssize_t n = dwelf_elf_gnu_build_id(e, &id);
    for (ssize_t i = 0; i < n; ++i) out += fmt::format("{:02x}", static_cast<const uint8_t*>(id)[i]);
    elf_end(e);
  }
  ::close(fd);
  return out;
}

Expected<std::vector<format::SampleMapping>> binary_mappings(const std::vector<std::string>& binaries) {
  std::vector<format::SampleMapping> maps;
  for (const std::string& path : binaries) {
    auto data = util::read_file(path);
    if (!data) return Error(fmt::format("{}: {}", util::printable(path), data.error().message));
    auto info = live::parse_load_info(data->bytes());
    if (!info) return Error(fmt::format("{}: {}", util::printable(path), info.error().message));
    std::string id = build_id(path);
    for (const live::LoadSegment& s : info->loads)
      if (s.executable && s.memsz) maps.push_back({s.vaddr, s.vaddr + s.memsz, s.offset, path, id, 0, 0});
  }
  std::sort(maps.begin(), maps.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  return maps;
}

}  // namespace

Expected<format::SampleRecording> import_perf_script(std::string_view text, const std::vector<std::string>& binaries) {
  auto maps = binary_mappings(binaries);
  if (!maps) return maps.error();
  format::SampleRecording rec;
  rec.mode = "perf";
  std::map<int32_t, uint32_t> image_of_pid;
  size_t line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    auto w = words(line);
    if (w.empty() || w[0].starts_with("#")) continue;
    auto bad = [&](std::string_view what) {
      return Error(fmt::format("line {}: {}: {}", line_no, what, util::printable(line.substr(0, 120))));
    };
    if (w.size() < 2) return bad("expected PID/TID IP [BRANCHES...]");
    size_t slash = w[0].find('/');
    auto pid = decimal(w[0].substr(0, slash));
    auto tid = slash == std::string_view::npos ? pid : decimal(w[0].substr(slash + 1));
    auto ip = hex(w[1]);
    if (!pid || !tid) return bad("the first field is not PID/TID");
    if (!ip) return bad("the second field is not a hex address");
    auto [it, added] = image_of_pid.try_emplace(*pid, static_cast<uint32_t>(rec.images.size()));
    if (added) {
      format::SampleImage im;
      im.id = it->second;
      im.pid = *pid;
      im.mappings = *maps;
      if (!binaries.empty()) im.executable = binaries.front();
      rec.images.push_back(std::move(im));
    }
    format::Sample s;
    s.image = it->second;
    s.tid = *tid;
    s.ip = *ip;
    for (size_t i = 2; i < w.size(); ++i) {
      std::string_view e = w[i];
      size_t a = e.find('/'), b = a == std::string_view::npos ? a : e.find('/', a + 1);
      auto from = a == std::string_view::npos ? std::nullopt : hex(e.substr(0, a));
      auto to = b == std::string_view::npos ? (a == std::string_view::npos ? std::nullopt : hex(e.substr(a + 1)))
                                            : hex(e.substr(a + 1, b - a - 1));
      if (!from || !to) return bad(fmt::format("branch entry {} is not 0xFROM/0xTO/...", i - 1));
      s.branches.push_back({*from, *to});
    }
    std::reverse(s.branches.begin(), s.branches.end());  // perf lists the newest first
    rec.vector_length = std::max<uint32_t>(rec.vector_length, static_cast<uint32_t>(s.branches.size()));
    rec.samples.push_back(std::move(s));
  }
  if (binaries.empty()) rec.warnings.push_back("no --binary given: the images have no mappings");
  return rec;
}

}  // namespace covkit::sample
