#pragma once
// Text bound for a terminal. Names and source lines come from other users'
// files; on a terminal their escape sequences would act (set the title or
// the clipboard, clear the screen, move the cursor over what was printed).
// In a pipe or a file the bytes are kept as they are (outputs there match
// gcov's and gprof's byte for byte); on a terminal each byte or character
// that could start or carry a control becomes \xNN, as `ls` shows such
// names as '?' on a terminal only.
#include <cstdio>
#include <string>
#include <string_view>

namespace covkit::util {

// Whether `f` is a terminal.
bool is_terminal(FILE* f);

enum class Colours { kEscape, kKeep };

// `s` with each C0 control but newline, tab and form feed, DEL, each C1
// control (U+0080-U+009F, which terminals take as ESC + a letter) and each
// byte that starts no well-formed UTF-8 sequence (an 8-bit terminal takes
// 0x80-0x9F as C1) written as \xNN. With kKeep, the sequences gcov's
// colours are made of are kept (ESC [ K, and SGR that only sets or resets
// colours): covkit's own colours; conceal, blink and the rest are escaped.
std::string terminal_text(std::string_view s, Colours colours = Colours::kEscape);

// terminal_text(s) when `f` is a terminal, else `s` itself.
std::string_view for_terminal(FILE* f, std::string_view s, std::string& room, Colours colours = Colours::kEscape);

// Writes `s` to `f` through for_terminal: s.size() when all of it was
// written, less when not (as fwrite's count).
size_t write_for_terminal(FILE* f, std::string_view s, Colours colours = Colours::kEscape);

}  // namespace covkit::util
