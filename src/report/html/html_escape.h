#pragma once
// Every byte that comes from a source file or a coverage file (code, paths,
// function names) goes into the pages through these, so no input can open a
// tag, close an attribute or start an entity.
#include <cstddef>
#include <string>
#include <string_view>

namespace covkit::report::html {

// Appends `text` with & < > " ' replaced by entities; safe in element
// content and in quoted attribute values alike. A byte that starts no
// well-formed UTF-8 sequence becomes U+FFFD (the pages are UTF-8).
void append_escaped(std::string& out, std::string_view text);
std::string escape(std::string_view text);

// The same text written at `out`, which has room for kMaxEscapedPerByte
// bytes per byte of `text` (for writers that make room once for many
// pieces); returns the end of what it wrote.
inline constexpr size_t kMaxEscapedPerByte = 6;  // '"' becomes "&quot;"
char* write_escaped(char* out, std::string_view text);

}  // namespace covkit::report::html
