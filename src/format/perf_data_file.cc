#include "format/perf_data_file.h"

#include <fmt/format.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>
#include <optional>

namespace covkit::format {

namespace {

constexpr char kMagic[8] = {'P', 'E', 'R', 'F', 'I', 'L', 'E', '2'};
constexpr char kSwappedMagic[8] = {'2', 'E', 'L', 'I', 'F', 'R', 'E', 'P'};
constexpr size_t kFileHeaderSize = 104;  // magic, size, attr_size, 3 sections, the feature bitmap
constexpr size_t kPipeHeaderSize = 16;   // magic, size: the attrs come as records
constexpr size_t kSectionSize = 16;      // offset, size
constexpr unsigned kFeatureBuildId = 2;  // HEADER_BUILD_ID
constexpr unsigned kFeatureBits = 256;

// perf's own record types (tools/perf/util/event.h), past the kernel's.
constexpr uint32_t kUserTypeStart = 64;
constexpr uint32_t kFinishedRound = 68;
constexpr uint32_t kAuxtrace = 71;
constexpr uint32_t kCompressed = 81;
constexpr uint32_t kCompressed2 = 83;
constexpr uint16_t kBuildIdSizeValid = 1 << 15;  // PERF_RECORD_MISC_BUILD_ID_SIZE

uint64_t u64_at(std::span<const uint8_t> b, size_t at) {
  uint64_t v;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}

struct Section {
  uint64_t offset = 0, size = 0;
};

// A section of the file, checked to lie inside it.
Expected<std::span<const uint8_t>> section(std::span<const uint8_t> file, const Section& s, const char* what) {
  if (s.offset > file.size() || s.size > file.size() - s.offset)
    return Error(s.offset, fmt::format("perf.data's {} ({} bytes at {}) lies past the file's end ({} bytes)", what,
                                       s.size, s.offset, file.size()));
  return file.subspan(size_t(s.offset), size_t(s.size));
}

Section section_at(std::span<const uint8_t> b, size_t at) { return {u64_at(b, at), u64_at(b, at + 8)}; }

Expected<PerfDataEvent> read_event(std::span<const uint8_t> file, std::span<const uint8_t> entry, size_t at) {
  // The attr as the kernel's struct, however long perf's was (fields it
  // did not know stay 0), then the section of its ids.
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  uint32_t attr_size = 0;
  std::memcpy(&attr_size, entry.data() + 4, 4);
  const size_t room = entry.size() - kSectionSize;
  if (attr_size < 8 || attr_size > room)
    return Error(at, fmt::format("perf.data's attr says it has {} bytes, its entry holds {}", attr_size, room));
  std::memcpy(&attr, entry.data(), std::min<size_t>(attr_size, sizeof attr));
  PerfDataEvent e;
  e.type = attr.type;
  e.config = attr.config;
  e.freq = attr.freq;
  e.period_or_freq = attr.sample_period;
  e.layout.sample_type = attr.sample_type;
  e.layout.read_format = attr.read_format;
  e.layout.branch_hw_index = (attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) != 0;
  e.layout.sample_id_all = attr.sample_id_all;
  auto ids = section(file, section_at(entry, room), "ids of an event");
  if (!ids) return ids.error();
  for (size_t i = 0; i + 8 <= ids->size(); i += 8) e.ids.push_back(u64_at(*ids, i));
  return e;
}

// HEADER_BUILD_ID: records of a header, a pid, 24 bytes of build-id (20 and
// their length, when the misc bit says so) and the file's name.
void read_build_ids(std::span<const uint8_t> bytes, std::map<std::string, std::string>& out) {
  size_t at = 0;
  while (bytes.size() - at >= sizeof(perf_event_header) + 4 + 24) {
    perf_event_header h;
    std::memcpy(&h, bytes.data() + at, sizeof h);
    if (h.size < sizeof h + 4 + 24 || h.size > bytes.size() - at) return;  // damaged: what came before stays
    const uint8_t* id = bytes.data() + at + sizeof h + 4;
    const size_t n = (h.misc & kBuildIdSizeValid) ? std::min<size_t>(id[20], 20) : 20;
    const char* name = reinterpret_cast<const char*>(id + 24);
    const size_t name_room = h.size - (sizeof h + 4 + 24);
    const size_t name_len = strnlen(name, name_room);
    std::string hex;
    for (size_t i = 0; i < n; ++i) hex += fmt::format("{:02x}", id[i]);
    if (name_len > 0 && name_len < name_room) out.emplace(std::string(name, name_len), hex);
    at += h.size;
  }
}

bool same_layout(const PerfSampleLayout& a, const PerfSampleLayout& b) {
  return a.sample_type == b.sample_type && a.read_format == b.read_format && a.branch_hw_index == b.branch_hw_index &&
         a.sample_id_all == b.sample_id_all;
}

// Which event's layout a record is read with: the only one, or the one
// whose counter the record's IDENTIFIER names.
class LayoutChooser {
 public:
  explicit LayoutChooser(const PerfDataFile& f) : f_(f) {
    for (size_t i = 0; i < f.events.size(); ++i)
      for (uint64_t id : f.events[i].ids) by_id_.emplace(id, i);
  }

