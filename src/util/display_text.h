#pragma once
// Names shown in a terminal table or a Markdown cell: file names are bytes,
// and a byte that is no UTF-8, or a control character, would garble the row
// (a terminal shows invalid bytes in its own way and acts on controls).
#include <cstddef>
#include <string>
#include <string_view>

namespace covkit::util {

// `s` as well-formed UTF-8 without control characters: each byte that starts
// no well-formed sequence, and each C0 control, DEL, C1 control (U+0080-
// U+009F, a terminal's CSI and OSC among them) or bidirectional formatting
// character (which would reorder the rest of the name), becomes U+FFFD.
std::string display_text(std::string_view s);

// Terminal columns of well-formed UTF-8 text (display_text's output): one a
// character, two for East Asian wide and emoji ones, none for combining marks.
size_t display_columns(std::string_view s);

// `s` (display_text's output) in at most `width` columns: "..." and as much
// of its end as fits, whole characters only; unchanged when it fits or when
// `width` is below 4.
std::string shorten_front(std::string_view s, size_t width);

// `s` followed by spaces up to `width` columns.
std::string pad_right(std::string_view s, size_t width);

}  // namespace covkit::util
