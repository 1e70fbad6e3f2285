#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "format/gcno.h"
#include "util/expected.h"

namespace covkit::format {

// Why a file could not be read at all (as opposed to a corrupt body).
enum class HeaderProblem { kNotThisKind, kUnsupportedVersion, kTruncatedHeader };

// An Error (its message: one line, without the file name) that says which.
struct HeaderError : Error {
  HeaderProblem problem;
  uint32_t version_word = 0;
  HeaderError(HeaderProblem p, uint32_t word, std::string m) : Error(std::move(m)), problem(p), version_word(word) {}
};

using NotesResult = Expected<NotesFile, HeaderError>;

// Parses a whole .gcno image. Never reads outside `data`.
NotesResult read_notes(std::span<const uint8_t> data);

}  // namespace covkit::format
