#include "format/input_kind.h"
#include "format/sample_recording_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>
#include <vector>

#include "runtime/sample/sample_contract.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/printable.h"

namespace covkit::format {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxJsonBytes = 1 << 20;
constexpr size_t kMaxFiles = 100000;
constexpr size_t kMaxPlanEntries = 100000;  // left_out, unplanted
constexpr size_t kMaxDataOwners = 64;  // each costs a change of identity per file read

uint32_t get32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t get64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

Error corrupt(const std::string& name, uint64_t offset, std::string_view what) {
  return Error(fmt::format("{}: corrupt at byte {}: {}", util::printable(name), offset, what));
}

std::string hex(const uint8_t* p, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += fmt::format("{:02x}", p[i]);
  return out;
}

// A NUL-terminated string that must end inside [p, p + n).
std::optional<std::string> c_string(const uint8_t* p, size_t n) {
  const void* nul = std::memchr(p, 0, n);
  if (!nul) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(p), static_cast<const uint8_t*>(nul) - p);
}

struct FileReader {
  std::span<const uint8_t> bytes;
  const std::string& name;
  SampleRecording& into;
  SampleDetail detail;
  SampleImage image;
  std::vector<Sample> samples;
  std::vector<uint64_t> planted_here;  // SampleDetail::summary: to count each address once

  Expected<void> record(size_t at, uint16_t kind, uint16_t flags, const uint8_t* r, size_t size) {
    auto need = [&](size_t fixed) -> Expected<void> {
      if (size < fixed) return corrupt(name, at, fmt::format("record of kind {} has {} bytes, fewer than its {}", kind, size, fixed));
      return {};
    };
    switch (kind) {
      case CKS_KIND_IMAGE: {
        if (auto ok = need(CKS_IMAGE_FIXED); !ok) return ok;
        if (at != 0) return corrupt(name, at, "a second IMAGE record");
        image.pid = static_cast<int32_t>(get32(r + CKS_IMAGE_PID));
        image.ppid = static_cast<int32_t>(get32(r + CKS_IMAGE_PPID));
        image.start_ns = get64(r + CKS_IMAGE_START_NS);
        auto exe = c_string(r + CKS_IMAGE_FIXED, size - CKS_IMAGE_FIXED);
        if (!exe) return corrupt(name, at, "the executable's path has no terminating NUL");
        image.executable = *exe;
        return {};
      }
      case CKS_KIND_MAPPING: {
        if (auto ok = need(CKS_MAP_FIXED); !ok) return ok;
        SampleMapping m;
        m.start = get64(r + CKS_MAP_START);
        m.end = get64(r + CKS_MAP_END);
        m.file_offset = get64(r + CKS_MAP_OFFSET);
        m.dev = get64(r + CKS_MAP_DEV);
        m.inode = get64(r + CKS_MAP_INODE);
        uint32_t id_size = get32(r + CKS_MAP_BUILD_ID_SIZE), path_size = get32(r + CKS_MAP_PATH_SIZE);
        if (m.end <= m.start) return corrupt(name, at, fmt::format("mapping [{:#x}, {:#x}) is empty", m.start, m.end));
        // need() checked the fixed part only: the build-id must fit what is left.
        if (id_size > CKS_MAX_BUILD_ID || id_size > size - CKS_MAP_FIXED)
          return corrupt(name, at, fmt::format("build-id of {} bytes does not fit the record", id_size));
        if (path_size == 0 || path_size > size - CKS_MAP_FIXED - id_size)
          return corrupt(name, at, fmt::format("path of {} bytes does not fit the record", path_size));
        m.build_id = hex(r + CKS_MAP_FIXED, id_size);
        auto path = c_string(r + CKS_MAP_FIXED + id_size, path_size);
        if (!path || path->size() + 1 != path_size) return corrupt(name, at, "the mapping's path is not NUL-terminated where its size says");
        m.path = *path;
        image.mappings.push_back(std::move(m));
        return {};
      }
      case CKS_KIND_SAMPLE: {
        if (auto ok = need(CKS_SAMPLE_FIXED); !ok) return ok;
        uint64_t nstack = get32(r + CKS_SAMPLE_NSTACK), nsteps = get32(r + CKS_SAMPLE_NSTEPS);
        if (CKS_SAMPLE_FIXED + 8 * (nstack + nsteps) != size)
          return corrupt(name, at, fmt::format("sample of {} stack entries and {} steps in a record of {} bytes", nstack, nsteps, size));
        Sample s;
        s.image = static_cast<uint32_t>(into.images.size());
        s.tid = static_cast<int32_t>(get32(r + CKS_SAMPLE_TID));
        s.ip = get64(r + CKS_SAMPLE_IP);
        s.stop = flags;
        const uint8_t* p = r + CKS_SAMPLE_FIXED;
        s.stack.resize(nstack);
        for (auto& a : s.stack) a = get64(p), p += 8;
        s.steps.resize(nsteps);
        for (auto& a : s.steps) a = get64(p), p += 8;
        samples.push_back(std::move(s));
        return {};
      }
      case CKS_KIND_BRANCHES: {
        if (samples.empty() || !samples.back().branches.empty())
          return corrupt(name, at, "BRANCHES record without a SAMPLE record of its own before it");
        if ((size - CKS_REC_HEADER) % 16 != 0) return corrupt(name, at, "BRANCHES record of half a pair");
        for (const uint8_t* p = r + CKS_REC_HEADER; p < r + size; p += 16)
          samples.back().branches.push_back({get64(p), get64(p + 8)});
        return {};
      }
      case CKS_KIND_WARNING: {
        auto text = c_string(r + CKS_REC_HEADER, size - CKS_REC_HEADER);
        if (!text) return corrupt(name, at, "warning text without a terminating NUL");
        into.warnings.push_back(fmt::format("pid {}: {}", image.pid, *text));
        return {};
      }
      case CKS_KIND_END:
        if (auto ok = need(CKS_END_FIXED); !ok) return ok;
        into.lost += get64(r + CKS_END_LOST);
        image.ended = true;
        return {};
      case CKS_KIND_HIT:
      case CKS_KIND_PLANTED: {
        if (auto ok = need(CKS_HIT_FIXED); !ok) return ok;
        BlockHit h{static_cast<uint32_t>(into.images.size()), get64(r + CKS_HIT_ADDRESS)};
        if (kind == CKS_KIND_HIT)
          into.hits.push_back(h);
        else
          keep_planted(h.address);
        return {};
      }
      case CKS_KIND_PLANTED_SET:
        if (auto ok = need(CKS_SET_FIXED); !ok) return ok;
        return planted_set(at, r, size);
      default:
        return corrupt(name, at, fmt::format("unknown record kind {}", kind));
    }
  }

