#include "format/gcov_hex_dump.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

namespace covkit::format {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Two hex digits at `at`, or nullopt.
std::optional<uint8_t> hex_byte(std::string_view s, size_t at) {
  if (at + 2 > s.size()) return std::nullopt;
  int hi = hex_value(s[at]), lo = hex_value(s[at + 1]);
  if (hi < 0 || lo < 0) return std::nullopt;
  return uint8_t(hi << 4 | lo);
}

struct ParsedLine {
  uint32_t offset = 0;
  std::vector<uint8_t> data;  // empty: the end of a dump
};

// The fields after the marker: "OOOOOOOO:HH..HH:SS", anything after SS ignored.
Expected<ParsedLine> parse_fields(std::string_view s) {
  ParsedLine line;
  uint8_t sum = 0;
  for (size_t i = 0; i < 8; i += 2) {
    auto b = hex_byte(s, i);
    if (!b) return Error("the offset is not 8 hex digits");
    line.offset = line.offset << 8 | *b;
    sum = uint8_t(sum + *b);
  }
  if (s.size() < 9 || s[8] != ':') return Error("no ':' after the offset");
  size_t at = 9;
  while (at < s.size() && s[at] != ':') {
    // Said here, not after the loop: the caller hands over no more of a line
    // than 255 bytes take (kFieldsMax), so a longer one looks cut off there.
    if (line.data.size() == 255) return Error("more than 255 bytes on one line (at most 255)");
    if (at + 1 == s.size()) return Error("the line ends inside the data (cut off?)");
    auto b = hex_byte(s, at);
    if (!b) return Error(fmt::format("the data is not pairs of hex digits (at column {} after the marker)", at + 1));
    line.data.push_back(*b);
    sum = uint8_t(sum + *b);
    at += 2;
  }
  if (at >= s.size()) return Error("no ':' after the data (the line was cut off?)");
  auto check = hex_byte(s, at + 1);
  if (!check) return Error("no check digits after the data (the line was cut off?)");
  if (*check != sum)
    return Error(fmt::format("check digits {:02x}, but the line sums to {:02x} (garbled by the console?)", *check, sum));
  return line;
}

// 1-based, as an editor numbers lines: the LFs before `offset`, plus one.
// Counted only for a message, so that reading never pays for it.
uint64_t line_number(std::string_view text, uint64_t offset) {
  const std::string_view before = text.substr(0, offset);
  return 1 + uint64_t(std::count(before.begin(), before.end(), '\n'));
}

Error line_error(std::string_view text, uint64_t offset, const std::string& message) {
  return Error(offset, fmt::format("line {}: {}", line_number(text, offset), message));
}

// Follows the dumps line by line: each starts at offset 0, continues without
// gaps and ends with an empty line.
class DumpTracker {
 public:
  DumpTracker(std::string_view text, HexDump& out) : text_(text), out_(out) {}

  Expected<void> add(const ParsedLine& line, uint64_t text_offset) {
    if (!open_) {
      if (line.offset != 0)
        return Error(fmt::format("offset {:08x}, but no dump is open (its first lines were lost?)", line.offset));
      if (line.data.empty()) return Error("an end line for a dump that has no bytes");
      open_ = true;
      dump_base_ = out_.bytes.size();
      first_line_ = text_offset;
    } else if (line.offset == 0) {
      return Error(fmt::format("a new dump starts before the one begun at line {} ended (its end line is missing)",
                               line_number(text_, first_line_)));
    }
    const uint64_t expected = out_.bytes.size() - dump_base_;
    if (line.offset != expected)
      return Error(fmt::format("offset {:08x}, expected {:08x} (a line was lost or repeated)", line.offset, expected));
    if (line.data.empty()) {
      open_ = false;
      ++dumps_;
      return {};
    }
    out_.lines.push_back({out_.bytes.size(), text_offset});
    out_.bytes.insert(out_.bytes.end(), line.data.begin(), line.data.end());
    return {};
  }

  Expected<void> finish() const {
    if (open_)  // placed at the dump's first line
      return Error(first_line_, fmt::format("this dump has no end line (cut off after {} bytes)",
                                            out_.bytes.size() - dump_base_));
    if (dumps_ == 0) return Error(fmt::format("no \"{}\" lines: not a hex dump of a coverage stream", kHexDumpMarker));
    return {};
  }

 private:
  std::string_view text_;
  HexDump& out_;
  bool open_ = false;
  size_t dump_base_ = 0;
  uint64_t first_line_ = 0;  // text offset of the open dump's first line
  uint64_t dumps_ = 0;
};

// How much of the input tells text from binary.
constexpr size_t kTextProbe = 1 << 20;

// The fields need at most this much of a line after the marker.
constexpr size_t kFieldsMax = 8 + 1 + 2 * 255 + 1 + 2;

}  // namespace

Error HexDump::locate(const Error& stream_error, std::string_view text) const {
  if (!stream_error.offset || lines.empty()) return stream_error;
  const uint64_t at = *stream_error.offset;
  // The last line starting at or before the byte.
  auto it = std::upper_bound(lines.begin(), lines.end(), at,
                             [](uint64_t v, const Line& l) { return v < l.stream_offset; });
  const Line& line = it == lines.begin() ? lines.front() : *std::prev(it);
  Error e = stream_error;
  e.offset = line.text_offset;
  e.message = fmt::format("line {} (stream byte {}): {}", line_number(text, line.text_offset), at,
                          stream_error.message);
  return e;
}

Expected<HexDump> decode_hex_dump(std::string_view text) {
  // Mostly NUL bytes is no console log (a UART's noise is a few bytes): a
  // sparse 20 GB file of nothing is refused at once, not searched.
  const std::string_view head = text.substr(0, kTextProbe);
  const size_t nul = size_t(std::count(head.begin(), head.end(), '\0'));
  if (nul > head.size() / 2)
    return Error(0, fmt::format("{} of the first {} bytes are NUL: not a console log (nor a binary stream, which "
                                "starts with \"gcfn\")",
                                nul, head.size()));
  HexDump out;
  DumpTracker tracker(text, out);
  // From marker to marker: lines without one (the firmware's other output,
  // gigabytes of nothing) cost one memchr-driven search, not a loop per line.
  for (size_t marker = text.find(kHexDumpMarker); marker != std::string_view::npos;
       marker = text.find(kHexDumpMarker, marker + kHexDumpMarker.size())) {
    std::string_view fields = text.substr(marker + kHexDumpMarker.size(), kFieldsMax);
    fields = fields.substr(0, fields.find_first_of("\r\n"));
    auto parsed = parse_fields(fields);
    if (!parsed) return line_error(text, marker, parsed.error().message);
    if (auto a = tracker.add(*parsed, marker); !a) return line_error(text, marker, a.error().message);
  }
  if (auto f = tracker.finish(); !f) {
    const Error& e = f.error();
    return e.offset ? line_error(text, *e.offset, e.message) : Error(text.size(), e.message);
  }
  return out;
}

std::string encode_hex_line(uint32_t offset, std::string_view bytes) {
  std::string line = fmt::format("{}{:08x}:", kHexDumpMarker, offset);
  uint8_t sum = uint8_t((offset >> 24) + (offset >> 16) + (offset >> 8) + offset);
  for (char c : bytes) {
    line += fmt::format("{:02x}", uint8_t(c));
    sum = uint8_t(sum + uint8_t(c));
  }
  line += fmt::format(":{:02x}", sum);
  return line;
}

}  // namespace covkit::format
