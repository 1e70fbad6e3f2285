#pragma once
// Reads covkit's own coverage JSON (report/covkit_json_writer.h; schema in
// docs/report-formats.md) back into a ProjectCov. The input may be hostile:
// every member is type- and range-checked and the first problem is reported.
#include <optional>
#include <string_view>

#include "format/parse_error.h"
#include "model/project_coverage.h"

namespace covkit::format {

inline constexpr std::string_view kCovkitJsonFormat = "covkit-coverage";
inline constexpr int kCovkitJsonVersion = 1;

struct CovkitJsonResult {
  model::ProjectCov project;  // normalized (sorted, duplicates merged); empty on error
  std::optional<ParseError> error;
};

// offset is the byte offset for malformed JSON and 0 for a well-formed
// document with wrong contents, whose message names the member instead
// ("files[2].lines[7].line: -3 is not a line number (1..8388608)").
CovkitJsonResult read_covkit_json(std::string_view text);

}  // namespace covkit::format
