#pragma once
// lcov 1.x tracefile (the .info format of geninfo/lcov/genhtml), written the
// way `lcov` writes a merged file: per source one record with FN/FNDA/FNF/FNH,
// BRDA/BRF/BRH, DA/LF/LH, so genhtml, Codecov and `lcov -a` read it directly.
#include <string>

#include "model/project_coverage.h"
#include "report/text_pieces.h"

namespace covkit::report {

struct LcovOptions {
  std::string test_name;  // TN: value (lcov's --test-name); empty is allowed
};

std::string render_lcov(const model::ProjectCov& project, const LcovOptions& opts = {});
// The same text, handed to `emit` in pieces as it is made (a record at a time).
void stream_lcov(const model::ProjectCov& project, const LcovOptions& opts, const TextPieces& emit);

}  // namespace covkit::report
