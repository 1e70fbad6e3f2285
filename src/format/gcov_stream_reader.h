#pragma once
// Reads a freestanding target's coverage stream (format/gcov_stream.h) into
// its files, as `gcov-tool merge-stream` does, but checking what gcov-tool
// takes on trust: every length against the bytes that are there, the name
// (present, NUL-terminated, at most 4096 bytes), the version of both
// headers, and that the data holds only the records libgcov streams.
#include <cstdint>
#include <span>

#include "format/gcov_stream.h"
#include "util/expected.h"

namespace covkit::format {

// The longest file name accepted (Linux's PATH_MAX).
inline constexpr uint32_t kMaxStreamFileName = 4096;

// Whether `bytes` starts like a binary stream (a "gcfn" word in either byte
// order), as opposed to text such as a hex dump.
bool looks_like_binary_stream(std::span<const uint8_t> bytes);

// The whole stream, or the first thing wrong with it: an Error whose offset
// is the byte of the stream at fault and whose message names the file being
// read there, if any. Never reads outside `bytes`.
Expected<GcovStream> read_gcov_stream(std::span<const uint8_t> bytes);

}  // namespace covkit::format
