#pragma once
// Numbers as gcov prints them. Percentages are computed in single precision
// and printed with printf rounding, tiny non-zero ratios shown as 1%: this is
// what makes 999/1000 print "100%" in gcov, and covkit prints the same.
#include <cstdint>
#include <string>
#include <string_view>

namespace covkit::report {

// A count, or with `human` and count >= 1000, "1.2k"-style units.
std::string format_count(int64_t count, bool human);
// The same into `buf` (64 bytes), which the text returned views.
std::string_view count_text(char* buf, int64_t count, bool human);
// gcov's format_gcov: decimals >= 0 gives "top/bottom" as a percentage with
// that many decimals and a '%'; decimals < 0 gives format_count(top).
std::string format_gcov(int64_t top, int64_t bottom, int decimals, bool human);
// The same into `buf` (64 bytes), which the text returned views.
std::string_view gcov_number_text(char* buf, int64_t top, int64_t bottom, int decimals, bool human);

// The same appended to `out`, right-aligned in `width` columns: the .gcov
// text writes one or more per line, and a temporary string each was a tenth
// of its time.
void append_count(std::string& out, int64_t count, bool human, size_t width = 0);
void append_gcov(std::string& out, int64_t top, int64_t bottom, int decimals, bool human, size_t width = 0);

}  // namespace covkit::report
