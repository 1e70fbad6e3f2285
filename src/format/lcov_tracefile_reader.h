#pragma once
// Reads lcov tracefiles (.info) as lcov 1.x and 2.x write them, into the
// project model, so that `covkit merge` (and reports) can take what lcov,
// gcovr or other tools produced. Records of the same source merge by lcov's
// rules: lines add per number, branches per position on the line, functions
// per name. Totals (LF, LH, FNF, ...) are ignored: they are recomputed.
#include <optional>
#include <string_view>

#include "format/parse_error.h"
#include "model/project_coverage.h"

namespace covkit::format {

struct TracefileResult {
  model::ProjectCov project;  // the complete records before any error
  std::optional<ParseError> error;  // offset = byte offset of the line; message starts "line N: "
};

TracefileResult read_lcov_tracefile(std::string_view text);

}  // namespace covkit::format
