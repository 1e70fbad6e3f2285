#include "sample/perf_script_import.h"

#include <elf.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

#include "live/elf_image.h"
#include "sample/elf_module_file.h"
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

// A --binary: its executable segments as mappings, which also turn perf's
// offsets in it into addresses.
struct Binary {
  std::string path;
  uint16_t type = 0;  // ET_EXEC or ET_DYN
  std::vector<format::SampleMapping> maps;

  // The address at file offset `off` (ET_DYN), or `off` itself (ET_EXEC:
  // perf leaves link addresses as they are); nullopt outside the executable
  // segments (no branch is there).
  std::optional<uint64_t> address_of(uint64_t off) const {
    if (type != ET_DYN) return off;
    for (const format::SampleMapping& m : maps)
      if (off >= m.file_offset && off - m.file_offset < m.end - m.start) return m.start + (off - m.file_offset);
    return std::nullopt;
  }
};

Expected<std::vector<Binary>> load_binaries(const std::vector<std::string>& paths) {
  std::vector<Binary> out;
  for (const std::string& path : paths) {
    auto file = read_elf_module(path);  // its segments and build-id, in one reading
    if (!file) return file.error();
    Binary b;
    b.path = path;
    b.type = file->type;
    for (const live::LoadSegment& s : file->loads)
      if (s.executable && s.memsz) b.maps.push_back({s.vaddr, s.vaddr + s.memsz, s.offset, path, file->build_id, 0, 0});
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<format::SampleMapping> all_mappings(const std::vector<Binary>& binaries) {
  std::vector<format::SampleMapping> maps;
  for (const Binary& b : binaries) maps.insert(maps.end(), b.maps.begin(), b.maps.end());
  std::sort(maps.begin(), maps.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  return maps;
}

// One branch entry: "0xFROM[(file)]/0xTO[(file)]/flags...". A file name
// may hold '/', so it ends at the ")/" (or ")" at the end) after its '('.
struct Entry {
  uint64_t from = 0, to = 0;
  std::string_view from_file, to_file;  // empty: not given
};

// Reads "0xADDR[(file)]" from the front of `e`, leaving what follows.
std::optional<std::pair<uint64_t, std::string_view>> address_and_file(std::string_view& e) {
  size_t end = e.find_first_of("(/");
  auto v = hex(e.substr(0, end));
  if (!v) return std::nullopt;
  std::string_view file;
  if (end != std::string_view::npos && e[end] == '(') {
    size_t close = e.find(")/", end);
    if (close == std::string_view::npos) close = e.ends_with(')') ? e.size() - 1 : std::string_view::npos;
    if (close == std::string_view::npos) return std::nullopt;
    file = e.substr(end + 1, close - end - 1);
    // perf's dsoff field adds the offset inside the parentheses: "(file+0x1f)".
    if (size_t plus = file.rfind("+0x"); plus != std::string_view::npos && hex(file.substr(plus + 1)))
      file = file.substr(0, plus);
    end = close + 1;
  }
  e = end == std::string_view::npos ? std::string_view() : e.substr(end);
  return std::pair{*v, file};
}

std::optional<Entry> parse_entry(std::string_view e) {
  Entry out;
  auto from = address_and_file(e);
  if (!from || !e.starts_with('/')) return std::nullopt;
  e.remove_prefix(1);
  auto to = address_and_file(e);
  if (!to || !(e.empty() || e.starts_with('/'))) return std::nullopt;
  out.from = from->first;
  out.from_file = from->second;
  out.to = to->first;
  out.to_file = to->second;
  return out;
}

// The --binary perf's name `file` stands for: the same path, else the same
// file name; nullptr for another file (libc, the vdso, "[unknown]").
const Binary* binary_named(const std::vector<Binary>& binaries, std::string_view file) {
  for (const Binary& b : binaries)
    if (b.path == file) return &b;
  const std::string_view base = file.substr(file.rfind('/') + 1);
  for (const Binary& b : binaries)
    if (std::string_view(b.path).substr(b.path.rfind('/') + 1) == base) return &b;
  return nullptr;
}

// No mapping holds it: the analysis drops what leads to or from it, as for
// an absolute address in a library not given.
constexpr uint64_t kNowhere = ~uint64_t(0);

}  // namespace

Expected<format::SampleRecording> import_perf_script(std::string_view text, const std::vector<std::string>& paths,
                                                     PerfAddresses addresses) {
  auto binaries = load_binaries(paths);
  if (!binaries) return binaries.error();
  const std::vector<format::SampleMapping> maps = all_mappings(*binaries);
  const bool offsets = addresses == PerfAddresses::dso_offsets;
  // An offset of a file: the address a mapping holds it at, or kNowhere.
  auto place = [&](uint64_t off, std::string_view file) {
    const Binary* b = binary_named(*binaries, file);
    std::optional<uint64_t> a = b ? b->address_of(off) : std::nullopt;
    return a ? *a : kNowhere;
  };
  // An absolute IP means something only in an ET_EXEC binary's mappings.
  auto fixed_ip = [&](uint64_t ip) {
    for (const Binary& b : *binaries)
      if (b.type == ET_EXEC)
        for (const format::SampleMapping& m : b.maps)
          if (ip >= m.start && ip < m.end) return ip;
    return uint64_t(0);
  };
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
      im.mappings = maps;
      if (!paths.empty()) im.executable = paths.front();
      rec.images.push_back(std::move(im));
    }
    format::Sample s;
    s.image = it->second;
    s.tid = *tid;
    s.ip = offsets ? fixed_ip(*ip) : *ip;
    for (size_t i = 2; i < w.size(); ++i) {
      auto e = parse_entry(w[i]);
      if (!e) return bad(fmt::format("branch entry {} is not 0xFROM/0xTO/...", i - 1));
      if (!offsets) {
        s.branches.push_back({e->from, e->to});
        continue;
      }
      if (e->from_file.empty() || e->to_file.empty())
        return bad(fmt::format("branch entry {} names no file (brstackoff needs perf script -F ...,brstackoff,dso)",
                               i - 1));
      s.branches.push_back({place(e->from, e->from_file), place(e->to, e->to_file)});
    }
    std::reverse(s.branches.begin(), s.branches.end());  // perf lists the newest first
    rec.vector_length = std::max<uint32_t>(rec.vector_length, static_cast<uint32_t>(s.branches.size()));
    rec.samples.push_back(std::move(s));
  }
  if (paths.empty()) rec.warnings.push_back("no --binary given: the images have no mappings");
  return rec;
}

}  // namespace covkit::sample
