#pragma once
// How a page names a function: demangled (from the mangled name when the
// model has no demangled one), and for a constructor or destructor, which of
// its variants it is (C1/C2/C3, D0/D1/D2): the variants share a demangled
// name and would otherwise look like duplicates.
#include <string>

namespace covkit::report::html {

std::string display_name(const std::string& demangled, const std::string& mangled);

// Appends " <span class="variant" title="...">C1 complete</span>" for a
// constructor or destructor variant, nothing for other functions.
void append_variant_badge(std::string& out, const std::string& mangled);

}  // namespace covkit::report::html
