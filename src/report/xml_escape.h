#pragma once
// Text for XML attributes and content (Cobertura, SonarQube): the five
// special characters as entities, tab/LF/CR as character references (so
// attribute normalisation keeps them), and anything XML 1.0 cannot hold —
// other control characters, invalid UTF-8 — as U+FFFD, so any file name
// still gives a well-formed document.
#include <string>
#include <string_view>

namespace covkit::report {

std::string xml_escape(std::string_view s);

}  // namespace covkit::report
