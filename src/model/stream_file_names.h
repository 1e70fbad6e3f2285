#pragma once
// Where a file named in a coverage stream goes below the output directory
// of `covkit live unpack`. The name is the .gcda path the object was
// compiled for, usually absolute: like libgcov under GCOV_PREFIX=OUT, the
// whole path is kept below OUT, less `strip` leading directories (as
// GCOV_PREFIX_STRIP). A name that could reach outside OUT ("..") or that no
// compiler writes (no ".gcda" at the end, control characters, a component
// longer than 255 bytes) is refused: the stream is not trusted.
#include <string>
#include <string_view>

#include "util/expected.h"

namespace covkit::model {

// The path below the output directory ('/'-separated, no empty or "."
// parts), or why there is none (one line, without the name).
Expected<std::string> stream_file_relative_path(std::string_view name, unsigned strip);

}  // namespace covkit::model
