#include "trace/patch_switch.h"

#include <sys/ptrace.h>
#include <sys/user.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "format/elf_symbols.h"
#include "live/module_file.h"
#include "live/process_maps.h"
#include "live/process_modules.h"
#include "live/process_stop.h"
#include "live/remote_memory.h"
#include "runtime/trace/trace_contract.h"
#include "util/printable.h"

namespace covkit::trace {

namespace {

constexpr uint64_t kMaxEntries = uint64_t(1) << 24;  // far above any program's functions

// Where the runtime's table is: libcovkit-trace.so, else a module that
// linked the runtime in (--static). nullopt when no module defines it.
Expected<std::optional<uint64_t>> table_address(pid_t pid, const live::RemoteMemory& memory) {
  auto maps = live::read_maps(pid);
  if (!maps) return maps.error();
  std::vector<live::Module> modules = live::find_modules(*maps, memory);
  std::stable_partition(modules.begin(), modules.end(), [](const live::Module& m) {
    return m.path.find("/libcovkit-trace") != std::string::npos;
  });
  // Each module read from the file the process maps (live/module_file.h),
  // never by its path, which the process's owner may point at a binary only
  // root may read: its symbol would decide where covkit writes.
  std::string unopened;  // the first module that could not be opened so
  for (const live::Module& m : modules) {
    if (m.path.empty() || m.path[0] != '/') continue;
    auto opened = live::open_module_file(pid, m);
    if (!opened) {
      if (unopened.empty()) unopened = m.path;
      continue;
    }
    auto value = format::symbol_address(fmt::format("/proc/self/fd/{}", opened->fd.get()), CKT_PATCH_TABLE_SYMBOL);
    if (value && *value) return std::optional<uint64_t>(m.load_bias + **value);
  }
  if (!unopened.empty())
    return Error(fmt::format("{}: no file of the device and inode process {} maps could be opened, so its patch table "
                             "cannot be looked for there; nothing was patched",
                             util::printable(unopened), pid));
  return std::optional<uint64_t>{};
}

Expected<std::vector<ckt_patch_site>> read_sites(pid_t pid, const live::RemoteMemory& memory, uint64_t at) {
  ckt_patch_table table{};
  if (auto r = memory.read(at, &table, sizeof table); !r) return r.error();
  if (table.magic != CKT_PATCH_TABLE_MAGIC)
    return Error(fmt::format("process {}: its patch table is not one this covkit knows", pid));
  if (!table.ready) return Error(fmt::format("process {}: its runtime has not prepared its entries yet", pid));
  if (table.count > kMaxEntries)
    return Error(fmt::format("process {}: its patch table claims {} entries", pid, table.count));
  std::vector<ckt_patch_site> sites(table.count);
  if (!sites.empty())
    if (auto r = memory.read(table.sites, sites.data(), sites.size() * sizeof sites[0]); !r) return r.error();
  std::sort(sites.begin(), sites.end(), [](const ckt_patch_site& a, const ckt_patch_site& b) { return a.at < b.at; });
  return sites;
}

// Moves each stopped thread whose next instruction is inside an entry's
// NOPs (not at its first byte) to the end of them: NOPs do nothing, so the
// thread goes on as it would have.
Expected<size_t> move_threads_out(const live::ProcessStop& stop, const std::vector<ckt_patch_site>& sites) {
  size_t moved = 0;
  for (pid_t tid : stop.tids()) {
    user_regs_struct regs{};
    if (::ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0)
      return Error(fmt::format("thread {}: cannot read its registers: {}", tid, std::strerror(errno)));
    auto after = std::upper_bound(sites.begin(), sites.end(), regs.rip,
                                  [](uint64_t rip, const ckt_patch_site& s) { return rip < s.at; });
    if (after == sites.begin()) continue;
    const ckt_patch_site& s = *std::prev(after);
    if (regs.rip <= s.at || regs.rip >= s.at + sizeof s.on) continue;
    regs.rip = s.at + sizeof s.on;
    if (::ptrace(PTRACE_SETREGS, tid, nullptr, &regs) != 0)
      return Error(fmt::format("thread {}: cannot move it past a patchable entry: {}", tid, std::strerror(errno)));
    ++moved;
  }
  return moved;
}

}  // namespace

Expected<std::optional<PatchSwitchResult>> switch_patched_entries(pid_t pid, bool on) {
  live::RemoteMemory memory(pid);
  auto at = table_address(pid, memory);
  if (!at) return at.error();
  if (!*at) return std::optional<PatchSwitchResult>{};
  // Stopped first: a library loaded between reading the table and writing
  // would keep the state its entries were given at its load.
  auto stop = live::ProcessStop::stop(pid);
  if (!stop) return stop.error();
  // The table was found in the program the process ran before: its
  // address means nothing in the new one.
  if (stop->executed()) return Error("the process executed another program meanwhile; nothing was patched");
  auto sites = read_sites(pid, memory, **at);
  if (!sites) return sites.error();
  PatchSwitchResult result;
  result.entries = sites->size();
  result.threads = stop->threads();
  unsigned long long state = on ? 1 : 0;  // libraries loaded from now on follow it
  const live::RemotePiece state_piece{**at + offsetof(ckt_patch_table, on), &state, sizeof state};
  if (sites->empty()) {  // none yet (only libraries loaded later may have some)
    if (auto r = memory.write_pieces({&state_piece, 1}); !r) return r.error();
    result.pause = stop->resume();
    return std::optional<PatchSwitchResult>(result);
  }

  auto moved = move_threads_out(*stop, *sites);
  if (!moved) return moved.error();
  result.moved = *moved;

  std::vector<std::array<unsigned char, 5>> now(sites->size());
  std::vector<live::RemotePiece> pieces;
  pieces.reserve(sites->size());
  for (size_t i = 0; i < sites->size(); ++i) pieces.push_back({(*sites)[i].at, now[i].data(), now[i].size()});
  if (auto r = memory.read_pieces(pieces); !r) return r.error();
  pieces.clear();
  for (size_t i = 0; i < sites->size(); ++i) {
    const ckt_patch_site& s = (*sites)[i];
    const unsigned char* want = on ? s.on : s.off;
    const unsigned char* other = on ? s.off : s.on;
    if (std::memcmp(now[i].data(), want, 5) == 0) continue;
    if (std::memcmp(now[i].data(), other, 5) != 0) {
      ++result.foreign;
      continue;
    }
    pieces.push_back({s.at, const_cast<unsigned char*>(want), 5});
  }
  pieces.push_back(state_piece);
  if (auto r = memory.write_pieces(pieces); !r) return r.error();
  result.changed = pieces.size() - 1;
  result.pause = stop->resume();
  return std::optional<PatchSwitchResult>(result);
}

}  // namespace covkit::trace