  void keep_planted(uint64_t address) {
    if (detail == SampleDetail::all)
      into.planted.push_back({static_cast<uint32_t>(into.images.size()), address});
    else
      planted_here.push_back(address);
  }

  // count addresses: the first, then ULEB128 gaps of at least 1, then zeros.
  Expected<void> planted_set(size_t at, const uint8_t* r, size_t size) {
    const uint32_t count = get32(r + CKS_SET_COUNT);
    if (count == 0) return corrupt(name, at, "PLANTED_SET record of no address");
    if (count - 1 > size - CKS_SET_FIXED)
      return corrupt(name, at, fmt::format("PLANTED_SET record of {} addresses in {} bytes", count, size));
    const uint8_t *p = r + CKS_SET_FIXED, *end = r + size;
    uint64_t address = get64(r + CKS_SET_FIRST);
    // Tens of thousands a process: grow once per record, not by doubling.
    if (detail == SampleDetail::all && into.planted.capacity() - into.planted.size() < count)
      into.planted.reserve(std::max(into.planted.size() + count, into.planted.capacity() * 3 / 2));
    if (detail == SampleDetail::summary) planted_here.reserve(planted_here.size() + count);
    keep_planted(address);
    for (uint32_t i = 1; i < count; ++i) {
      uint64_t gap = 0;
      for (unsigned shift = 0;; shift += 7) {
        if (p == end || shift > 63 || (shift == 63 && (*p & 0x7e)))
          return corrupt(name, at, "PLANTED_SET record with a truncated or too long gap");
        const uint8_t b = *p++;
        gap |= uint64_t{b & 0x7fu} << shift;
        if (!(b & 0x80)) break;
      }
      if (gap == 0 || gap > ~address) return corrupt(name, at, "PLANTED_SET record whose addresses do not ascend");
      address += gap;
      keep_planted(address);
    }
    if (end - p >= 8 || std::any_of(p, end, [](uint8_t b) { return b != 0; }))
      return corrupt(name, at, fmt::format("PLANTED_SET record with {} bytes after its {} addresses", end - p, count));
    return {};
  }