  Expected<const PerfSampleLayout*> choose(std::span<const uint8_t> record, uint32_t type) const {
    const PerfSampleLayout& first = f_.events.front().layout;
    if (f_.events.size() == 1 || !(first.sample_type & PERF_SAMPLE_IDENTIFIER)) return &first;
    // IDENTIFIER: a sample's first field, the last of every other record's sample_id.
    const bool sample = type == PERF_RECORD_SAMPLE;
    if (!sample && !first.sample_id_all) return &first;
    if (record.size() < sizeof(perf_event_header) + 8) return Error(0, "perf record too short for its event's id");
    const uint64_t id = u64_at(record, sample ? sizeof(perf_event_header) : record.size() - 8);
    auto it = by_id_.find(id);
    if (it == by_id_.end()) return Error(0, fmt::format("perf record names event id {}, which no attr has", id));
    return &f_.events[it->second].layout;
  }

 private:
  const PerfDataFile& f_;
  std::map<uint64_t, size_t> by_id_;
};

}  // namespace

bool is_perf_data(std::span<const uint8_t> file) {
  return file.size() >= 8 && std::memcmp(file.data(), kMagic, 8) == 0;
}

Expected<PerfDataFile> read_perf_data(std::span<const uint8_t> file) {
  if (file.size() >= 8 && std::memcmp(file.data(), kSwappedMagic, 8) == 0)
    return Error("a big-endian perf.data: only files recorded on little-endian machines are read");
  if (!is_perf_data(file)) return Error(0, "not a perf.data file (no PERFILE2 magic)");
  if (file.size() < kPipeHeaderSize) return Error(8, "perf.data's header is cut short");
  const uint64_t header_size = u64_at(file, 8);
  if (header_size == kPipeHeaderSize)
    return Error("perf.data written to a pipe (perf record -o -): record to a file, or save it with "
                    "`perf inject -i - -o FILE`");
  if (header_size < kFileHeaderSize || file.size() < kFileHeaderSize)
    return Error(8, fmt::format("perf.data's header of {} bytes is cut short (a file header has {})", header_size,
                                kFileHeaderSize));
  PerfDataFile out;
  const uint64_t attr_size = u64_at(file, 16);
  auto attrs = section(file, section_at(file, 24), "attr section");
  if (!attrs) return attrs.error();
  const Section data = section_at(file, 40);
  auto records = section(file, data, "data section");
  if (!records) return records.error();
  out.data = *records;
  out.data_offset = data.offset;
  if (attr_size < kSectionSize + 8 || attr_size > 65536 || attrs->size() % attr_size != 0 || attrs->empty())
    return Error(16, fmt::format("perf.data's attr entries of {} bytes do not divide its attr section of {}",
                                 attr_size, attrs->size()));
  size_t ids = 0;
  for (size_t at = 0; at < attrs->size(); at += attr_size) {
    auto e = read_event(file, attrs->subspan(at, attr_size), size_t(section_at(file, 24).offset + at));
    if (!e) return e.error();
    // perf writes each event's ids apart: events that all name the same
    // bytes would make memory grow with their number times the file's size.
    ids += e->ids.size();
    if (ids > file.size() / 8)
      return Error(24, "perf.data's events name more counter ids than the file holds (their id sections overlap)");
    out.events.push_back(std::move(*e));
  }
  const bool by_identifier = std::all_of(out.events.begin(), out.events.end(), [](const PerfDataEvent& e) {
    return (e.layout.sample_type & PERF_SAMPLE_IDENTIFIER) != 0;
  });
  for (const PerfDataEvent& e : out.events)
    if (!same_layout(e.layout, out.events.front().layout) && !by_identifier)
      return Error(24, "perf.data's events hold different sample fields and no PERF_SAMPLE_IDENTIFIER to tell "
                       "their records apart");

  // The feature sections follow the data, one per bit set, in bit order.
  uint64_t features[kFeatureBits / 64];
  std::memcpy(features, file.data() + 72, sizeof features);
  auto has = [&](unsigned bit) { return (features[bit / 64] >> (bit % 64)) & 1; };
  if (has(kFeatureBuildId)) {
    size_t index = 0;
    for (unsigned bit = 0; bit < kFeatureBuildId; ++bit) index += has(bit);
    const uint64_t table = data.offset + data.size;
    if (table <= file.size() && (file.size() - table) / kSectionSize > index) {
      auto ids = section(file, section_at(file, size_t(table + index * kSectionSize)), "build-id section");
      if (ids) read_build_ids(*ids, out.build_ids);  // a damaged one only costs the build-ids
    }
  }
  return out;
}

Expected<void> for_each_perf_data_record(const PerfDataFile& file,
                                         const std::function<void(const PerfRecord&)>& handle) {
  struct Queued {
    uint64_t time;
    PerfRecord record;
  };
  std::vector<Queued> queue;
  auto flush = [&](std::optional<uint64_t> limit) {
    std::stable_sort(queue.begin(), queue.end(), [](const Queued& a, const Queued& b) { return a.time < b.time; });
    size_t n = 0;
    while (n < queue.size() && (!limit || queue[n].time <= *limit)) handle(queue[n++].record);
    queue.erase(queue.begin(), queue.begin() + ptrdiff_t(n));
  };
  const LayoutChooser layouts(file);
  uint64_t seen_max = 0, round_max = 0;
  const std::span<const uint8_t> bytes = file.data;
  size_t at = 0;
  while (at < bytes.size()) {
    const uint64_t where = file.data_offset + at;
    if (bytes.size() - at < sizeof(perf_event_header)) return Error(where, "perf record header cut short");
    perf_event_header h;
    std::memcpy(&h, bytes.data() + at, sizeof h);
    if (h.size < sizeof h || h.size > bytes.size() - at)
      return Error(where, fmt::format("perf record of {} bytes does not fit", h.size));
    const std::span<const uint8_t> record = bytes.subspan(at, h.size);
    size_t next = at + h.size;
    if (h.type == kCompressed || h.type == kCompressed2)
      return Error("perf.data holds compressed records (perf record -z), which covkit does not read: record without -z");
    if (h.type == kAuxtrace) {  // its trace follows the record, `size` bytes
      if (h.size < sizeof h + 8) return Error(where, "perf AUXTRACE record ends inside its fields");
      const uint64_t trace = u64_at(record, sizeof h);
      if (trace > bytes.size() - next) return Error(where, "perf AUXTRACE record's trace lies past the data's end");
      next += size_t(trace);
    } else if (h.type == kFinishedRound) {
      flush(round_max);  // every record up to the previous round's latest is in
      round_max = seen_max;
    } else if (h.type < kUserTypeStart) {
      auto layout = layouts.choose(record, h.type);
      if (!layout) return Error(where, layout.error().message);
      auto r = parse_perf_record(record, **layout);
      if (!r) return Error(where + r.error().offset.value_or(0), r.error().message);
      if (!std::holds_alternative<std::monostate>(*r)) {
        const uint64_t t = perf_record_time(*r);
        seen_max = std::max(seen_max, t);
        queue.push_back({t, std::move(*r)});
      }
    }
    at = next;
  }
  flush(std::nullopt);
  return {};
}

}  // namespace covkit::format
