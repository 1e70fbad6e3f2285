#include "model/session_diagnostics.h"

namespace covkit::model {

int Diagnostic::gcov_status() const {
  switch (kind) {
    case DiagnosticKind::kNotesUnreadable: return 1;
    case DiagnosticKind::kNotNotes:
    case DiagnosticKind::kNotData: return 2;
    case DiagnosticKind::kNotesUnsupported:
    case DiagnosticKind::kDataUnsupported:
    case DiagnosticKind::kDataVersionMismatch: return 3;
    case DiagnosticKind::kNotesTruncated:
    case DiagnosticKind::kNotesCorrupt:
    case DiagnosticKind::kDataTruncated:
    case DiagnosticKind::kDataCorrupt: return 4;
    case DiagnosticKind::kStampMismatch: return 5;
    default: return 0;
  }
}

bool Diagnostic::damages_object() const {
  switch (kind) {
    case DiagnosticKind::kNotesUnreadable:
    case DiagnosticKind::kNotNotes:
    case DiagnosticKind::kNotesUnsupported:
    case DiagnosticKind::kNotesTruncated:
    case DiagnosticKind::kNotesCorrupt:
    case DiagnosticKind::kDataUnreadable:
    case DiagnosticKind::kNotData:
    case DiagnosticKind::kDataUnsupported:
    case DiagnosticKind::kDataTruncated:
    case DiagnosticKind::kDataCorrupt:
    case DiagnosticKind::kDataVersionMismatch:
    case DiagnosticKind::kStampMismatch:
    case DiagnosticKind::kProfileMismatch: return true;
    default: return false;
  }
}

}  // namespace covkit::model
