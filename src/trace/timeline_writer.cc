#include "trace/timeline_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "util/utf8.h"

namespace covkit::trace {

namespace {

// One call on one thread, in ns since the trace's start.
struct Frame {
  uint64_t begin = 0, end = 0;
  uint64_t address = 0, when = 0;  // for the symbol lookup
};

struct ThreadFrames {
  const format::TraceProcess* process = nullptr;
  const format::TraceThread* thread = nullptr;
  std::vector<Frame> frames;  // in call order (preorder)
  std::vector<bool> keep;
};

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The calls of one thread. Times never go backwards (clamped), so a frame
// always ends within its parent even if a calibration were off.
void collect_frames(const format::TraceProcess& p, const format::TraceThread& t, uint64_t origin, ThreadFrames& out) {
  const format::TraceClock to_ns = p.clock();  // as CallProfile converts
  uint64_t last = 0;
  auto ns = [&](uint64_t counter) {
    uint64_t v = to_ns(counter);
    v = v > origin ? v - origin : 0;
    last = std::max(last, v);
    return last;
  };
  std::vector<size_t> open;
  for (uint64_t address : t.initial_stack) {
    open.push_back(out.frames.size());
    out.frames.push_back({ns(t.start), 0, address, t.start});
  }
  uint64_t now = ns(t.start);
  for (const format::TraceEvent& e : t.events) {
    now = ns(e.time);
    if (e.kind == format::TraceEvent::Kind::kEnter) {
      open.push_back(out.frames.size());
      out.frames.push_back({now, 0, e.address, e.time});
    } else if (!open.empty()) {
      out.frames[open.back()].end = now;
      open.pop_back();
    }
  }
  // Still open (a killed or running program, a thread still running at
  // exit): they end at the thread's last event (specials included), or at the
  // end of its process when that ended normally after it, as in the profile.
  uint64_t end_counter = std::max({t.start, t.last_time, t.events.empty() ? 0 : t.events.back().time});
  if (p.end && !t.ended && *p.end > end_counter) end_counter = *p.end;
  now = std::max(now, ns(end_counter));
  for (size_t i : open) out.frames[i].end = now;
}

}  // namespace

std::string format_microseconds(uint64_t ns) { return fmt::format("{}.{:03}", ns / 1000, ns % 1000); }

std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
          if (c < 0x20)
            out += fmt::format("\\u{:04x}", c);
          else
            out += char(c);
      }
      ++i;
      continue;
    }
    size_t n = util::utf8_length(s, i);
    if (n == 0) {
      out += util::kReplacement;
      ++i;
    } else {
      out += s.substr(i, n);
      i += n;
    }
  }
  out += '"';
  return out;
}

std::string write_timeline(const format::TraceSet& trace, const SymbolLookup& symbols, const TimelineOptions& options,
                           TimelineStats* stats) {
  TimelineStats counted;
  // The origin: the earliest thread start of all processes (one clock,
  // CLOCK_MONOTONIC, so processes line up).
  uint64_t origin = std::numeric_limits<uint64_t>::max();
  for (const format::TraceProcess& p : trace.processes)
    for (const format::TraceThread& t : p.threads) origin = std::min(origin, p.clock()(t.start));
  if (origin == std::numeric_limits<uint64_t>::max()) origin = 0;

  std::vector<ThreadFrames> threads;
  for (const format::TraceProcess& p : trace.processes)
    for (const format::TraceThread& t : p.threads) {
      ThreadFrames& tf = threads.emplace_back();
      tf.process = &p;
      tf.thread = &t;
      collect_frames(p, t, origin, tf);
      counted.calls += tf.frames.size();
    }

  // Too short, then too many: the longest calls stay (a parent lasts at
  // least as long as its children, so what stays is mostly whole subtrees;
  // any subset of properly nested calls is properly nested).
  std::vector<uint64_t> durations;
  for (ThreadFrames& tf : threads) {
    tf.keep.assign(tf.frames.size(), true);
    for (size_t i = 0; i < tf.frames.size(); ++i) {
      uint64_t d = tf.frames[i].end - tf.frames[i].begin;
      if (d < options.min_duration_ns) {
        tf.keep[i] = false;
        ++counted.too_short;
      } else {
        durations.push_back(d);
      }
    }
  }
  if (options.max_events != 0 && durations.size() > options.max_events) {
    auto nth = durations.begin() + ptrdiff_t(options.max_events - 1);
    std::nth_element(durations.begin(), nth, durations.end(), std::greater<uint64_t>());
    const uint64_t cutoff = *nth;
    uint64_t longer = 0;
    for (uint64_t d : durations) longer += d > cutoff;
    uint64_t equal_left = options.max_events - longer;  // ties: the first in output order (parents first)
    for (ThreadFrames& tf : threads)
      for (size_t i = 0; i < tf.frames.size(); ++i) {
        if (!tf.keep[i]) continue;
        uint64_t d = tf.frames[i].end - tf.frames[i].begin;
        if (d > cutoff) continue;
        if (d == cutoff && equal_left > 0) {
          --equal_left;
          continue;
        }
        tf.keep[i] = false;
        ++counted.over_limit;
      }
  }

  std::string out = "{\"traceEvents\":[\n";
  bool first = true;
  auto begin_event = [&] {
    if (!first) out += ",\n";
    first = false;
  };
  // Metadata: "ts" and "tid" are ignored by viewers, but some parsers drop
  // events without them (the main thread's tid stands for the process).
  for (const format::TraceProcess& p : trace.processes) {
    begin_event();
    std::string name = p.exe.empty() ? std::string("process") : base_name(p.exe);
    out += fmt::format(R"({{"name":"process_name","ph":"M","ts":0,"pid":{},"tid":{},"args":{{"name":{}}}}})", p.pid, p.pid,
                       json_quote(fmt::format("{} ({})", name, p.pid)));
    for (const format::TraceThread& t : p.threads) {
      begin_event();
      std::string tname = t.name.empty() ? fmt::format("thread {}", t.tid) : t.name;
      out += fmt::format(R"({{"name":"thread_name","ph":"M","ts":0,"pid":{},"tid":{},"args":{{"name":{}}}}})", p.pid, t.tid,
                         json_quote(tname));
    }
  }
  for (const ThreadFrames& tf : threads) {
    for (size_t i = 0; i < tf.frames.size(); ++i) {
      if (!tf.keep[i]) continue;
      const Frame& f = tf.frames[i];
      const SymbolInfo& sym = symbols(*tf.process, f.address, f.when);
      begin_event();
      out += fmt::format(R"({{"name":{},"ph":"X","ts":{},"dur":{},"pid":{},"tid":{})", json_quote(sym.name),
                         format_microseconds(f.begin), format_microseconds(f.end - f.begin), tf.process->pid,
                         tf.thread->tid);
      if (options.source_args && !sym.file.empty())
        out += fmt::format(R"(,"args":{{"file":{},"line":{}}})", json_quote(sym.file), sym.line);
      out += '}';
      ++counted.written;
    }
  }
  out += "\n],\n\"displayTimeUnit\":\"ns\"}\n";
  if (stats) *stats = counted;
  return out;
}

}  // namespace covkit::trace
