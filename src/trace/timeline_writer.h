#pragma once
// A trace as Chrome trace-event JSON (the "JSON Array/Object Format" that
// Perfetto's UI and chrome://tracing open): one track per thread, one "X"
// (complete) event per call, nested as the calls were.
//
//   {"traceEvents":[
//   {"name":"process_name","ph":"M","ts":0,"pid":7,"tid":7,"args":{"name":"prog (7)"}},
//   {"name":"thread_name","ph":"M","ts":0,"pid":7,"tid":7,"args":{"name":"prog"}},
//   {"name":"main","ph":"X","ts":0.000,"dur":12.345,"pid":7,"tid":7,"args":{"file":"a.cc","line":3}},
//   ...
//   ],
//   "displayTimeUnit":"ns"}
//
// Times are microseconds since the earliest thread start in the trace,
// written with three decimals from integer nanoseconds (exact, no float
// rounding), so an event's [ts, ts+dur] lies within its parent's. Events
// of a thread come in call order (preorder): a parent before a child that
// starts at the same time. Frames still open where a thread's stream ends
// (running or killed program) end at its last event, or at the end of its
// process when that ended normally later (as in CallProfile); frames open
// when a stream starts (a forked child) begin at its start.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "format/trace_reader.h"
#include "trace/symbol_memo.h"
#include "trace/symbolizer.h"

namespace covkit::trace {

struct TimelineOptions {
  uint64_t min_duration_ns = 0;  // calls shorter than this are left out
  uint64_t max_events = 0;       // 0: all; else the longest calls, at most this many
  bool source_args = true;       // args {"file": ..., "line": ...} when known
  unsigned threads = 0;          // thread streams replayed at once (0: one per core); the output is the same
};

struct TimelineStats {
  uint64_t calls = 0;       // calls in the trace
  uint64_t written = 0;     // "X" events written
  uint64_t too_short = 0;   // left out by min_duration_ns
  uint64_t over_limit = 0;  // left out by max_events
  std::vector<std::string> warnings;  // problems met reading the streams, one line each naming the file
};

// Where the JSON goes, piece by piece.
using TextSink = std::function<void(std::string_view)>;

// Reads each thread's stream once, a block at a time, keeping only the calls
// that will be written (at most max_events of them) and each thread's open
// frames: memory does not grow with the trace's length.
void write_timeline(const format::TraceSet& trace, const SymbolLookup& symbols, const TimelineOptions& options,
                    const TextSink& out, TimelineStats* stats = nullptr);

// The same into a string (small traces, tests).
std::string write_timeline(const format::TraceSet& trace, const SymbolLookup& symbols,
                           const TimelineOptions& options = {}, TimelineStats* stats = nullptr);

// 1234567 ns -> "1234.567" (µs, three decimals).
std::string format_microseconds(uint64_t ns);
void append_microseconds(std::string& out, uint64_t ns);

// `s` as a JSON string literal: quotes, backslashes and control characters
// escaped, invalid UTF-8 as U+FFFD.
std::string json_quote(std::string_view s);
void append_json_quoted(std::string& out, std::string_view s);  // json_quote(s) appended to out

}  // namespace covkit::trace
