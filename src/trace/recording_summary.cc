#include "trace/recording_summary.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <filesystem>
#include <set>
#include <system_error>
#include <utility>
#include <vector>

#include "format/trace_file_names.h"
#include "format/trace_stream_decoder.h"
#include "util/printable.h"

namespace covkit::trace {

namespace fs = std::filesystem;

namespace {

std::string human_bytes(uint64_t n) {
  if (n < 1024) return fmt::format("{} B", n);
  if (n < 1024 * 1024) return fmt::format("{:.1f} KiB", n / 1024.0);
  if (n < uint64_t(1024) * 1024 * 1024) return fmt::format("{:.1f} MiB", n / (1024.0 * 1024));
  return fmt::format("{:.2f} GiB", n / (1024.0 * 1024 * 1024));
}

std::string plural(uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// Adds one stream's counts; false when the file holds no stream.
bool add_stream(const std::string& path, RecordingSummary& s) {
  auto bytes = format::StreamBytes::open(path);
  if (!bytes) return false;
  std::vector<uint8_t> head(format::kTraceHeaderSize);
  ssize_t n = bytes->read(0, head.data(), head.size());
  if (n < 0) return false;
  head.resize(size_t(n));
  format::StreamHeader header;
  std::vector<std::string> ignored;
  if (format::parse_stream_header(head, path, header, ignored) != format::StreamStatus::kOk) return false;
  if (header.counts) {
    s.calls += header.counts->calls;
    s.events += header.counts->events;
    s.lost += header.counts->lost;
    s.stream_bytes += bytes->size() - std::min<uint64_t>(bytes->size(), format::kTraceHeaderSize);
    return true;
  }
  // A thread that never ended: its events are counted the long way.
  format::StreamDecoder counter(*bytes, path, header.start, header.ended, ignored);
  counter.count_rest();
  const format::StreamSummary& c = counter.summary();
  s.calls += c.calls;
  s.events += c.events + c.specials;  // as the header counts them
  s.lost += c.lost;
  s.stream_bytes += c.bytes - std::min<uint64_t>(c.bytes, format::kTraceHeaderSize);
  ++s.streams_read;
  return true;
}

}  // namespace

RecordingSummary summarize_recording(const std::string& dir) {
  RecordingSummary s;
  std::set<std::pair<uint32_t, uint32_t>> images;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    auto stream = format::parse_stream_name(name);
    if (!stream && !format::parse_meta_name(name)) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    s.disk_bytes += uint64_t(st.st_blocks) * 512;
    if (st.st_size < (stream ? off_t(format::kTraceHeaderSize) : 1)) ++s.unwritten;
    if (!stream || !add_stream(it->path().string(), s)) continue;
    ++s.threads;
    images.emplace(stream->image.pid, stream->image.sequence);
  }
  s.processes = images.size();
  return s;
}

std::string summary_line(const RecordingSummary& s, const std::string& dir) {
  std::string per_call =
      s.calls ? fmt::format("{:.1f} bytes per call", double(s.stream_bytes) / double(s.calls)) : "no calls";
  std::string line = fmt::format("{}, {}, {} ({}), {} on disk, {}", plural(s.processes, "process", "processes"),
                                 plural(s.threads, "thread", "threads"), plural(s.events, "event", "events"),
                                 plural(s.calls, "call", "calls"), human_bytes(s.disk_bytes), per_call);
  if (s.lost > 0) line += fmt::format(", {} lost", plural(s.lost, "event", "events"));
  return line + fmt::format("; trace in {}", util::printable(dir));
}

}  // namespace covkit::trace
