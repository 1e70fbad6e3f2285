#pragma once
// Whether a command colours what it writes to a descriptor, for --color WHEN.
#include <string_view>

namespace covkit::cli {

// "always" and "never" are what they say. "auto" colours a terminal, unless
// the environment asks for plain text: NO_COLOR set and not empty
// (no-color.org, which CI runners and users set once for every tool), or
// TERM=dumb (Emacs' shell buffers, some CI log viewers).
bool colour_wanted(std::string_view when, int fd);

}  // namespace covkit::cli
