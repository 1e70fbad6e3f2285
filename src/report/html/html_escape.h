#pragma once
// Every byte that comes from a source file or a coverage file (code, paths,
// function names) goes into the pages through these, so no input can open a
// tag, close an attribute or start an entity.
#include <string>
#include <string_view>

namespace covkit::report::html {

// Appends `text` with & < > " ' replaced by entities; safe in element
// content and in quoted attribute values alike. A byte that starts no
// well-formed UTF-8 sequence becomes U+FFFD (the pages are UTF-8).
void append_escaped(std::string& out, std::string_view text);
std::string escape(std::string_view text);

}  // namespace covkit::report::html
