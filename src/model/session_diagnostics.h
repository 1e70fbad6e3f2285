#pragma once
// What a gcov session finds wrong with its inputs, as data: the kind, the
// file, and the details. The session never words them; gcov's own wording
// (for `covkit gcov`, byte for byte) is rendered in report/gcov/gcov_messages,
// and `covkit report` decides per kind what its users need to see.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace covkit::model {

enum class DiagnosticKind {
  kAlreadyProcessed,     // the same data file given twice (file: the argument)
  kNotesUnreadable,      // the notes file cannot be opened (detail: why; gcov does not say)
  kNotNotes,             // not a .gcno (wrong magic)
  kNotesUnsupported,     // a version covkit does not read (detail says which)
  kNotesTruncated,       // the header is cut short (detail)
  kNotesCorrupt,         // damaged after the header (offset, detail)
  kNoFunctions,          // a notes file without functions
  kDataMissing,          // no data file: the object never ran
  kDataUnreadable,       // the data file exists but cannot be read (detail: why)
  kNotData,              // not a .gcda
  kDataUnsupported,      // detail says which version
  kDataTruncated,        // detail
  kDataCorrupt,          // offset, detail
  kDataVersionMismatch,  // detail: the data's version, expected: the notes' version
  kStampMismatch,        // the data belongs to another compilation
  kProfileMismatch,      // a function's checksums or counter count differ (function)
  kSourceNewer,          // a source is newer than the notes (file: as spelled in the notes; expected: the notes)
  kLacksEntryExit,       // graph problems of a function (file: the notes; function)
  kArcsToEntry,
  kArcsFromExit,
  kNoLines,              // a function placed on no line (file: the notes; function)
  // Not gcov's: covkit's check of the counts it reports (file: the data;
  // function, line, value). Negative or beyond kSuspiciousCount.
  kSuspiciousCounter,
};

// Counter values beyond this are suspicious: real programs do not run a line
// 2^56 times; such values come from corrupt or racing counters.
inline constexpr int64_t kSuspiciousCount = int64_t(1) << 56;

struct Diagnostic {
  Diagnostic(DiagnosticKind k, std::string f, std::string fn = {}, std::string det = {}, std::string exp = {},
             std::optional<uint64_t> at = {})
      : kind(k), file(std::move(f)), function(std::move(fn)), detail(std::move(det)), expected(std::move(exp)),
        offset(at) {}

  DiagnosticKind kind;
  std::string file;      // the file at fault (see the kinds)
  std::string function;  // the function's name as the session shows it, when the kind names one
  std::string detail;    // the reader's message, the data's version, why a file cannot be read
  std::string expected;  // kDataVersionMismatch: the version wanted; kSourceNewer: the notes file
  std::optional<uint64_t> offset;  // kNotesCorrupt, kDataCorrupt
  uint32_t line = 0;               // kSuspiciousCounter: the function's first line
  int64_t value = 0;               // kSuspiciousCounter

  // gcov 12's exit status for it (0: none): 1 unreadable notes, 2 wrong
  // kind of file, 3 version, 4 damage, 5 stamp mismatch.
  int gcov_status() const;
  // Whether the inputs of the object are damaged or unreadable, so that its
  // counts are missing or partial (not just stale or absent).
  bool damages_object() const;
};

}  // namespace covkit::model
