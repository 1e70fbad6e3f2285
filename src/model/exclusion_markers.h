#pragma once
// Exclusion markers in source comments, as lcov and gcovr understand them:
// LCOV_EXCL_LINE / _START / _STOP drop lines (and the functions that start
// on them); LCOV_EXCL_BR_LINE / _BR_START / _BR_STOP drop only branches.
// LCOV_EXCL_EXCEPTION_BR_LINE / _START / _STOP drop only exception branches.
// The GCOVR_EXCL_* and GCOV_EXCL_* spellings mean the same. A region starts
// on its START line and ends before its STOP line, as in lcov.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/project_coverage.h"
#include "model/source_texts.h"

namespace covkit::model {

struct ExclusionRegions {
  std::vector<bool> line;    // indexed by line number (1-based; [0] unused)
  enum : uint8_t { kKeep = 0, kAllBranches = 1, kThrowBranches = 2 };
  std::vector<uint8_t> branch;  // same, for branches
  std::vector<std::string> warnings;  // unmatched START/STOP, "FILE:LINE: ..."
};

// Scans `text` (the whole source); `name` only labels warnings.
ExclusionRegions find_exclusions(std::string_view text, const std::string& name);

// Marks excluded lines and functions and drops excluded branches.
void apply_exclusions(FileCov& file, const ExclusionRegions& regions);

// A source the markers could not be read from: its absolute path and why.
struct UnreadableSource {
  std::string path;
  std::string why;
};

struct SourceExclusions {
  std::vector<std::string> warnings;         // the markers' own ("FILE:LINE: ..."), in file order
  std::vector<UnreadableSource> unreadable;  // in file order; their counts are kept
};

// Reads every file's source (in parallel) and applies its markers. A source
// that cannot be read keeps its counts and is listed (the caller words it:
// a CI job without the sources has thousands). With `keep`, what was read
// of each source is kept there (for the HTML pages).
SourceExclusions apply_source_exclusions(ProjectCov& project, unsigned threads, SourceTexts* keep = nullptr);

}  // namespace covkit::model
