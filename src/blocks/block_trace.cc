#include "blocks/block_trace.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <string_view>

#include "runtime/blocks/block_contract.h"
#include "util/printable.h"

namespace covkit::blocks {

namespace {

constexpr size_t kMaxTraceLine = 8192;

bool trace_number(std::string_view s, uint64_t& out, int base) {
  if (base == 16 && s.starts_with("0x")) s.remove_prefix(2);
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && end == s.data() + s.size();
}

// The first `n - 1` words split at single spaces, the last the rest (a path).
std::vector<std::string_view> trace_words(std::string_view line, size_t n) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < n) {
    size_t space = line.find(' ');
    if (space == std::string_view::npos) break;
    out.push_back(line.substr(0, space));
    line.remove_prefix(space + 1);
  }
  out.push_back(line);
  return out;
}

}  // namespace

bool looks_like_block_trace(std::span<const uint8_t> bytes) {
  const std::string_view magic = CKB_TRACE_MAGIC "\n";
  return bytes.size() >= magic.size() && std::memcmp(bytes.data(), magic.data(), magic.size()) == 0;
}

Expected<BlockTrace> parse_block_trace(std::span<const uint8_t> bytes) {
  std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  BlockTrace t;
  size_t line_number = 0;
  auto bad = [&](std::string_view what) { return Error(fmt::format("line {}: {}", line_number, what)); };
  if (text.empty()) return Error("empty (the process died before it wrote its trace)");
  bool have_bound = false, have_dropped = false;
  while (true) {
    size_t nl = text.find('\n');
    if (nl == std::string_view::npos || nl > kMaxTraceLine) {
      ++line_number;
      return nl == std::string_view::npos ? bad("cut short (no events line)")
                                          : bad("a line longer than any the runtime writes");
    }
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    ++line_number;
    if (line_number == 1) {
      if (line != CKB_TRACE_MAGIC) return bad(fmt::format("not a block trace (it starts with \"{}\")", CKB_TRACE_MAGIC));
      continue;
    }
    auto w = trace_words(line, 3);
    if (w[0] == "pid") {
      uint64_t pid = 0;
      if (w.size() != 2 || !trace_number(w[1], pid, 10) || pid > uint64_t(INT64_MAX)) return bad("a damaged pid line");
      t.pid = int64_t(pid);
    } else if (w[0] == "bound") {
      if (w.size() != 2 || !trace_number(w[1], t.bound, 10)) return bad("a damaged bound line");
      have_bound = true;
    } else if (w[0] == "dropped") {
      if (w.size() != 3 || !trace_number(w[1], t.dropped_past, 10) || !trace_number(w[2], t.dropped_lost, 10))
        return bad("a damaged dropped line");
      have_dropped = true;
    } else if (w[0] == "module") {
      TraceModule m;
      if (w.size() != 3 || !trace_number(w[1], m.bias, 16) || w[2].empty()) return bad("a damaged module line");
      if (t.modules.size() >= UINT32_MAX) return bad("too many modules");
      m.path = std::string(w[2]);
      t.modules.push_back(std::move(m));
    } else if (w[0] == "i") {
      uint64_t id = 0;
      TraceBlock b;
      if (t.modules.empty()) return bad("a block id before any module");
      if (w.size() != 3 || !trace_number(w[1], id, 16) || !trace_number(w[2], b.address, 16) || id == 0 ||
          id > UINT32_MAX)
        return bad("a damaged block id line");
      b.module = uint32_t(t.modules.size() - 1);
      if (!t.blocks.emplace(uint32_t(id), b).second) return bad(fmt::format("block id {:x} given twice", id));
    } else if (w[0] == "events") {
      uint64_t n = 0;
      if (w.size() != 2 || !trace_number(w[1], n, 10)) return bad("a damaged events line");
      if (!have_bound || !have_dropped) return bad("events before the bound and dropped lines");
      if (n > t.bound) return bad(fmt::format("{} events, more than its bound of {}", n, t.bound));
      // The ids, then "end\n": exactly, so a cut file is never read as whole.
      if (n > text.size() / 4 || text.size() - n * 4 < 4)
        return Error(fmt::format("line {}: cut short ({} events said, {} bytes follow)", line_number, n, text.size()));
      t.events.resize(size_t(n));
      if (n) std::memcpy(t.events.data(), text.data(), size_t(n) * 4);  // little-endian, as written (x86-64)
      text.remove_prefix(size_t(n) * 4);
      if (text != "end\n") {
        return Error(fmt::format("after the {} events: {}", n,
                                 text.starts_with("end\n") ? "data after the end line" : "no end line (cut short?)"));
      }
      return t;
    } else {
      return bad(fmt::format("an unknown line \"{}\"", util::printable(line.substr(0, 40))));
    }
  }
}

}  // namespace covkit::blocks
