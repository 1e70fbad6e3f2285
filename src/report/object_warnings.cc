#include "report/object_warnings.h"

#include <fmt/format.h>

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

}  // namespace

std::string object_warning(const model::Diagnostic& d) {
  switch (d.kind) {
    case model::DiagnosticKind::kDataUnreadable:
      return fmt::format("{}: cannot read the data file ({}); its object is reported as never run",
                         util::printable(d.file), d.detail);
    case model::DiagnosticKind::kNotesUnreadable:
      if (d.detail.empty()) break;
      return fmt::format("{}: cannot open the notes file: {}", util::printable(d.file), d.detail);
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
  return text;
}

}  // namespace covkit::report
