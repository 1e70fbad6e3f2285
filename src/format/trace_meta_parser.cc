#include "format/trace_meta_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "util/printable.h"

namespace covkit::format {

namespace {

template <typename T>
std::optional<T> number(std::string_view s, int base = 10) {
  T v{};
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// Splits off the first space-separated word of `rest`.
std::string_view word(std::string_view& rest) {
  size_t sp = rest.find(' ');
  std::string_view w = rest.substr(0, sp);
  rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp + 1);
  return w;
}

}  // namespace

MetaStatus parse_trace_meta(std::string_view text, const std::string& file, TraceProcess& process,
                            std::vector<std::pair<uint32_t, std::string>>& thread_names,
                            std::vector<std::string>& warnings) {
  auto warn = [&](size_t offset, const std::string& what) {
    warnings.push_back(fmt::format("{}: byte {}: {}", util::printable(file), offset, what));
  };
  size_t first_end = text.find('\n');
  if (first_end == std::string_view::npos) {
    // No complete first line: a process that is starting (or an empty file);
    // anything else that is not our magic is not ours.
    if (std::string_view("covkit-trace ").starts_with(text.substr(0, 13)) || text.starts_with("covkit-trace "))
      return MetaStatus::kEmpty;
    warn(0, "not covkit trace metadata (no `covkit-trace 1` first line); not read");
    return MetaStatus::kNotMeta;
  }
  std::string_view first = text.substr(0, first_end);
  if (!first.starts_with("covkit-trace ")) {
    warn(0, "not covkit trace metadata (no `covkit-trace 1` first line); not read");
    return MetaStatus::kNotMeta;
  }
  if (first.substr(13) != "1") {
    warn(0, fmt::format("metadata of format version {}; this covkit reads version 1; not read",
                        util::printable(first.substr(13))));
    return MetaStatus::kUnsupported;
  }

  size_t bad_lines = 0;
  auto bad = [&](size_t offset, std::string_view line, const char* what) {
    if (bad_lines++ < 10) warn(offset, fmt::format("{}: `{}` (ignored)", what, util::printable(line.substr(0, 120))));
  };
  size_t pos = first_end + 1;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) break;  // still being written: ignored
    const size_t offset = pos;
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty()) continue;
    std::string_view rest = line;
    std::string_view key = word(rest);
    if (key == "pid") {
      auto v = number<uint32_t>(rest);
      if (!v) bad(offset, line, "a pid that is not a number");
      else process.pid = *v;
    } else if (key == "ppid") {
      auto v = number<uint32_t>(rest);
      if (!v) bad(offset, line, "a ppid that is not a number");
      else process.ppid = *v;
    } else if (key == "exe") {
      process.exe = std::string(rest);
    } else if (key == "clock") {
      if (rest == "tsc") process.tsc = true;
      else if (rest == "mono") process.tsc = false;
      else bad(offset, line, "an unknown clock");
    } else if (key == "clock_reason") {
      process.clock_reason = util::printable(rest.substr(0, 40));
    } else if (key == "clocksource") {
      process.kernel_clocksource = util::printable(rest.substr(0, 40));
    } else if (key == "calib") {
      auto c = number<uint64_t>(word(rest));
      auto ns = number<uint64_t>(rest);
      if (!c || !ns) bad(offset, line, "a calibration pair that is not two numbers");
      else process.calib.emplace_back(*c, *ns);
    } else if (key == "module") {
      auto base = number<uint64_t>(word(rest), 16);
      auto seen = number<uint64_t>(word(rest));
      if (!base || !seen) {
        bad(offset, line, "a module line without a hex base and a time");
      } else {
        TraceModule m;
        m.base = *base;
        m.seen = *seen;
        // The main program's dlpi_name is "": the exe path stands for it
        // (filled in below, as `exe` may come later).
        m.path = rest == "\"\"" ? std::string() : std::string(rest);
        process.modules.push_back(std::move(m));
      }
    } else if (key == "segment") {
      auto base = number<uint64_t>(word(rest), 16);
      auto lo = number<uint64_t>(word(rest), 16);
      auto hi = number<uint64_t>(rest, 16);
      if (!base || !lo || !hi || *lo >= *hi) {
        bad(offset, line, "a segment line without a hex base and a range lo < hi");
        continue;
      }
      // It belongs to the latest module line with that base.
      auto it = std::find_if(process.modules.rbegin(), process.modules.rend(),
                             [&](const TraceModule& m) { return m.base == *base; });
      if (it == process.modules.rend()) bad(offset, line, "a segment of no module");
      else it->segments.push_back({*lo, *hi});
    } else if (key == "buildid") {
      auto base = number<uint64_t>(word(rest), 16);
      const bool hex = !rest.empty() && rest.size() % 2 == 0 &&
                       std::all_of(rest.begin(), rest.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
      if (!base || !hex) {
        bad(offset, line, "a buildid line without a hex base and a build-id in hex");
        continue;
      }
      // Of the latest module line with that base, as segments are.
      auto it = std::find_if(process.modules.rbegin(), process.modules.rend(),
                             [&](const TraceModule& m) { return m.base == *base; });
      if (it == process.modules.rend()) bad(offset, line, "a buildid of no module");
      else it->build_id = std::string(rest);
    } else if (key == "thread") {
      auto tid = number<uint32_t>(word(rest));
      if (!tid) bad(offset, line, "a thread line without a tid");
      else thread_names.emplace_back(*tid, std::string(rest));
    } else if (key == "fork") {
      auto when = number<uint64_t>(word(rest));
      auto child = number<uint32_t>(rest);
      if (!when || !child) bad(offset, line, "a fork line without a time and a pid");
      else process.forks.emplace_back(*when, *child);
    } else if (key == "plt") {
      auto stub = number<uint64_t>(word(rest), 16);
      auto target = number<uint64_t>(word(rest), 16);
      // A name is one word of printable characters (the runtime writes no other).
      const bool name_ok = !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) { return c > ' ' && c <= '~'; });
      if (!stub || !target || !name_ok) bad(offset, line, "a plt line without a hex stub, a hex target and a name");
      else process.library_calls[*stub] = {*target, std::string(rest)};
    } else if (key == "end") {
      auto when = number<uint64_t>(rest);
      if (!when) bad(offset, line, "an end line without a time");
      else process.end = *when;
    }
    // Unknown keys are ignored: later runtimes may add some.
  }
  if (bad_lines > 10) warnings.push_back(fmt::format("{}: {} more lines ignored", util::printable(file), bad_lines - 10));
  for (TraceModule& m : process.modules)
    if (m.path.empty()) m.path = process.exe;
  return MetaStatus::kOk;
}

}  // namespace covkit::format
