#pragma once
// Reads covkit's own coverage JSON (report/covkit_json_writer.h; schema in
// docs/report-formats.md) as records (model::load_coverage_file applies the
// model's rules to them). The input may be hostile: every member is type- and
// range-checked and the first problem is reported.
#include <string_view>

#include "format/coverage_records.h"
#include "util/expected.h"

namespace covkit::format {

inline constexpr std::string_view kCovkitJsonFormat = "covkit-coverage";
inline constexpr int kCovkitJsonVersion = 1;

// The error's offset is the byte offset for malformed JSON; a well-formed
// document with wrong contents has none, and its message names the member
// ("files[2].lines[7].line: -3 is not a line number (1..8388608)").
Expected<CoverageRecords> read_covkit_json(std::string_view text);

}  // namespace covkit::format
