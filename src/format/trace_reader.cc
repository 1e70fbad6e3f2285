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
#include <map>
#include <system_error>
#include <unordered_map>

#include "format/trace_meta_parser.h"
#include "format/trace_stream_decoder.h"
#include "util/file_io.h"
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

uint64_t mono_now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// For a TSC process without two usable calibration pairs: the pair "now"
// (valid when the trace was written on this machine since its last boot, as
// for a program that still runs), else one made from this machine's TSC rate.
void complete_calibration(TraceProcess& p, const std::string& meta, std::vector<std::string>& warnings) {
  if (!p.tsc) return;
  if (!p.calib.empty() && slope_point(p)) return;
#ifdef COVKIT_HAVE_RDTSC
  if (!p.calib.empty()) {
    uint64_t c = __rdtsc(), n = mono_now_ns();
    const auto& [c0, n0] = p.calib.front();
    if (c > c0 && n > n0 && plausible_slope((long double)(n - n0) / (long double)(c - c0))) {
      p.now_calib.emplace(c, n);
      return;
    }
  }
  // Measure the local rate over a few milliseconds.
  uint64_t c1 = __rdtsc(), n1 = mono_now_ns();
  ::usleep(5000);
  uint64_t c2 = __rdtsc(), n2 = mono_now_ns();
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

// "<digits>" -> number.
std::optional<uint32_t> pid_number(std::string_view s) {
  uint32_t v = 0;
  if (s.empty() || s.size() > 10) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

struct ProcessFiles {
  std::string meta;
  std::map<uint32_t, std::string> threads;  // tid -> .ckt path
};

}  // namespace

TraceClock TraceProcess::clock() const {
  TraceClock c;
  if (!tsc || calib.empty()) return c;
  c.identity = false;
  c.c0 = calib.front().first;
  c.n0 = calib.front().second;
  if (auto p = slope_point(*this)) c.slope = double(p->second - c.n0) / double(p->first - c.c0);
  return c;
}

// Double precision: exact to the ns for 2^53 ns (104 days) from the first
// pair, and fast enough to be called for every event.
uint64_t TraceClock::operator()(uint64_t counter) const {
  if (identity) return counter;
  double offset = counter >= c0 ? double(counter - c0) * slope : -double(c0 - counter) * slope;
  double ns = double(n0) + offset;
  if (ns <= 0) return 0;
  if (ns >= 18446744073709549568.0) return UINT64_MAX;
  return uint64_t(ns);
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

std::optional<TraceSet> read_trace_dir(const std::string& dir, std::string* error) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    if (error) *error = fs::exists(dir, ec) ? "not a directory" : "no such directory";
    return std::nullopt;
  }
  std::map<uint32_t, ProcessFiles> found;
  TraceSet set;
  set.dir = dir;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    if (error) *error = fmt::format("cannot read the directory: {}", ec.message());
    return std::nullopt;
  }
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    if (name.ends_with(".meta")) {
      if (auto pid = pid_number(std::string_view(name).substr(0, name.size() - 5)))
        found[*pid].meta = it->path().string();
    } else if (name.ends_with(".ckt")) {
      std::string_view stem = std::string_view(name).substr(0, name.size() - 4);
      size_t dash = stem.find('-');
      auto pid = dash == std::string_view::npos ? std::nullopt : pid_number(stem.substr(0, dash));
      auto tid = dash == std::string_view::npos ? std::nullopt : pid_number(stem.substr(dash + 1));
      if (pid && tid) found[*pid].threads[*tid] = it->path().string();
      else set.warnings.push_back(fmt::format("{}: not named <pid>-<tid>.ckt; not read", util::printable(it->path().string())));
    }
  }
  if (ec) {
    if (error) *error = fmt::format("cannot read the directory: {}", ec.message());
    return std::nullopt;
  }
  if (found.empty()) {
    if (error) *error = "not a covkit trace directory (no .meta or .ckt files)";
    return std::nullopt;
  }

  for (auto& [pid, files] : found) {
    TraceProcess process;
    process.pid = pid;
    std::vector<std::pair<uint32_t, std::string>> names;
    if (files.meta.empty()) {
      set.warnings.push_back(fmt::format("{}/{}.meta: missing; the process's modules and clock are unknown",
                                         util::printable(dir), pid));
    } else {
      auto data = util::read_file(files.meta);
      if (!data) {
        set.warnings.push_back(fmt::format("{}: {}", util::printable(files.meta), data.error().message));
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
    }
    std::unordered_map<uint32_t, std::string> thread_names;  // the last `thread` line wins
    for (auto& [tid, name] : names) thread_names[tid] = std::move(name);
    for (const auto& [tid, path] : files.threads) {
      auto data = util::read_file(path);
      if (!data) {
        set.warnings.push_back(fmt::format("{}: {}", util::printable(path), data.error().message));
        continue;
      }
      TraceThread thread;
      StreamHeader header;
      StreamStatus st = decode_trace_stream(data->bytes(), path, thread, header, set.warnings);
      if (st != StreamStatus::kOk) continue;
      if (header.pid != pid || header.tid != tid)
        set.warnings.push_back(fmt::format("{}: byte 8: the header says pid {} tid {}; the file name wins",
                                           util::printable(path), header.pid, header.tid));
      thread.tid = tid;
      thread.file = path;
      if (auto n = thread_names.find(tid); n != thread_names.end()) thread.name = n->second;
      process.threads.push_back(std::move(thread));
    }
    set.processes.push_back(std::move(process));
  }
  return set;
}

}  // namespace covkit::format
