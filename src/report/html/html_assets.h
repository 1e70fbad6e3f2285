#pragma once
// The report's stylesheet and script, compiled into covkit so a site is
// complete and works offline (file://, no CDN, no web fonts).
#include <string_view>

namespace covkit::report::html {

inline constexpr std::string_view kStyleFileName = "style.css";
inline constexpr std::string_view kScriptFileName = "sort.js";

std::string_view style_css();
std::string_view sort_js();

}  // namespace covkit::report::html