  Expected<void> run() {
    const size_t first_hit = into.hits.size(), first_planted = into.planted.size();
    size_t at = 0;
    if (bytes.size() < CKS_REC_HEADER) return corrupt(name, 0, "shorter than one record header");
    while (at < bytes.size()) {
      if (bytes.size() - at < CKS_REC_HEADER) return corrupt(name, at, "truncated record header");
      const uint8_t* r = bytes.data() + at;
      if (get32(r) != CKS_MAGIC) return corrupt(name, at, "bad record magic (not a covkit sample file?)");
      uint32_t kf = get32(r + 4), size = get32(r + 8);
      uint16_t kind = kf & 0xffff, flags = kf >> 16;
      if (size < CKS_REC_HEADER || size % 8 != 0 || size > CKS_MAX_RECORD)
        return corrupt(name, at, fmt::format("bad record size {}", size));
      if (size > bytes.size() - at)
        return corrupt(name, at, fmt::format("record of {} bytes truncated at {} bytes", size, bytes.size() - at));
      if (at == 0 && kind != CKS_KIND_IMAGE) return corrupt(name, 0, "does not start with an IMAGE record");
      if (auto ok = record(at, kind, flags, r, size); !ok) return ok;
      at += size;
    }
    // A library reloaded at the same address is planted (and hit) again in
    // the same image: each address counts once per image, in address order.
    for (auto [list, first] : {std::pair{&into.hits, first_hit}, std::pair{&into.planted, first_planted}}) {
      auto by_address = [](const BlockHit& a, const BlockHit& b) { return a.address < b.address; };
      auto same = [](const BlockHit& a, const BlockHit& b) { return a.address == b.address; };
      std::sort(list->begin() + long(first), list->end(), by_address);
      list->erase(std::unique(list->begin() + long(first), list->end(), same), list->end());
    }
    // Mostly one ascending set a file (one object): sorted already.
    if (!std::is_sorted(planted_here.begin(), planted_here.end())) std::sort(planted_here.begin(), planted_here.end());
    into.planted_not_kept += uint64_t(std::unique(planted_here.begin(), planted_here.end()) - planted_here.begin());
    // The runtime writes the maps at start and exit: keep each mapping once.
    auto& m = image.mappings;
    std::sort(m.begin(), m.end(), [](const SampleMapping& a, const SampleMapping& b) {
      return std::tie(a.start, a.end, a.path, a.file_offset) < std::tie(b.start, b.end, b.path, b.file_offset);
    });
    m.erase(std::unique(m.begin(), m.end(),
                        [](const SampleMapping& a, const SampleMapping& b) {
                          return a.start == b.start && a.end == b.end && a.path == b.path && a.file_offset == b.file_offset;
                        }),
            m.end());
    image.id = static_cast<uint32_t>(into.images.size());
    image.file = name;
    into.images.push_back(std::move(image));
    for (Sample& s : samples) into.samples.push_back(std::move(s));
    return {};
  }
};

template <typename T>
Expected<T> json_field(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return Error(fmt::format("{}: no \"{}\"", CKS_RECORDING_JSON, key));
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    return Error(fmt::format("{}: \"{}\" has the wrong type", CKS_RECORDING_JSON, key));
  }
}

}  // namespace

