#pragma once
// Adding two .gcda files of the same object (several test runs, several
// GCOV_PREFIX trees), with the rules libgcov applies when a run adds itself to
// an existing file and gcov-tool applies in `merge`:
//   - the object summary adds: runs + runs, sum_max + sum_max (both uint32,
//     wrapping; sum_max is the sum of each run's largest arc counter);
//   - counters add by kind: arcs, interval, pow2 and average add (uint64,
//     wrapping); ior and GCC 14's condition bitsets OR; time_profile keeps the
//     smallest non-zero value;
//   - a function that one file holds only as a placeholder (a COMDAT copy whose
//     counters another object owns in that program) takes the other's record,
//     as libgcov keeps the data "from another program".
// Unlike gcov-tool, which skips a function whose cfg checksum differs and never
// looks at the stamp, anything that shows the files come from different builds
// is an error: silently mixing builds gives counts that belong to neither.
#include <optional>
#include <string>

#include "format/gcda.h"
#include "util/expected.h"

namespace covkit::model {

// `a` + `b`, laid out like `a` (byte order, record order) and written as
// libgcov would write it (GCC >= 11's all-zero records compacted). A one-line
// reason (without file names) when the two cannot be added.
Expected<format::DataFile> merge_data(const format::DataFile& a, const format::DataFile& b);

}  // namespace covkit::model
