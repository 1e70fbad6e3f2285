#pragma once
// Where and why a coverage file is damaged. Readers never throw: they return
// what they could read plus, if something was wrong, one of these (the
// project's one error type, util/expected.h, always with an offset here).
#include "util/expected.h"

namespace covkit::format {

using ParseError = Error;

}  // namespace covkit::format
