#pragma once
// The time a report says it was made. Reproducible builds set
// SOURCE_DATE_EPOCH (seconds since 1970, UTC) so that two builds of the same
// sources give the same bytes; Cobertura's and the HTML pages' timestamps
// follow it, as gcovr's and genhtml's do.
#include <cstdint>

#include "util/expected.h"

namespace covkit::util {

// SOURCE_DATE_EPOCH when it is set (an error, naming the variable and its
// value, when that is no non-negative whole number of seconds), else now.
Expected<int64_t> output_timestamp();

}  // namespace covkit::util
