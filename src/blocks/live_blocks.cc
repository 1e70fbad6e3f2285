#include "blocks/live_blocks.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "clang/elf_sections.h"
#include "live/module_file.h"
#include "live/proc_files.h"
#include "live/process_maps.h"
#include "live/process_modules.h"
#include "live/process_stop.h"
#include "live/remote_memory.h"
#include "util/printable.h"

namespace covkit::blocks {

namespace {

// 2^28 blocks in one module is far beyond any program; a larger section is
// a damaged or hostile one.
constexpr uint64_t kMaxInlineCounters = uint64_t(1) << 28;
constexpr uint64_t kPcEntry = 16;

live::SnapshotError inline_gone() {
  Error e("the process exited while its counters were read");
  e.errno_value = ESRCH;
  return {std::move(e), live::SnapshotFailure::kExited};
}

live::SnapshotError inline_failure(const Error& e) {
  return {e, live::process_gone(e) ? live::SnapshotFailure::kExited : live::SnapshotFailure::kFailed};
}

// The module's inline counter sections, nullopt when it has none; an error
// when they cannot be used.
Expected<std::optional<InlineSections>> module_inline_sections(pid_t pid, const live::Module& m) {
  auto file = live::module_file(pid, m);
  if (!file) return std::optional<InlineSections>();
  auto elf = clang::read_elf_sections(file->bytes());
  if (!elf || elf->type == 1) return std::optional<InlineSections>();
  auto counters = elf->named("__sancov_cntrs");
  auto flags = elf->named("__sancov_bools");
  if (counters.empty() && flags.empty()) return std::optional<InlineSections>();
  const std::string where = util::printable(m.path);
  if (!counters.empty() && !flags.empty())
    return Error(fmt::format("{}: has both inline 8-bit counters and inline bool flags: which pc table entry is "
                             "whose is unknown",
                             where));
  auto pcs = elf->named("__sancov_pcs");
  if (pcs.empty())
    return Error(fmt::format("{}: inline counters without a pc table (build with -fsanitize-coverage=...,pc-table): "
                             "their blocks are unknown",
                             where));
  const auto& c = counters.empty() ? flags : counters;
  if (c.size() > 1 || pcs.size() > 1 || c[0]->type == clang::kShtNobits || pcs[0]->type == clang::kShtNobits)
    return Error(fmt::format("{}: its inline counter sections are not one section each with contents", where));
  InlineSections s;
  s.flags = counters.empty();
  s.counters = c[0]->address + m.load_bias;
  s.counters_size = c[0]->bytes.size();
  s.pcs = pcs[0]->address + m.load_bias;
  s.pcs_size = pcs[0]->bytes.size();
  if (auto r = check_inline_sections(s, m.bounds); !r) return Error(fmt::format("{}: {}", where, r.error().message));
  return std::optional<InlineSections>(s);
}

struct FoundInline {
  live::Module module;
  InlineSections sections;
};

Expected<std::vector<FoundInline>, live::SnapshotError> discover_inline(pid_t at, const live::RemoteMemory& memory) {
  auto maps = live::read_maps(at);
  if (!maps) return inline_failure(maps.error());
  if (maps->empty()) return inline_gone();
  std::vector<FoundInline> found;
  for (const live::Module& m : live::find_modules(*maps, memory)) {
    auto s = module_inline_sections(at, m);
    if (!s) return inline_failure(s.error());
    if (*s) found.push_back({m, **s});
  }
  if (found.empty())
    return live::SnapshotError(Error("no inline counters: no module of the process was built with "
                                     "-fsanitize-coverage=inline-8bit-counters or inline-bool-flag and pc-table"),
                               live::SnapshotFailure::kNoCoverage);
  return found;
}

}  // namespace

Expected<void> check_inline_sections(const InlineSections& s, const live::ModuleBounds& bounds) {
  if (s.counters_size == 0 || s.counters_size > kMaxInlineCounters)
    return Error(fmt::format("{} inline counters: not a number a module holds", s.counters_size));
  if (s.pcs_size != s.counters_size * kPcEntry)
    return Error(fmt::format("its pc table has {} bytes for {} counters (16 each)", s.pcs_size, s.counters_size));
  if (!bounds.holds(s.counters, s.counters_size, true))
    return Error("its inline counters lie outside its writable memory");
  if (!bounds.holds(s.pcs, s.pcs_size)) return Error("its pc table lies outside its memory");
  return {};
}

Expected<BlockModule> read_inline_module(const std::string& path, uint64_t bias, const InlineSections& s,
                                         const live::ModuleBounds& bounds, const live::MemorySource& memory) {
  if (auto r = check_inline_sections(s, bounds); !r) return r.error();
  std::vector<uint8_t> counts(size_t(s.counters_size));
  std::vector<uint64_t> table(size_t(s.pcs_size / 8));
  if (auto r = memory.read(s.counters, counts.data(), counts.size()); !r) return r.error();
  if (auto r = memory.read(s.pcs, table.data(), table.size() * 8); !r) return r.error();
  BlockModule m;
  m.path = path;
  m.bias = bias;
  m.blocks.reserve(counts.size());
  for (size_t i = 0; i < counts.size(); ++i) {
    const uint64_t pc = table[2 * i];
    if (!bounds.holds_code(pc))
      return Error(fmt::format("its pc table's entry {} ({:#x}) is not in its code", i, pc));
    BlockEntry e;
    e.address = pc - bias;
    e.kind = s.flags ? BlockKind::kFlag : BlockKind::kWrapped;
    // A flag is "ran" whatever its byte holds (the compiler stores 1).
    e.count = s.flags ? uint64_t(counts[i] != 0) : counts[i];
    m.blocks.push_back(e);
  }
  return m;
}

namespace {

// Every module's counters as one write each, from `bytes` (one per module).
Expected<void> write_counters(const live::RemoteMemory& memory, const std::vector<InlineRead>& modules,
                              std::vector<std::vector<uint8_t>>& bytes) {
  std::vector<live::RemotePiece> pieces;
  for (size_t i = 0; i < modules.size(); ++i)
    pieces.push_back({modules[i].sections.counters, bytes[i].data(), bytes[i].size()});
  return memory.write_pieces(pieces);
}

bool same_sections(const InlineSections& a, const InlineSections& b) {
  return a.counters == b.counters && a.counters_size == b.counters_size && a.flags == b.flags && a.pcs == b.pcs &&
         a.pcs_size == b.pcs_size;
}

}  // namespace

Expected<LiveBlocks, live::SnapshotError> capture_live_blocks(pid_t pid, bool stop, bool reset) {
  if (reset && !stop)
    return live::SnapshotError(Error("a reset needs the process stopped (what runs between the read and the reset "
                                     "would be lost)"),
                               live::SnapshotFailure::kFailed);
  const std::optional<pid_t> at = live::live_thread(pid);
  if (!at) return inline_gone();
  const live::RemoteMemory memory(*at);
  // Found while it runs (a refusal stops nothing), then again in the stop.
  if (auto first = discover_inline(*at, memory); !first) return first.error();
  std::optional<live::ProcessStop> held;
  LiveBlocks out;
  out.file.pid = pid;
  if (stop) {
    auto s = live::ProcessStop::stop(pid);
    if (!s) return inline_failure(s.error());
    if (s->executed())
      return live::SnapshotError(Error("the process executed another program while its counters were read"),
                                 live::SnapshotFailure::kNoCoverage);
    held.emplace(std::move(*s));
    out.stopped = true;
    out.threads = held->threads();
  }
  auto found = discover_inline(*at, memory);
  if (!found) return found.error();
  for (const FoundInline& f : *found) {
    auto m = read_inline_module(f.module.path, f.module.load_bias, f.sections, f.module.bounds, memory);
    if (!m) {
      Error e(fmt::format("{}: {}", util::printable(f.module.path), m.error().message));
      e.errno_value = m.error().errno_value;
      return inline_failure(e);
    }
    if (reset) {
      // The bytes as just read, kept for an undo: each block's count is its
      // byte (a flag's is 0 or 1, which is what the compiler stores).
      InlineRead r{f.module.path, f.module.load_bias, f.sections, {}};
      r.bytes.reserve(m->blocks.size());
      for (const BlockEntry& e : m->blocks) r.bytes.push_back(uint8_t(e.count));
      out.reset.push_back(std::move(r));
    }
    out.file.modules.push_back(std::move(*m));
  }
  if (reset) {
    // Zeros written in the same stop as the read.
    std::vector<std::vector<uint8_t>> zeros;
    for (const InlineRead& r : out.reset) zeros.emplace_back(r.bytes.size(), uint8_t(0));
    if (auto ok = write_counters(memory, out.reset, zeros); !ok) return inline_failure(ok.error());
  }
  if (held) out.pause = held->resume();
  return out;
}

Expected<void, live::SnapshotError> undo_live_reset(pid_t pid, const LiveBlocks& taken) {
  const std::optional<pid_t> at = live::live_thread(pid);
  if (!at) return inline_gone();
  const live::RemoteMemory memory(*at);
  auto s = live::ProcessStop::stop(pid);
  if (!s) return inline_failure(s.error());
  if (s->executed())
    return live::SnapshotError(Error("the process executed another program since its counters were read"),
                               live::SnapshotFailure::kFailed);
  live::ProcessStop held(std::move(*s));
  auto found = discover_inline(*at, memory);
  if (!found) return found.error();
  std::vector<std::vector<uint8_t>> now;
  for (const InlineRead& r : taken.reset) {
    bool there = false;
    for (const FoundInline& f : *found)
      there = there || (f.module.path == r.path && f.module.load_bias == r.bias && same_sections(f.sections, r.sections));
    if (!there)
      return live::SnapshotError(Error(fmt::format("{}: its counters are no longer where they were read",
                                                   util::printable(r.path))),
                                 live::SnapshotFailure::kFailed);
    std::vector<uint8_t> bytes(r.bytes.size());
    if (auto ok = memory.read(r.sections.counters, bytes.data(), bytes.size()); !ok) return inline_failure(ok.error());
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = r.sections.flags ? uint8_t(bytes[i] ? bytes[i] : r.bytes[i]) : uint8_t(bytes[i] + r.bytes[i]);
    now.push_back(std::move(bytes));
  }
  if (auto ok = write_counters(memory, taken.reset, now); !ok) return inline_failure(ok.error());
  held.resume();
  return {};
}

}  // namespace covkit::blocks
