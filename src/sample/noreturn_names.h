#pragma once
// Library functions that never return to their caller, by name (as a call
// through the PLT or a symbol names them). Only unconditional ones: error()
// and error_at_line() return when their status is 0, so they are not here.
#include <string_view>

namespace covkit::sample {

bool is_known_noreturn(std::string_view name);

}  // namespace covkit::sample
