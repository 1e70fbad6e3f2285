#include "report/object_warnings.h"

#include <fmt/format.h>

#include <cstdint>
#include <string_view>

#include "format/gcov_version.h"
#include "report/gcov/gcov_messages.h"
#include "util/printable.h"

namespace covkit::report {

namespace {

// A count solved below zero means the arcs' counts do not add up. Threads
// racing on plain counters do that, but so does a single-threaded program
// that forks: libgcov clears the child's counters at fork(), so the counts
// the child writes (at its exec or exit) start in the middle of the function,
// and -fprofile-update=atomic changes nothing there.
constexpr const char* kNegativeCountCauses =
    "negative: the counts do not add up, as when threads race on them (build with -fprofile-update=atomic) "
    "or a fork()ed child writes its own, begun mid-function, at its exec or exit";

// "GCC 11.3" for "B13*", "clang" for "408*", else the word as it is.
std::string compiler_of(std::string_view chars) {
  if (chars.size() != 4) return fmt::format("version '{}'", util::printable(chars));
  uint32_t raw = 0;
  for (char c : chars) raw = raw << 8 | uint8_t(c);
  const auto v = format::GcovVersion::decode(raw);
  if (!v) return fmt::format("version '{}'", util::printable(chars));
  if (v->is_gcc48()) return "clang (or GCC 4.8)";
  return fmt::format("GCC {}.{}", v->major, v->minor);
}

}  // namespace

std::string object_warning(const model::Diagnostic& d) {
  switch (d.kind) {
    case model::DiagnosticKind::kDataUnreadable:
      return fmt::format("{}: cannot read the data file ({}); its object is reported as never run",
                         util::printable(d.file), d.detail);
    case model::DiagnosticKind::kNotesUnreadable:
      if (d.detail.empty()) break;
      return fmt::format("{}: cannot open the notes file: {}", util::printable(d.file), d.detail);
    // gcov's words first (what users search for), then what it means here.
    case model::DiagnosticKind::kDataVersionMismatch:
      return fmt::format("{}:version '{}', prefer version '{}': the data file was written by {}, its notes file by "
                         "{} (left from a build with another compiler? delete the .gcda files and run the tests "
                         "again)",
                         util::printable(d.file), util::printable(d.detail), util::printable(d.expected),
                         compiler_of(d.detail), compiler_of(d.expected));
    case model::DiagnosticKind::kStampMismatch:
      return fmt::format("{}:stamp mismatch with notes file: the object was compiled again after this data file "
                         "was written; its counts are left out (run the tests again)",
                         util::printable(d.file));
    case model::DiagnosticKind::kSuspiciousCounter:
      return fmt::format("{}: function {} (line {}): suspicious counter value {} ({})", util::printable(d.file),
                         util::printable(d.function), d.line, d.value,
                         d.value < 0 ? kNegativeCountCauses : "too large to be real");
    default:
      break;
  }
  // gcov's line, without its once-per-run notes (a fresh wording each time).
  std::string text = GcovMessages().render(d);
  if (size_t nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  // A data file that stops at an offset (cut short, or damaged there): what
  // was read before it is in the report, which then looks like a complete
  // run's unless this says otherwise.
  if (d.kind == model::DiagnosticKind::kDataCorrupt && d.offset)
    text += "; the counts read up to there are reported, and may be lower than the run's";
  return text;
}

}  // namespace covkit::report
