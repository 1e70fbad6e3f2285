#include "report/gcov/gcov_messages.h"

#include <fmt/format.h>

#include "util/printable.h"

namespace covkit::report {

std::string GcovMessages::render(const model::Diagnostic& d) {
  using K = model::DiagnosticKind;
  const std::string& f = d.file;
  // Names from notes files may hold control characters; gcov prints them
  // raw, covkit escapes them so one message stays one line.
  const std::string fn = util::printable(d.function);
  switch (d.kind) {
    case K::kAlreadyProcessed: return fmt::format("'{}' file is already processed\n", f);
    case K::kNotesUnreadable: return fmt::format("{}:cannot open notes file\n", f);
    case K::kNotNotes: return fmt::format("{}:not a gcov notes file\n", f);
    case K::kNotData: return fmt::format("{}:not a gcov data file\n", f);
    case K::kNotesUnsupported:
    case K::kDataUnsupported: return fmt::format("{}:{}\n", f, d.detail);
    case K::kNotesTruncated:
    case K::kDataTruncated: return fmt::format("{}:corrupted: {}\n", f, d.detail);
    case K::kNotesCorrupt:
    case K::kDataCorrupt: return fmt::format("{}:corrupted at byte {}: {}\n", f, d.offset.value_or(0), d.detail);
    case K::kNoFunctions: return fmt::format("{}:no functions found\n", f);
    // gcov does not tell a data file it cannot read from an absent one.
    case K::kDataMissing:
    case K::kDataUnreadable: return fmt::format("{}:cannot open data file, assuming not executed\n", f);
    case K::kDataVersionMismatch: return fmt::format("{}:version '{}', prefer version '{}'\n", f, d.detail, d.expected);
    case K::kStampMismatch: return fmt::format("{}:stamp mismatch with notes file\n", f);
    case K::kProfileMismatch: return fmt::format("{}:profile mismatch for '{}'\n", f, fn);
    case K::kSourceNewer: {
      std::string s = fmt::format("{}:source file is newer than notes file '{}'\n", util::printable(f), d.expected);
      if (!newer_notice_given_) s += "(the message is displayed only once per source file)\n";
      newer_notice_given_ = true;
      return s;
    }
    case K::kLacksEntryExit: return fmt::format("{}:'{}' lacks entry and/or exit blocks\n", f, fn);
    case K::kArcsToEntry: return fmt::format("{}:'{}' has arcs to entry block\n", f, fn);
    case K::kArcsFromExit: return fmt::format("{}:'{}' has arcs from exit block\n", f, fn);
    case K::kNoLines: return fmt::format("{}:no lines for '{}'\n", f, fn);
    case K::kSuspiciousCounter: return {};  // covkit's own check: gcov says nothing
  }
  return {};
}

}  // namespace covkit::report
