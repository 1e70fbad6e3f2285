#include "format/input_kind.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string_view>

#include "format/trace_file_names.h"
#include "runtime/sample/sample_contract.h"
#include "runtime/trace/trace_contract.h"
#include "util/file_io.h"
#include "util/printable.h"

namespace covkit::format {

namespace {

namespace fs = std::filesystem;

constexpr size_t kEntries = 4096;  // directory entries looked at, at most
constexpr size_t kHead = 4096;     // bytes of a file looked at

InputDescription kind(InputKind k, std::string what, std::string reader) { return {k, std::move(what), std::move(reader)}; }

// The first bytes of a regular file (never a FIFO or a device: they may
// block or never end).
std::string head_of(const std::string& path) {
  auto head = util::read_file_head(path, kHead);
  return head ? std::move(*head) : std::string();
}

bool starts_with_word(std::string_view head, uint32_t magic) {
  if (head.size() < 4) return false;
  uint32_t le = 0, be = 0;
  for (int i = 0; i < 4; ++i) {
    le |= uint32_t(uint8_t(head[i])) << (8 * i);
    be = be << 8 | uint8_t(head[i]);
  }
  return le == magic || be == magic;
}

// The tool named on the first line of a recording's marker file.
std::string marker_tool(const std::string& dir) {
  std::string head = head_of(dir + "/" + CKT_RECORD_MARKER);
  return head.substr(0, head.find('\n'));
}

InputDescription describe_directory(const std::string& path) {
  const std::string tool = marker_tool(path);
  if (tool == "covkit trace record")
    return kind(InputKind::trace_recording, "a covkit trace recording (covkit trace record)", "covkit trace report");
  if (tool == "covkit sample record")
    return kind(InputKind::sample_recording, "a covkit sample recording (covkit sample record)", "covkit sample report");
  std::error_code ec;
  if (fs::exists(path + "/.covkit-html", ec))
    return kind(InputKind::html_site, "an HTML site covkit report wrote (--html)", "");
  if (fs::exists(path + "/" + CKS_RECORDING_JSON, ec))
    return kind(InputKind::sample_recording, "a covkit sample recording (covkit sample record)", "covkit sample report");
  // By the names in it, and below it (a bounded walk: coverage files may
  // sit deep in a build tree).
  size_t seen = 0;
  bool notes = false, data = false, trace = false;
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end && seen < kEntries; it.increment(ec), ++seen) {
    const std::string name = it->path().filename().string();
    if (name.ends_with(".gcno")) notes = true;
    else if (name.ends_with(".gcda")) data = true;
    else if (it.depth() == 0 && (parse_meta_name(name) || parse_stream_name(name))) trace = true;
    else if (it.depth() == 0 && name.ends_with(CKS_FILE_SUFFIX))
      return kind(InputKind::sample_recording, "a covkit sample recording (covkit sample record)", "covkit sample report");
    if (notes) break;
  }
  if (trace) return kind(InputKind::trace_recording, "a covkit trace recording (covkit trace record)", "covkit trace report");
  if (notes) return kind(InputKind::build_tree, "a build tree with .gcno files", "covkit report");
  if (data) return kind(InputKind::data_tree, "a tree of .gcda files", "covkit report");
  return kind(InputKind::other_directory, "a directory", "");
}

InputDescription describe_file(const std::string& path) {
  const std::string head = head_of(path);
  std::string_view h = head;
  if (starts_with_word(h, 0x67636e6f)) return kind(InputKind::notes_file, "a .gcno notes file", "covkit report");
  if (starts_with_word(h, 0x67636461)) return kind(InputKind::data_file, "a .gcda data file", "covkit report");
  if (h.starts_with(CKT_MAGIC) || h.starts_with(CKT_MAGIC_V1))
    return kind(InputKind::trace_stream, "a thread's stream of a covkit trace recording", "covkit trace dump --raw");
  if (h.starts_with("PERFILE2")) return kind(InputKind::perf_data, "a perf.data file (perf record)", "covkit sample report");
  if (h.starts_with("gmon")) return kind(InputKind::gmon_out, "a gmon.out profile (-pg)", "covkit gprof");
  if (h.starts_with("\x7f" "ELF")) return kind(InputKind::elf, "an ELF program or library", "");
  if (h.find("\"covkit-coverage\"") != std::string_view::npos)
    return kind(InputKind::covkit_json, "a covkit JSON coverage file (covkit report --json)", "covkit report -a");
  if (h.starts_with("TN:") || h.starts_with("SF:") || h.find("\nSF:") != std::string_view::npos)
    return kind(InputKind::lcov_tracefile, "an lcov tracefile", "covkit report -a");
  return kind(InputKind::other_file, "a file", "");
}

// Kinds one reader takes alike: covkit report's PATHs, covkit sample's
// recordings.
int family(InputKind k) {
  switch (k) {
    case InputKind::build_tree:
    case InputKind::data_tree:
    case InputKind::notes_file:
    case InputKind::data_file: return 1;
    case InputKind::sample_recording:
    case InputKind::perf_data: return 2;
    default: return 100 + int(k);
  }
}

}  // namespace

InputDescription describe_input(const std::string& path) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return kind(InputKind::missing, "nothing (no such file or directory)", "");
  return fs::is_directory(st) ? describe_directory(path) : describe_file(path);
}

std::string wrong_kind_hint(const std::string& path, InputKind wanted) {
  const InputDescription d = describe_input(path);
  if (family(d.kind) == family(wanted) || d.kind == InputKind::missing || d.kind == InputKind::other_directory ||
      d.kind == InputKind::other_file)
    return {};
  if (d.reader.empty()) return fmt::format(" (it is {})", d.what);
  return fmt::format(" (it is {}: {} {})", d.what, d.reader, util::printable(path));
}

}  // namespace covkit::format
