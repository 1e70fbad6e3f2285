#pragma once
// Reads lcov tracefiles (.info) as lcov 1.x and 2.x write them, so that
// `covkit merge` and `covkit report` can take what lcov, gcovr or other tools
// produced. The result is the file's records as listed (model::
// load_coverage_file applies lcov's rules to them); totals (LF, LH, FNF, ...)
// are ignored, as they are recomputed.
#include <functional>
#include <string_view>

#include "format/coverage_records.h"
#include "util/expected.h"

namespace covkit::format {

// On error: the byte offset of the offending line, and a message that
// starts "line N: ".
Expected<CoverageRecords> read_lcov_tracefile(std::string_view text);

// The same, each source's record handed to `sink` as soon as its
// end_of_record is read, in file order, and not kept (the result's sources
// stay empty): a tracefile's records never exist all at once beside what
// the caller makes of them (a 1 GB tracefile is ~80 M line records).
using SourceSink = std::function<void(SourceRecord&&)>;
Expected<CoverageRecords> read_lcov_tracefile(std::string_view text, const SourceSink& sink);

}  // namespace covkit::format
