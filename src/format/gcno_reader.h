#pragma once
#include <cstdint>
#include <functional>
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

// Offered each function once its records are read (with the file read so
// far: its header and the names of `files`); a function it takes (returns
// true; it may move from it) is not kept in NotesFile::functions. A reader
// that builds its own structures from each function at once keeps one
// function's records in memory at a time instead of the whole file's.
using NotesFunctionSink = std::function<bool(const NotesFile& file, NotesFunction& fn)>;

// Parses a whole .gcno image. Never reads outside `data`. With `sink`, the
// functions it takes are not kept; the others, and the rest, as without.
NotesResult read_notes(std::span<const uint8_t> data, const NotesFunctionSink& sink = {});

}  // namespace covkit::format
