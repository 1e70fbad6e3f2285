#include "util/terminal_text.h"

#include <unistd.h>

#include <algorithm>

#include "util/hex_text.h"
#include "util/utf8.h"

namespace covkit::util {

namespace {

void append_escaped(std::string& out, unsigned char c) {
  out += "\\x";
  append_hex(out, {&c, 1});
}

// Length of the sequence at s[i] that gcov's colours (-k, -q) are made of,
// 0 if none: ESC [ K (erase to the line's end, after each colour) and SGR
// (ESC [ parameters m) whose parameters only set or reset colours (none, 0,
// 30-37, 39, 40-47, 49). Conceal (8), blink and the rest of SGR are
// escaped: a source line of another user's could hide text with them.
size_t colour_length(std::string_view s, size_t i) {
  if (i + 2 >= s.size() || s[i + 1] != '[') return 0;
  if (s[i + 2] == 'K') return 3;
  unsigned param = 0;
  size_t digits = 0;
  for (size_t k = i + 2; k < s.size(); ++k) {
    const char c = s[k];
    if (c >= '0' && c <= '9') {
      if (++digits > 2) return 0;
      param = param * 10 + unsigned(c - '0');
      continue;
    }
    if (c != ';' && c != 'm') return 0;
    const bool colour = param == 0 || (param >= 30 && param <= 37) || param == 39 || (param >= 40 && param <= 47) ||
                        param == 49;
    if (!colour) return 0;
    if (c == 'm') return k - i + 1;
    param = 0;
    digits = 0;
  }
  return 0;
}

bool harmless(std::string_view s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\n' && c != '\t' && c != '\f') || c >= 0x7f) return false;
  return true;
}

}  // namespace

bool is_terminal(FILE* f) {
  // Asked at each write of gcov's many small texts: stdout's and stderr's
  // answers once (covkit never redirects them).
  if (f == stdout) {
    static const bool terminal = isatty(STDOUT_FILENO) == 1;
    return terminal;
  }
  if (f == stderr) {
    static const bool terminal = isatty(STDERR_FILENO) == 1;
    return terminal;
  }
  return isatty(fileno(f)) == 1;
}

std::string terminal_text(std::string_view s, Colours colours) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n' || c == '\t' || c == '\f' || (c >= 0x20 && c < 0x7f)) {
      out += char(c);
      ++i;
      continue;
    }
    if (c == 0x1b && colours == Colours::kKeep) {
      if (const size_t n = colour_length(s, i)) {
        out.append(s.substr(i, n));
        i += n;
        continue;
      }
    }
    const size_t n = c < 0x80 ? 0 : utf8_length(s, i);
    if (n == 0 || is_c1_control(s, i, n)) {
      append_escaped(out, c);
      ++i;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string_view for_terminal(FILE* f, std::string_view s, std::string& room, Colours colours) {
  if (!is_terminal(f) || harmless(s)) return s;
  room = terminal_text(s, colours);
  return room;
}

size_t write_for_terminal(FILE* f, std::string_view s, Colours colours) {
  std::string room;
  const std::string_view shown = for_terminal(f, s, room, colours);
  const size_t written = std::fwrite(shown.data(), 1, shown.size(), f);
  // Short of s.size() whenever any of it was not written (the shown text
  // may be longer than `s`: its count alone could reach s.size()).
  return written == shown.size() ? s.size() : std::min(written, s.empty() ? 0 : s.size() - 1);
}

}  // namespace covkit::util
