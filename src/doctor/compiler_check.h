#pragma once
// The C compilers on PATH and the coverage data each writes: a one-line
// program compiled with --coverage, its .gcno's version word read back
// (what covkit will be given, not what the compiler's name suggests).
#include <string>
#include <vector>

#include "doctor/finding.h"

namespace covkit::doctor {

// `path` is a PATH value (":"-separated directories); `scratch` a
// directory for the probe's files.
std::vector<Finding> check_compilers(const std::string& path, const std::string& scratch);

}  // namespace covkit::doctor
