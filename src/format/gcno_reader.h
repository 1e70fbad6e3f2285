#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <variant>

#include "format/gcno.h"

namespace covkit::format {

// Why a file could not be read at all (as opposed to a corrupt body).
enum class HeaderProblem { kNotThisKind, kUnsupportedVersion, kTruncatedHeader };

struct HeaderError {
  HeaderProblem problem;
  uint32_t version_word = 0;
  std::string message;  // one line, without the file name
};

using NotesResult = std::variant<NotesFile, HeaderError>;

// Parses a whole .gcno image. Never reads outside `data`.
NotesResult read_notes(std::span<const uint8_t> data);

}  // namespace covkit::format