std::optional<std::pair<int32_t, uint32_t>> parse_sample_file_name(std::string_view name) {
  if (!name.ends_with(CKS_FILE_SUFFIX)) return std::nullopt;
  name.remove_suffix(std::strlen(CKS_FILE_SUFFIX));
  size_t dash = name.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == name.size()) return std::nullopt;
  int32_t pid = 0;
  uint32_t n = 0;
  auto a = std::from_chars(name.data(), name.data() + dash, pid);
  auto b = std::from_chars(name.data() + dash + 1, name.data() + name.size(), n);
  if (a.ec != std::errc() || a.ptr != name.data() + dash || b.ec != std::errc() || b.ptr != name.data() + name.size() ||
      pid <= 0 || n > CKS_MAX_SEQUENCE)
    return std::nullopt;
  return std::pair{pid, n};
}

namespace {

// "<build-id hex>-<path hash>-<sites>" before the suffix.
bool is_shared_file_base(std::string_view name) {
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t first = name.find('-'), second = first == std::string_view::npos ? first : name.find('-', first + 1);
  if (second == std::string_view::npos || first < 2 || first > 2 * CKS_MAX_BUILD_ID || first % 2 != 0 ||
      second - first - 1 != 16 || second + 1 == name.size())
    return false;
  std::string_view id = name.substr(0, first), hash = name.substr(first + 1, 16), sites = name.substr(second + 1);
  return std::all_of(id.begin(), id.end(), hex) && std::all_of(hash.begin(), hash.end(), hex) &&
         std::all_of(sites.begin(), sites.end(), digit);
}

}  // namespace

