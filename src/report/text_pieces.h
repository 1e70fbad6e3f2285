#pragma once
// A large text output handed on in pieces as it is rendered: the whole text
// of a big project (zstd's lcov and Cobertura files, 10 MB together) was a
// string of fresh pages faulted in, copied on each doubling and written at
// the end; in pieces of kTextPiece bytes, one buffer is reused and written
// while the next piece is made.
#include <cstddef>
#include <functional>
#include <string_view>

namespace covkit::report {

// Receives the pieces in order; their concatenation is the text.
using TextPieces = std::function<void(std::string_view)>;

// About this many bytes per piece (a piece ends at a record's end).
inline constexpr size_t kTextPiece = size_t(128) << 10;

}  // namespace covkit::report
