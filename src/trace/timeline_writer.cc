#include "trace/timeline_writer.h"

#include <filesystem>
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "format/trace_event_reader.h"
#include "trace/stream_shares.h"
#include "trace/symbol_memo.h"
#include "trace/timeline_parts.h"
#include "trace/timeline_selection.h"
#include "util/append_number.h"
#include "util/phase_timer.h"
#include "util/thread_pool.h"
#include "util/utf8.h"
#include "util/path_names.h"

namespace covkit::trace {

using util::append_decimal;

namespace {

// Calls of one thread are numbered from thread_index << 40 (2^40 calls per
// thread, 2^24 threads).
constexpr unsigned kOrderBits = 40;

// Replays one thread's stream. Times never go backwards (clamped), so a
// frame always ends within its parent even if a calibration were off.
void replay_thread(const format::TraceProcess& p, const format::TraceThread& t, uint64_t origin, uint64_t thread_index,
                   Candidates& selection, std::vector<std::string>& warnings, bool background) {
  const format::TraceClock to_ns = p.clock();  // as CallProfile converts
  uint64_t last = 0;
  auto ns = [&](uint64_t counter) {
    uint64_t v = to_ns(counter);
    v = v > origin ? v - origin : 0;
    last = std::max(last, v);
    return last;
  };
  uint64_t order = thread_index << kOrderBits;
  std::vector<TimelineCall> open;
  format::TraceEventReader reader(t, warnings, background);
  auto block = reader.next();
  for (uint64_t address : reader.summary().initial_stack) open.push_back({ns(t.start), 0, address, t.start, order++});
  uint64_t now = ns(t.start), last_event = 0;
  for (; !block.empty(); block = reader.next()) {
    for (const format::TraceEvent& e : block) {
      now = ns(e.time);
      if (e.kind == format::TraceEvent::Kind::kEnter) {
        open.push_back({now, 0, e.address, e.time, order++});
      } else if (!open.empty()) {
        open.back().end = now;
        selection.offer(open.back());
        open.pop_back();
      }
    }
    last_event = block.back().time;
  }
  // Still open (a killed or running program, a thread still running at
  // exit): they end at the thread's last event (specials included), or at the
  // end of its process when that ended normally after it, as in the profile.
  const format::StreamSummary& tail = reader.summary();
  const uint64_t end_counter =
      format::open_frames_end(std::max({t.start, tail.last_time, last_event}), tail.ended, p.end);
  now = std::max(now, ns(end_counter));
  for (TimelineCall& c : open) {
    c.end = now;
    selection.offer(c);
  }
}

// The JSON of a function's name and of its source arguments, rendered once
// (symbol_memo.h): looking each call up and quoting it again was most of
// the JSON's time.
struct RenderedSymbol {
  std::string name;  // quoted
  std::string args;  // ,"args":{"file":...,"line":N} or nothing
};

SymbolMemo<RenderedSymbol> rendered_symbols(const SymbolLookup& symbols, bool source_args) {
  return SymbolMemo<RenderedSymbol>(symbols, [source_args](const SymbolInfo& sym, RenderedSymbol& r) {
    append_json_quoted(r.name, sym.name);
    if (source_args && !sym.file.empty()) {
      r.args = ",\"args\":{\"file\":";
      append_json_quoted(r.args, sym.file);
      r.args += ",\"line\":";
      append_decimal(r.args, sym.line);
      r.args += '}';
    }
  });
}

// "prog (7)"; a pid that ran several images (exec) names them in order.
std::string process_label(const format::TraceSet& trace, size_t i) {
  std::string names;
  for (const format::TraceProcess& p : trace.processes) {
    if (p.pid != trace.processes[i].pid) continue;
    std::string name(p.exe.empty() ? std::string_view("process") : util::last_path_component(p.exe));
    names += (names.empty() ? "" : " \u2192 ") + name;
  }
  return fmt::format("{} ({})", names, trace.processes[i].pid);
}

}  // namespace

std::string format_microseconds(uint64_t ns) {
  std::string out;
  append_microseconds(out, ns);
  return out;
}

void append_microseconds(std::string& out, uint64_t ns) {
  append_decimal(out, ns / 1000);
  util::append_fraction(out, ns % 1000, 3);
}

std::string json_quote(std::string_view s) {
  std::string out;
  append_json_quoted(out, s);
  return out;
}

void append_json_quoted(std::string& out, std::string_view s) {
  out += '"';
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
    i += util::append_utf8_or_replacement(out, s, i);
  }
  out += '"';
}

