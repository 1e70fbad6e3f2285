#include "report/object_warnings.h"

#include <fmt/format.h>

#include "report/gcov/gcov_messages.h"
#include "util/printable.h"

namespace covkit::report {

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
                         d.value < 0 ? "negative: racing threads lost updates; build with -fprofile-update=atomic"
                                     : "too large to be real");
    default:
      break;
  }
  // gcov's line, without its once-per-run notes (a fresh wording each time).
  std::string text = GcovMessages().render(d);
  if (size_t nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  return text;
}

}  // namespace covkit::report
