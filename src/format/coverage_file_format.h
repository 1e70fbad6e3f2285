#pragma once
// Which of the coverage file formats covkit reads a file holds, from its
// first bytes (and its name, when those say nothing).
#include <optional>
#include <string_view>

namespace covkit::format {

enum class CoverageFileFormat { kLcov, kCovkitJson };

// JSON when the text starts with '{'; an lcov tracefile when its first line
// that is not blank or a comment starts with an lcov key ("TN:", "SF:", ...);
// an empty file is a tracefile without records; else the name decides
// (.info/.lcov, .json); nullopt when nothing tells.
std::optional<CoverageFileFormat> detect_coverage_format(std::string_view name, std::string_view text);

}  // namespace covkit::format