void write_timeline(const format::TraceSet& trace, const SymbolLookup& symbols, const TimelineOptions& options,
                    const TextSink& out, TimelineStats* stats) {
  TimelineStats counted;
  util::PhaseTimer timer;
  // The origin: the earliest thread start of all processes (one clock,
  // CLOCK_MONOTONIC, so processes line up).
  uint64_t origin = std::numeric_limits<uint64_t>::max();
  for (const format::TraceProcess& p : trace.processes)
    for (const format::TraceThread& t : p.threads) origin = std::min(origin, p.clock()(t.start));
  if (origin == std::numeric_limits<uint64_t>::max()) origin = 0;

  // Too short, then too many: the longest calls stay (a parent lasts at
  // least as long as its children, so what stays is mostly whole subtrees;
  // any subset of properly nested calls is properly nested).
  uint64_t expected = 0;
  for (const format::TraceProcess& p : trace.processes)
    for (const format::TraceThread& t : p.threads) expected += t.counts ? t.counts->calls : t.events.size() / 2;
  Selection selection({options.min_duration_ns, options.max_events}, expected);
  std::vector<std::pair<const format::TraceProcess*, const format::TraceThread*>> threads;
  for (const format::TraceProcess& p : trace.processes)
    for (const format::TraceThread& t : p.threads) threads.emplace_back(&p, &t);
  // The threads' streams are replayed in parallel; their warnings are
  // kept in trace order.
  std::vector<std::vector<std::string>> warnings(threads.size());
  const unsigned workers = options.threads ? options.threads : util::default_threads();
  // With a core per stream to spare, each stream is also decoded on a core
  // of its own (as in build_profile).
  const bool background = threads.size() * 2 <= workers;
  auto in_order = [&](size_t i) {
    Candidates candidates(selection);
    replay_thread(*threads[i].first, *threads[i].second, origin, i, candidates, warnings[i], background);
    candidates.flush();
  };
  // The streams stream_shares.h picks are read in parts on all the cores,
  // one after the other (timeline_parts.h), or front to back when they
  // cannot be; the others beside each other, a core each.
  std::vector<const format::TraceThread*> streams;
  for (const auto& [process, thread] : threads) streams.push_back(thread);
  const std::vector<uint8_t> in_parts = streams_read_in_parts(streams, workers);
  std::vector<size_t> rest;
  for (size_t i = 0; i < threads.size(); ++i) {
    if (!in_parts[i]) {
      rest.push_back(i);
      continue;
    }
    const TimelineStream stream{threads[i].first, threads[i].second, origin, uint64_t(i) << kOrderBits};
    if (!timeline_parts(stream, workers, selection, warnings[i])) in_order(i);
  }
  util::parallel_for(rest.size(), workers, [&](size_t k) { in_order(rest[k]); });
  for (auto& w : warnings) counted.warnings.insert(counted.warnings.end(), w.begin(), w.end());
  timer.mark("timeline: replay");
  std::vector<TimelineCall> calls = selection.take();
  timer.mark("timeline: selection");
  counted.calls = selection.counts().calls;
  counted.too_short = selection.counts().too_short;
  counted.over_limit = selection.counts().over_limit;

  out("{\"traceEvents\":[\n");
  bool first = true;
  std::string line;
  auto emit = [&] {
    out(first ? std::string_view(line).substr(2) : std::string_view(line));
    first = false;
  };
  // Metadata: "ts" and "tid" are ignored by viewers, but some parsers drop
  // events without them (the main thread's tid stands for the process).
  std::set<std::pair<uint32_t, uint32_t>> named;
  for (size_t i = 0; i < trace.processes.size(); ++i) {
    const format::TraceProcess& p = trace.processes[i];
    if (i == 0 || trace.processes[i - 1].pid != p.pid) {
      line = fmt::format(",\n{{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":{},\"tid\":{},\"args\":{{\"name\":{}}}}}",
                         p.pid, p.pid, json_quote(process_label(trace, i)));
      emit();
    }
    for (const format::TraceThread& t : p.threads) {
      if (!named.emplace(p.pid, t.tid).second) continue;  // the same thread in an earlier image (exec)
      line = fmt::format(",\n{{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":{},\"tid\":{},\"args\":{{\"name\":{}}}}}",
                         p.pid, t.tid, json_quote(format::thread_display_name(t)));
      emit();
    }
  }
  // A million calls by default: the output is put together by appending, a
  // megabyte at a time (what fmt::format of each line gave, without parsing
  // a format string and making temporaries per call, which cost more than
  // reading the trace).
  SymbolMemo<RenderedSymbol> rendered = rendered_symbols(symbols, options.source_args);
  constexpr size_t kChunk = size_t(1) << 20;
  std::string chunk;
  chunk.reserve(kChunk + 4096);
  for (const TimelineCall& c : calls) {
    const auto& [process, thread] = threads[c.order >> kOrderBits];
    const RenderedSymbol& sym = rendered(*process, c.address, c.when);
    chunk += first ? "{\"name\":" : ",\n{\"name\":";
    first = false;
    chunk += sym.name;
    chunk += ",\"ph\":\"X\",\"ts\":";
    append_microseconds(chunk, c.begin);
    chunk += ",\"dur\":";
    append_microseconds(chunk, c.duration());
    chunk += ",\"pid\":";
    append_decimal(chunk, process->pid);
    chunk += ",\"tid\":";
    append_decimal(chunk, thread->tid);
    chunk += sym.args;
    chunk += '}';
    ++counted.written;
    if (chunk.size() >= kChunk) {
      out(chunk);
      chunk.clear();
    }
  }
  out(chunk);
  out("\n],\n\"displayTimeUnit\":\"ns\"}\n");
  timer.mark("timeline: JSON");
  if (stats) *stats = std::move(counted);
}

std::string write_timeline(const format::TraceSet& trace, const SymbolLookup& symbols, const TimelineOptions& options,
                           TimelineStats* stats) {
  std::string text;
  write_timeline(trace, symbols, options, [&](std::string_view piece) { text += piece; }, stats);
  return text;
}

}  // namespace covkit::trace
