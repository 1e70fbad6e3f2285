#include "blocks/block_file.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>

#include "runtime/blocks/block_contract.h"
#include "util/printable.h"

namespace covkit::blocks {

namespace {

constexpr size_t kMaxLine = 8192;

std::vector<std::string_view> words_of(std::string_view line, size_t max_words) {
  std::vector<std::string_view> out;
  while (!line.empty() && out.size() + 1 < max_words) {
    size_t space = line.find(' ');
    if (space == std::string_view::npos) break;
    out.push_back(line.substr(0, space));
    line.remove_prefix(space + 1);
  }
  out.push_back(line);  // the last word keeps its spaces (a path)
  return out;
}

bool number(std::string_view s, uint64_t& out, int base) {
  if (base == 16 && s.starts_with("0x")) s.remove_prefix(2);
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

bool looks_like_block_file(std::span<const uint8_t> bytes) {
  const std::string_view magic = CKB_MAGIC "\n";
  return bytes.size() >= magic.size() && std::memcmp(bytes.data(), magic.data(), magic.size()) == 0;
}

Expected<BlockFile> parse_block_file(std::string_view text) {
  BlockFile f;
  size_t number_of_line = 0;
  bool ended = false;
  auto bad = [&](std::string_view what) {
    return Error(fmt::format("line {}: {}", number_of_line, what));
  };
  while (!text.empty()) {
    size_t nl = text.find('\n');
    if (nl == std::string_view::npos) return Error(fmt::format("line {}: cut short (no end)", number_of_line + 1));
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    ++number_of_line;
    if (line.size() > kMaxLine) return bad("a line longer than any the runtime writes");
    if (ended) return bad("data after the end line");
    if (number_of_line == 1) {
      if (line != CKB_MAGIC) return bad(fmt::format("not a block file (it starts with \"{}\")", CKB_MAGIC));
      continue;
    }
    if (line == "end") {
      ended = true;
      continue;
    }
    auto w = words_of(line, 3);
    if (w[0] == "pid") {
      uint64_t pid = 0;
      if (w.size() != 2 || !number(w[1], pid, 10)) return bad("a damaged pid line");
      f.pid = int64_t(pid);
    } else if (w[0] == "dropped") {
      // Five numbers, or six (UNMAPPED, since the runtime counts them).
      auto d = words_of(line, 8);
      if ((d.size() != 6 && d.size() != 7) || !number(d[1], f.dropped_pcs, 10) ||
          !number(d[2], f.dropped_guards, 10) || !number(d[3], f.unpaired_counters, 10) ||
          !number(d[4], f.mismatched_tables, 10) || !number(d[5], f.dropped_trace, 10) ||
          (d.size() == 7 && !number(d[6], f.unmapped_blocks, 10)))
        return bad("a damaged dropped line");
    } else if (w[0] == "module") {
      BlockModule m;
      if (w.size() != 3 || !number(w[1], m.bias, 16) || w[2].empty()) return bad("a damaged module line");
      m.path = std::string(w[2]);
      f.modules.push_back(std::move(m));
    } else if (w[0].size() == 1 && (w[0][0] == 'b' || w[0][0] == 'w' || w[0][0] == 'f')) {
      if (f.modules.empty()) return bad("a block before any module");
      BlockEntry e;
      e.kind = static_cast<BlockKind>(w[0][0]);
      if (w.size() != 3 || !number(w[1], e.address, 16) || !number(w[2], e.count, 10))
        return bad("a damaged block line");
      if ((e.kind == BlockKind::kWrapped && e.count > 255) || (e.kind == BlockKind::kFlag && e.count > 1))
        return bad("an inline counter out of its range");
      f.modules.back().blocks.push_back(e);
    } else {
      return bad(fmt::format("an unknown line \"{}\"", util::printable(line.substr(0, 40))));
    }
  }
  if (number_of_line == 0) return Error("empty (the process died before it wrote its blocks)");
  if (!ended) return Error(fmt::format("line {}: cut short (no end line)", number_of_line));
  return f;
}

}  // namespace covkit::blocks
