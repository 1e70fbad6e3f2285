#pragma once
// The marker of a covkit HTML site: ".covkit-html" in the output directory,
// a header line then the names of the files covkit wrote, one per line. It
// is what makes a directory covkit's to replace, and what covkit may remove.
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>

namespace covkit::report::html {

inline constexpr std::string_view kMarkerFileName = ".covkit-html";

std::string marker_text(std::span<const std::string> written);

// The names a marker's text lists, itself included; empty when it is no
// valid marker. Only plain names (no '/', not "." or "..") count: anyone
// may have edited the file.
std::unordered_set<std::string> marker_names(std::string_view text);

}  // namespace covkit::report::html
