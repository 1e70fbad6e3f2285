#include "format/input_kind.h"
#include "format/trace_reader.h"

#include <fmt/format.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define COVKIT_HAVE_RDTSC 1
#endif

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <cerrno>
#include <cstring>
#include <map>
#include <system_error>
#include <unordered_map>

#include "format/trace_file_names.h"
#include "format/trace_meta_parser.h"
#include "format/trace_stream_decoder.h"
#include "util/clock_ns.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/printable.h"

namespace covkit::format {

namespace fs = std::filesystem;

namespace {

// A slope (ns per counter tick) is believable between a 100 GHz and a
// 10 MHz counter.
bool plausible_slope(long double slope) { return slope >= 0.01L && slope <= 100.0L; }

// The second calibration point: the last pair after the first that goes
// forwards in both counter and time.
std::optional<std::pair<uint64_t, uint64_t>> slope_point(const TraceProcess& p) {
  const auto& [c0, n0] = p.calib.front();
  for (size_t i = p.calib.size(); i-- > 1;) {
    const auto& [c, n] = p.calib[i];
    if (c > c0 && n >= n0) return p.calib[i];
  }
  if (p.now_calib && p.now_calib->first > c0 && p.now_calib->second >= n0) return p.now_calib;
  return std::nullopt;
}

// For a TSC process without two usable calibration pairs: the pair "now"
// (valid when the trace was written on this machine since its last boot, as
// for a program that still runs), else one made from this machine's TSC rate.
void complete_calibration(TraceProcess& p, const std::string& meta, std::vector<std::string>& warnings) {
  if (!p.tsc) return;
  if (!p.calib.empty() && slope_point(p)) return;
#ifdef COVKIT_HAVE_RDTSC
  if (!p.calib.empty()) {
    uint64_t c = __rdtsc(), n = util::clock_ns(CLOCK_MONOTONIC);
    const auto& [c0, n0] = p.calib.front();
    if (c > c0 && n > n0 && plausible_slope((long double)(n - n0) / (long double)(c - c0))) {
      p.now_calib.emplace(c, n);
      return;
    }
  }
  // Measure the local rate over a few milliseconds.
  uint64_t c1 = __rdtsc(), n1 = util::clock_ns(CLOCK_MONOTONIC);
  ::usleep(5000);
  uint64_t c2 = __rdtsc(), n2 = util::clock_ns(CLOCK_MONOTONIC);
  long double slope = c2 > c1 ? (long double)(n2 - n1) / (long double)(c2 - c1) : 1.0L;
  if (!plausible_slope(slope)) slope = 1.0L;
#else
  long double slope = 1.0L;
#endif
  warnings.push_back(fmt::format(
      "{}: {} usable clock calibration pair and the trace was not written on this machine since its boot; "
      "times assume {:.3f} ns per TSC tick",
      util::printable(meta), p.calib.empty() ? "no" : "only one", double(slope)));
  if (p.calib.empty()) p.calib.emplace_back(0, 0);
  const auto& [c0, n0] = p.calib.front();
  const uint64_t ticks = 1000000000u;
  p.now_calib.emplace(c0 + ticks, n0 + uint64_t(slope * ticks));
}

// A TSC the runtime trusted (by the CPU's word, on a virtual machine whose
// kernel uses another clock) that did not keep pace with CLOCK_MONOTONIC:
// the calibration pairs between the first and the last stray from the
// straight line through them. Said, with the worst distance: the times
// are that far off, and `--clock mono` is the remedy.
void check_calibration(const TraceProcess& p, const std::string& meta, std::vector<std::string>& warnings) {
  if (!p.tsc || p.calib.size() < 3) return;
  const auto& [c0, n0] = p.calib.front();
  const auto& [c1, n1] = p.calib.back();
  if (c1 <= c0 || n1 <= n0) return;
  const long double slope = (long double)(n1 - n0) / (long double)(c1 - c0);
  long double worst = 0, worst_share = 0;
  for (size_t i = 1; i + 1 < p.calib.size(); ++i) {
    const auto& [c, n] = p.calib[i];
    if (c < c0 || n < n0) continue;
    const long double off = (long double)n - ((long double)n0 + (long double)(c - c0) * slope);
    const long double distance = off < 0 ? -off : off;
    const long double share = distance / (long double)std::max<uint64_t>(n - n0, 1);
    // 0.1% of the time elapsed, and 100 us for a pair taken across a preemption.
    if (distance > 100000 && share > 0.001L && distance > worst) {
      worst = distance;
      worst_share = share;
    }
  }
  if (worst > 0)
    warnings.push_back(fmt::format(
        "{}: the TSC drifted from CLOCK_MONOTONIC by up to {:.0f} us ({:.2f}%) between calibration points "
        "(the runtime chose the TSC{}): times may be off by that much; record with --clock mono on this machine",
        util::printable(meta), double(worst / 1000), double(worst_share * 100),
        p.clock_reason.empty() ? std::string() : ": " + p.clock_reason));
}

struct ImageFiles {
  ImageName name;
  std::string meta;
  std::map<std::pair<uint32_t, uint32_t>, std::string> threads;  // (tid, sequence) -> .ckt path
};

// Images in order: by pid, then by sequence (exec order).
using ImageKey = std::pair<uint32_t, uint32_t>;

// The 64 header bytes of a stream file (fewer when it is shorter).
std::vector<uint8_t> read_head(const std::string& path, std::string& why) {
  auto bytes = StreamBytes::open(path);
  if (!bytes) {
    why = bytes.error().describe();
    return {};
  }
  std::vector<uint8_t> head(kTraceHeaderSize);
  ssize_t n = bytes->read(0, head.data(), head.size());
  if (n < 0) {
    why = std::strerror(errno);
    return {};
  }
  head.resize(size_t(n));
  return head;
}

// A thread's name is its own only if it is not the one it inherited: a
// thread starts with its creator's name, usually the program's, and keeps it
// until it is given one. So a thread other than the main one whose name is
// the main thread's first name or the program's file name (as the kernel
// cuts it, 15 bytes) is shown as "thread TID".
std::string own_name(uint32_t pid, uint32_t tid, const std::string& name, const std::string& main_first,
                     const std::string& exe) {
  if (tid == pid) return name;
  std::string base = fs::path(exe).filename().string().substr(0, 15);
  if (name == main_first || (!base.empty() && name == base)) return "";
  return name;
}

}  // namespace

uint64_t TraceClock::convert(uint64_t counter) const {
  const double offset = counter >= c0 ? double(counter - c0) * slope : -double(c0 - counter) * slope;
  const double ns = double(n0) + offset;
  if (ns <= 0) return 0;
  if (ns >= 18446744073709549568.0) return UINT64_MAX;
  return uint64_t(ns);
}

TraceClock TraceProcess::clock() const {
  if (!tsc || calib.empty()) return TraceClock();
  const auto [c0, n0] = calib.front();
  double slope = 1.0;
  if (auto p = slope_point(*this)) slope = double(p->second - n0) / double(p->first - c0);
  return TraceClock(c0, n0, slope);
}

uint64_t TraceProcess::to_ns(uint64_t counter) const { return clock()(counter); }

const TraceModule* TraceProcess::module_for(uint64_t address, uint64_t when) const {
  const TraceModule* best = nullptr;
  bool best_before = false;
  for (const TraceModule& m : modules) {
    bool holds = std::any_of(m.segments.begin(), m.segments.end(),
                             [&](const TraceSegment& s) { return address >= s.lo && address < s.hi; });
    if (!holds) continue;
    bool before = m.seen <= when;
    if (!best || (before && (!best_before || m.seen >= best->seen)) ||
        (!before && !best_before && m.seen < best->seen)) {
      best = &m;
      best_before = before;
    }
  }
  return best;
}

std::string thread_display_name(const TraceThread& thread) {
  return thread.name.empty() ? fmt::format("thread {}", thread.tid) : thread.name;
}

Expected<TraceSet> read_trace_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Error(fs::exists(dir, ec) ? "not a directory" : "no such directory");
  std::map<ImageKey, ImageFiles> found;
  TraceSet set;
  set.dir = dir;
  fs::directory_iterator it(dir, ec), end;
  if (ec) return Error(fmt::format("cannot read the directory: {}", ec.message()));
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) {
      // A trace file's name on a link to nothing, a FIFO, a directory: said,
      // as a damaged file is (silence read as an empty trace).
      if (parse_meta_name(name) || parse_stream_name(name)) {
        set.warnings.push_back(fmt::format("{}: not a regular file; not read", util::printable(it->path().string())));
        ++set.unread_files;
      }
      continue;
    }
    if (auto image = parse_meta_name(name)) {
      ImageFiles& f = found[{image->pid, image->sequence}];
      f.name = *image;
      f.meta = it->path().string();
    } else if (auto stream = parse_stream_name(name)) {
      ImageFiles& f = found[{stream->image.pid, stream->image.sequence}];
      f.name = stream->image;
      f.threads[{stream->tid, stream->sequence}] = it->path().string();
    } else if (name.ends_with(CKT_STREAM_SUFFIX)) {
      set.warnings.push_back(fmt::format("{}: not named IMAGE-<tid>.ckt; not read", util::printable(it->path().string())));
    }
  }
  if (ec) return Error(fmt::format("cannot read the directory: {}", ec.message()));
  if (found.empty())
    return Error("not a covkit trace directory (no .meta or .ckt files)" + wrong_kind_hint(dir, InputKind::trace_recording));

  for (auto& [key, files] : found) {
    const uint32_t pid = key.first;
    TraceProcess process;
    process.pid = pid;
    process.image = files.name.stem;
    std::vector<std::pair<uint32_t, std::string>> names;
    if (files.meta.empty()) {
      set.warnings.push_back(fmt::format("{}/{}{}: missing; the process's modules and clock are unknown",
                                         util::printable(dir), util::printable(files.name.stem), CKT_META_SUFFIX));
    } else {
      auto data = util::read_input_file(files.meta);
      if (data) util::note_data_file(files.meta, *data);  // another user's trace: the modules it names are read with their rights
      if (!data) {
        set.warnings.push_back(fmt::format("{}: {}", util::printable(files.meta), data.error().message));
        ++set.unread_files;
      } else {
        std::string_view text = data->text();
        MetaStatus st = parse_trace_meta(text, files.meta, process, names, set.warnings);
        if (st == MetaStatus::kUnsupported) continue;  // its streams may be another format as well
        if (process.pid != pid) {
          set.warnings.push_back(fmt::format("{}: says pid {}; the file name wins", util::printable(files.meta),
                                             process.pid));
          process.pid = pid;
        }
      }
      complete_calibration(process, files.meta, set.warnings);
      check_calibration(process, files.meta, set.warnings);
    }
    std::unordered_map<uint32_t, std::string> thread_names;  // the last `thread` line wins
    std::string main_first;
    for (auto& [tid, name] : names) {
      if (tid == pid && main_first.empty()) main_first = name;
      thread_names[tid] = std::move(name);
    }
    for (const auto& [id, path] : files.threads) {
      const uint32_t tid = id.first;
      std::string why;
      std::vector<uint8_t> head = read_head(path, why);
      if (!why.empty()) {
        set.warnings.push_back(fmt::format("{}: {}", util::printable(path), why));
        ++set.unread_files;
        continue;
      }
      StreamHeader header;
      const StreamStatus status = parse_stream_header(head, path, header, set.warnings);
      if (status == StreamStatus::kNotStream) ++set.unread_files;
      if (status != StreamStatus::kOk) continue;
      if (header.pid != pid || header.tid != tid)
        set.warnings.push_back(fmt::format("{}: byte {}: the header says pid {} tid {}; the file name wins",
                                           util::printable(path), CKT_HDR_PID, header.pid, header.tid));
      TraceThread thread;
      thread.tid = tid;
      thread.file = path;
      thread.start = header.start;
      thread.ended = header.ended;
      thread.counts = header.counts;
      if (auto n = thread_names.find(tid); n != thread_names.end())
        thread.name = own_name(pid, tid, n->second, main_first, process.exe);
      process.threads.push_back(std::move(thread));
    }
    set.processes.push_back(std::move(process));
  }
  return set;
}

}  // namespace covkit::format
