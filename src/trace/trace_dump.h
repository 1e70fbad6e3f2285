#pragma once
// `covkit trace dump`: a trace directory's contents for debugging the
// format. Raw: every file as it is on disk — each .meta line, each stream's
// header fields and every record with its offset, lead byte, raw delta,
// the counter it makes and its fields (ids as written, define addresses,
// lost counts, stack frames, sync points). Decoded: per thread, each event
// with its time, tid, kind and function. Both stream a record at a time,
// and go on past what they cannot read to the next file, saying where.
#include <cstdint>
#include <string>
#include <vector>

#include "format/trace_reader.h"
#include "trace/timeline_writer.h"
#include "util/expected.h"

namespace covkit::trace {

struct DumpStats {
  uint64_t files = 0, records = 0;
  // One line per damaged file: "FILE: byte N: what" (the dump of the file
  // stops there).
  std::vector<std::string> damage;
};

// The raw dump of every .meta and .ckt file in `dir`, image by image. An
// Error when `dir` cannot be listed or holds no trace file.
Expected<DumpStats> dump_trace_raw(const std::string& dir, const TextSink& out);

// The decoded events of every thread of `trace`, thread by thread; the
// readers' warnings (naming file and offset) are the damage.
DumpStats dump_trace_events(const format::TraceSet& trace, const SymbolLookup& symbols, const TextSink& out);

}  // namespace covkit::trace
