#pragma once
// covkit's own coverage JSON: the whole ProjectCov, lossless (except excluded
// lines and functions, which are not written), so coverage can be saved,
// merged and rendered again later. Schema: docs/report-formats.md; read back
// with format/covkit_json_reader.h.
#include <string>

#include "model/project_coverage.h"

namespace covkit::report {

// One line of compact UTF-8 JSON plus '\n'. Bytes of names that are not
// UTF-8 are written as U+FFFD (JSON cannot hold them), so only such names do
// not survive a round trip.
std::string render_covkit_json(const model::ProjectCov& project);

}  // namespace covkit::report