bool is_shared_breakpoint_file_name(std::string_view name) {
  // A .text file being written: "<base>.text.<pid>.tmp" (left behind only
  // by a process killed in the middle).
  if (name.ends_with(".tmp")) {
    name.remove_suffix(4);
    size_t dot = name.rfind('.');
    if (dot == std::string_view::npos || dot + 1 == name.size() ||
        !std::all_of(name.begin() + long(dot) + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return false;
    name = name.substr(0, dot);
    if (!name.ends_with(CKS_TEXT_SUFFIX)) return false;
  }
  for (std::string_view suffix : {std::string_view(CKS_HITS_SUFFIX), std::string_view(CKS_TEXT_SUFFIX)})
    if (name.ends_with(suffix)) return is_shared_file_base(name.substr(0, name.size() - suffix.size()));
  return false;
}

Expected<void> read_sample_file(std::span<const uint8_t> bytes, const std::string& name, SampleRecording& into,
                                SampleDetail detail) {
  return FileReader{bytes, name, into, detail, {}, {}, {}}.run();
}

Expected<void> read_recording_json(std::string_view text, SampleRecording& into) {
  if (text.size() > kMaxJsonBytes) return Error(fmt::format("{}: larger than {} bytes", CKS_RECORDING_JSON, kMaxJsonBytes));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error(fmt::format("{}: not a JSON object", CKS_RECORDING_JSON));
  auto format = json_field<std::string>(j, "format");
  if (!format || *format != "covkit-sample-recording")
    return Error(fmt::format("{}: \"format\" is not \"covkit-sample-recording\"", CKS_RECORDING_JSON));
  auto mode = json_field<std::string>(j, "mode");
  auto period = json_field<uint64_t>(j, "period_ns");
  auto vector = json_field<uint32_t>(j, "vector_length");
  auto command = json_field<std::vector<std::string>>(j, "command");
  auto start = json_field<std::string>(j, "start_time");
  auto version = json_field<std::string>(j, "covkit_version");
  for (const Error* e : {mode ? nullptr : &mode.error(), period ? nullptr : &period.error(),
                         vector ? nullptr : &vector.error(), command ? nullptr : &command.error(),
                         start ? nullptr : &start.error(), version ? nullptr : &version.error()})
    if (e) return *e;
  into.mode = *mode;
  into.period_ns = *period;
  into.vector_length = *vector;
  into.command = *command;
  into.start_time = *start;
  into.covkit_version = *version;
  // Written by covkit for recordings it made itself (breakpoint mode, imports).
  if (j.contains("lost")) {
    auto lost = json_field<uint64_t>(j, "lost");
    if (!lost) return lost.error();
    into.lost += *lost;
  }
  if (j.contains("warnings")) {
    auto warnings = json_field<std::vector<std::string>>(j, "warnings");
    if (!warnings) return warnings.error();
    into.warnings.insert(into.warnings.end(), warnings->begin(), warnings->end());
  }
  if (j.contains("attached")) {
    auto attached = json_field<bool>(j, "attached");
    if (!attached) return attached.error();
    into.attached = into.attached || *attached;
  }
  if (j.contains("data_owners")) {
    auto owners = json_field<std::vector<uint32_t>>(j, "data_owners");
    if (!owners || owners->size() > kMaxDataOwners)
      return Error(fmt::format("{}: \"data_owners\" is not an array of at most {} user ids", CKS_RECORDING_JSON,
                               kMaxDataOwners));
    into.data_owners.insert(into.data_owners.end(), owners->begin(), owners->end());
  }
  // Breakpoint mode's plan: what it left alone.
  for (const char* key : {"left_out", "unplanted"}) {
    if (!j.contains(key)) continue;
    const nlohmann::json& list = j[key];
    if (!list.is_array() || list.size() > kMaxPlanEntries)
      return Error(fmt::format("{}: \"{}\" is not an array of at most {} entries", CKS_RECORDING_JSON, key,
                               kMaxPlanEntries));
    for (const nlohmann::json& e : list) {
      auto path = json_field<std::string>(e, "path");
      auto reason = json_field<std::string>(e, "reason");
      auto other = json_field<std::string>(e, std::string_view(key) == "left_out" ? "build_id" : "function");
      for (const Error* err : {path ? nullptr : &path.error(), reason ? nullptr : &reason.error(),
                               other ? nullptr : &other.error()})
        if (err) return Error(fmt::format("{} (in \"{}\")", err->message, key));
      if (std::string_view(key) == "left_out") into.left_out.push_back({*path, *other, *reason});
      else into.unplanted.push_back({*path, *other, *reason});
    }
  }
  return {};
}

Expected<SampleRecording> read_sample_recording(const std::string& dir, SampleDetail detail) {
  SampleRecording rec;
  auto json = util::read_input_file(dir + "/" + CKS_RECORDING_JSON);
  if (!json)
    return Error(fmt::format("{}: {}{}", CKS_RECORDING_JSON, json.error().message,
                             wrong_kind_hint(dir, InputKind::sample_recording)));
  util::note_data_file(dir + "/" + CKS_RECORDING_JSON, *json);  // another user's recording: util/foreign_data.h
  if (auto ok = read_recording_json(json->text(), rec); !ok) return ok.error();

  std::vector<std::pair<std::pair<int32_t, uint32_t>, std::string>> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (auto key = parse_sample_file_name(name)) files.push_back({*key, name});
    if (files.size() > kMaxFiles) return Error(fmt::format("more than {} sample files", kMaxFiles));
  }
  if (ec) return Error(fmt::format("cannot read the directory: {}", ec.message()));
  std::sort(files.begin(), files.end());
  for (const auto& [key, name] : files) {
    // With the rights of the recording's owner (noted above): a sample
    // file may be a link another user planted to a recording they cannot
    // read, whose samples would then be in their report.
    auto data = util::read_named_file(dir + "/" + name);
    if (!data) return Error(fmt::format("{}: {}", util::printable(name), data.error().message));
    util::note_data_file(dir + "/" + name, *data);
    if (auto ok = read_sample_file(data->bytes(), name, rec, detail); !ok) return ok.error();
  }
  // The users whose data the recorder read (a perf.data's, a process's):
  // their rights bound what the recording's names lead to (its binaries,
  // their sources), as they bound the recorder's reads. Noted after the
  // recording's own files, which are its owner's. It only ever narrows.
  for (uint32_t uid : rec.data_owners) util::note_foreign_data(util::file_owner(uid_t(uid)), json->mode());
  return rec;
}

}  // namespace covkit::format
