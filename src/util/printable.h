#pragma once
// Names taken from coverage files go into one-line messages; a name holding
// a newline or escape sequence must not break the line or the terminal.
#include <string>
#include <string_view>

namespace covkit::util {

// `s` with control bytes shown as \n, \t or \xNN, C1 controls (U+0080-U+009F),
// bidirectional formatting characters and bytes of no well-formed UTF-8
// sequence as \xNN each; unchanged when it has none.
std::string printable(std::string_view s);

}  // namespace covkit::util
