#pragma once
// How `covkit report` words what it found wrong with a build's objects, one
// line each: gcov's wording where it says enough, more where it does not (a
// data file that exists but cannot be read is not "not executed").
#include <string>

#include "model/session_diagnostics.h"

namespace covkit::report {

std::string object_warning(const model::Diagnostic& d);

}  // namespace covkit::report
