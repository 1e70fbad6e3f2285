#pragma once
// `covkit trace replay`: the calls and returns of a trace as indented text,
// the way `uftrace replay` shows them:
//
//   # DURATION     TID     FUNCTION
//               [  4242] | main() {
//      0.120 us [  4242] |   rec();
//               [  4243] | worker() {
//      3.275 us [  4242] | } /* main */
//
// One sequence for all threads in time order (as uftrace: events of
// different threads interleave where they happened at the same time). A
// call that returns with no shown line in between is one line, `f();`, with
// its duration; else `f() {` and, on its return, `} /* f */` with the
// duration. Filters act on what is shown, never on what is read: a hidden
// call's callees take its place in the nesting only through -F.
//
// Streams are read a block at a time and merged; what is kept is each
// thread's stack of open calls and, with a time filter, the lines of the
// last T that wait to know whether a call is long enough: memory grows with
// depth x threads, not with the events.
#include <cstdint>
#include <string>
#include <vector>

#include "format/trace_reader.h"
#include "trace/timeline_writer.h"

namespace covkit::trace {

struct ReplayOptions {
  std::vector<uint32_t> tids;          // only these threads (empty: all)
  std::vector<std::string> filters;    // -F: only these functions and their callees
  std::vector<std::string> notrace;    // -N: not these functions nor their callees
  int depth = -1;                      // levels shown (from the outermost -F match); negative: all
  uint64_t min_ns = 0;                 // hide calls shorter than this (and so their callees)
  bool duration = true;                // the DURATION column
  bool timestamp = false;              // the TIMESTAMP column (CLOCK_MONOTONIC seconds)
};

struct ReplayStats {
  uint64_t lines = 0;  // lines written after the header
  uint64_t threads = 0;  // threads replayed (after --tid)
  std::vector<std::string> warnings;   // problems met reading the streams, one line each naming the file
  std::vector<std::string> unmatched;  // FUNCs of -F and -N that named no function of the trace
};

// True when FUNC names `name` (a demangled name): the whole name, the name
// without its parameter list ("parse" for "parse(char const*)"), or the last
// components of that ("Parser::parse" for "ns::Parser::parse(int)").
bool replay_name_matches(const std::string& name, const std::string& func);

// "1.234 us", " 12.345 ms", ...: 11 characters, right-aligned, the unit
// chosen so that the number stays below 1000 (as uftrace does).
std::string format_replay_duration(uint64_t ns);
void append_replay_duration(std::string& out, uint64_t ns);

void write_replay(const format::TraceSet& trace, const SymbolLookup& symbols, const ReplayOptions& options,
                  const TextSink& out, ReplayStats* stats = nullptr);

}  // namespace covkit::trace
