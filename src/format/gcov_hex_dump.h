#pragma once
// The text form of a coverage stream that a serial console can carry
// (docs/covkit-live-unpack.md; written by src/runtime/gcov_stream). One
// line per 32 bytes or fewer:
//
//   [anything]:gcov:OOOOOOOO:HHHH...HH:SS[anything]
//
// OOOOOOOO  8 hex digits: where the line's bytes start in this dump
// HH...     the bytes, two hex digits each (none: the dump ends here)
// SS        2 hex digits: the low byte of the sum of the 4 offset bytes and
//           the data bytes
//
// Lines end with LF, CR or both; whatever a console puts before the marker
// (a timestamp, "uart0: ") or after the check digits (colour codes) is
// ignored, and so are lines without the marker (the firmware's other
// output). A dump starts at offset 0 and ends with its empty line; several
// dumps follow each other. Anything else (a lost, repeated or garbled line,
// a dump without its end) is an error: a console that drops bytes must not
// turn into wrong counts.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace covkit::format {

inline constexpr std::string_view kHexDumpMarker = ":gcov:";

struct HexDump {
  std::vector<uint8_t> bytes;  // the stream: every dump's bytes, in order

  struct Line {
    uint64_t stream_offset = 0;  // of its first byte in `bytes`
    uint64_t text_offset = 0;    // of its marker in the text
  };
  std::vector<Line> lines;  // the data lines, by stream_offset

  // An error of the decoded stream (its offset a byte of `bytes`) told in
  // terms of `text` (the one decoded): offset the line's, "line N (stream
  // byte M): ...".
  Error locate(const Error& stream_error, std::string_view text) const;
};

// Decodes every dump in `text`; errors carry the text offset of the line at
// fault and say "line N: ...". Text without markers costs a scan for them.
Expected<HexDump> decode_hex_dump(std::string_view text);

// One line of the format for `bytes` (at most 255) at `offset`, without the
// line end: what the runtime writes, for tests and tools.
std::string encode_hex_line(uint32_t offset, std::string_view bytes);

}  // namespace covkit::format
