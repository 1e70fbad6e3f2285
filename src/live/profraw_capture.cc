#include "live/profraw_capture.h"

#include <elf.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "clang/elf_sections.h"
#include "live/elf_image.h"
#include "live/module_file.h"
#include "live/process_maps.h"
#include "live/process_modules.h"
#include "live/process_stop.h"
#include "live/proc_files.h"
#include "live/remote_memory.h"
#include "util/printable.h"

namespace covkit::live {

namespace {

constexpr uint64_t kMaxNotes = 64 * 1024;

SnapshotError clang_gone() {
  Error e("the process exited during the dump; nothing was written");
  e.errno_value = ESRCH;
  return {std::move(e), SnapshotFailure::kExited};
}

// The GNU build ids of the module's PT_NOTE segments, read from its memory
// as its runtime reads them (through its own ELF header).
std::vector<std::vector<uint8_t>> build_ids(const Module& m, const MemorySource& memory) {
  std::vector<std::vector<uint8_t>> ids;
  Elf64_Ehdr eh{};
  if (!memory.read(m.start, &eh, sizeof eh) || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 512) return ids;
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  if (ph.empty() || !m.bounds.holds(m.start + eh.e_phoff, ph.size() * sizeof(Elf64_Phdr)) ||
      !memory.read(m.start + eh.e_phoff, ph.data(), ph.size() * sizeof(Elf64_Phdr)))
    return ids;
  for (const Elf64_Phdr& p : ph) {
    if (p.p_type != PT_NOTE || p.p_filesz > kMaxNotes) continue;
    const uint64_t at = p.p_vaddr + m.load_bias;
    std::vector<uint8_t> notes(p.p_filesz);
    if (!m.bounds.holds(at, notes.size()) || !memory.read(at, notes.data(), notes.size())) continue;
    auto round4 = [](uint64_t n) { return (n + 3) & ~uint64_t(3); };
    for (uint64_t off = 0; off + sizeof(Elf64_Nhdr) <= notes.size();) {
      Elf64_Nhdr nh;
      std::memcpy(&nh, notes.data() + off, sizeof nh);
      const uint64_t name_at = off + sizeof nh, desc_at = name_at + round4(nh.n_namesz);
      const uint64_t next = desc_at + round4(nh.n_descsz);
      if (desc_at + nh.n_descsz > notes.size() || next < off) break;
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && std::memcmp(notes.data() + name_at, "GNU", 4) == 0)
        ids.emplace_back(notes.begin() + long(desc_at), notes.begin() + long(desc_at + nh.n_descsz));
      off = next;
    }
  }
  return ids;
}

std::optional<uint64_t> version_symbol(std::span<const uint8_t> file) {
  for (bool dynamic : {false, true})
    if (auto syms = find_symbols(file, dynamic, {"__llvm_profile_raw_version"}); syms)
      if (auto v = symbol_value(*syms, "__llvm_profile_raw_version")) return v;
  return std::nullopt;
}

// The module's profile, or nullopt when it has none; an error when it has
// one that cannot be used.
Expected<std::optional<ClangModule>> module_profile(OpenedModule opened, const Module& m,
                                                     const std::vector<Mapping>& maps, const MemorySource& memory) {
  auto file = std::make_unique<ModuleFile>(opened.fd.get(), opened.size, opened.path);
  auto elf = clang::read_elf_sections(file->bytes());
  if (!elf || elf->type == 1) return std::optional<ClangModule>();
  auto counters = elf->named("__llvm_prf_cnts");
  if (counters.empty()) return std::optional<ClangModule>();
  const std::string where = util::printable(m.path);
  auto section = [&](const char* name, uint64_t& at, uint64_t& size) -> Expected<void> {
    auto found = elf->named(name);
    if (found.empty()) return {};
    if (found.size() > 1 || found[0]->type == clang::kShtNobits)
      return Error(fmt::format("{}: section {} is not one section with contents", where, name));
    at = found[0]->address + m.load_bias;
    size = found[0]->bytes.size();
    return {};
  };
  ClangModule c;
  c.path = m.path;
  c.file = std::make_shared<const util::UniqueFd>(std::move(opened.fd));
  ProfileSections& s = c.sections;
  for (auto [name, at, size] : {std::tuple{"__llvm_prf_data", &s.data, &s.data_size},
                                std::tuple{"__llvm_prf_cnts", &s.counters, &s.counters_size},
                                std::tuple{"__llvm_prf_names", &s.names, &s.names_size}})
    if (auto r = section(name, *at, *size); !r) return r.error();
  if (!elf->named("__llvm_prf_bits").empty())
    return Error(fmt::format("{}: has a bitmap section (__llvm_prf_bits, clang 17 or later): covkit writes raw "
                             "profile versions 7 and 8 (clang 13 to 16)",
                             where));
  auto version_at = version_symbol(file->bytes());
  if (!version_at)
    return Error(fmt::format("{}: built with -fprofile-instr-generate, but neither its .symtab nor its .dynsym "
                             "names __llvm_profile_raw_version (stripped), so its raw profile version is unknown",
                             where));
  auto version = memory.u64(*version_at + m.load_bias);
  if (!version) {
    Error e(fmt::format("{}: __llvm_profile_raw_version cannot be read: {}", where, version.error().message));
    e.errno_value = version.error().errno_value;
    return e;
  }
  s.version_word = *version;
  s.build_ids = build_ids(m, memory);
  if (auto r = check_profile_sections(s, m.bounds); !r) return Error(fmt::format("{}: {}", where, r.error().message));
  // Continuous mode (LLVM_PROFILE_FILE with %c) maps the counters onto the
  // file itself: that file is always current.
  for (const Mapping& map : maps)
    if (map.shared && map.start < s.counters + s.counters_size && s.counters < map.end)
      return Error(fmt::format("{}: its counters are mapped onto {} (continuous mode, %c): that file is always "
                               "current, there is nothing to dump",
                               where, util::printable(map.path)));
  return std::optional<ClangModule>(std::move(c));
}

std::string unverified_module(pid_t at, const Module& m) {
  return fmt::format("{}: not read: the file at this path is not the one the process maps (rebuilt or replaced "
                     "since it started) and /proc/{}/map_files cannot reach the mapped one (root may): if "
                     "it was built with -fprofile-instr-generate, its counters are left out",
                     util::printable(m.path), at);
}

struct DiscoveredClang {
  std::vector<ClangModule> modules;
  std::vector<std::string> unverified;
};

Expected<DiscoveredClang, SnapshotError> discover_clang(pid_t at, const RemoteMemory& memory) {
  auto maps = read_maps(at);
  if (!maps) return SnapshotError(maps.error(), process_gone(maps.error()) ? SnapshotFailure::kExited
                                                                           : SnapshotFailure::kFailed);
  if (maps->empty()) return clang_gone();
  DiscoveredClang found;
  for (const Module& m : find_modules(*maps, memory)) {
    // Only the file of the mapping's device and inode is read, now and by
    // whoever reads the module later (through `file`, never its path).
    auto opened = open_module_file(at, m);
    if (!opened) {
      found.unverified.push_back(unverified_module(at, m));
      continue;
    }
    auto p = module_profile(std::move(*opened), m, *maps, memory);
    if (!p) return SnapshotError(p.error(), process_gone(p.error()) ? SnapshotFailure::kExited
                                                                    : SnapshotFailure::kFailed);
    if (*p) found.modules.push_back(std::move(**p));
  }
  if (found.modules.empty()) {
    std::string why = "no coverage data: no module of the process was built with --coverage or "
                      "-fprofile-instr-generate";
    if (!found.unverified.empty()) why += "; " + found.unverified.front();
    return SnapshotError(Error(why), SnapshotFailure::kNoCoverage);
  }
  return found;
}

}  // namespace

Expected<bool, SnapshotError> has_clang_profile(pid_t pid) {
  const std::optional<pid_t> at = live_thread(pid);
  if (!at) return clang_gone();
  auto maps = read_maps(*at);
  if (!maps) return SnapshotError(maps.error());
  const RemoteMemory memory(*at);
  // A module with the sections is clang's to dump, damaged or not: its
  // errors are said by the clang path.
  for (const Module& m : find_modules(*maps, memory))
    if (auto file = module_file(*at, m))
      if (auto elf = clang::read_elf_sections(file->bytes()); elf && elf->type != 1 &&
                                                             !elf->named("__llvm_prf_cnts").empty())
        return true;
  return false;
}

Expected<ClangCapture, SnapshotError> capture_clang(pid_t pid, const ClangCaptureOptions& options) {
  const std::optional<pid_t> at = live_thread(pid);
  if (!at) return clang_gone();
  const RemoteMemory memory(*at);
  // Found while it runs (a refusal or no profile stops nothing), then again
  // in the stop, where nothing moves: that is what is read.
  if (auto first = discover_clang(*at, memory); !first) return first.error();
  std::optional<ProcessStop> stop;
  ClangCapture out;
  out.pid = pid;
  if (options.stop) {
    auto s = ProcessStop::stop(pid);
    if (!s) return SnapshotError(s.error(), process_gone(s.error()) ? SnapshotFailure::kExited
                                                                    : SnapshotFailure::kFailed);
    if (s->executed())
      return SnapshotError(Error("the process executed another program during the dump; nothing was written"),
                           SnapshotFailure::kNoCoverage);
    stop.emplace(std::move(*s));
    out.stopped = true;
    out.threads = stop->threads();
  }
  auto found = discover_clang(*at, memory);
  if (!found) return found.error();
  out.modules = std::move(found->modules);
  out.unverified = std::move(found->unverified);
  // Read (and validated) for a reset alone too: a record whose counters
  // lie elsewhere is refused before anything is written.
  for (ClangModule& m : out.modules) {
      auto image = build_profraw(m.sections, memory);
      if (!image) {
        const bool gone = process_gone(image.error());
        return SnapshotError(Error(fmt::format("{}: {}", util::printable(m.path), image.error().message)),
                             gone ? SnapshotFailure::kExited : SnapshotFailure::kFailed);
      }
      m.image = std::move(*image);
    }
  if (options.reset) {
    if (options.before_reset)
      if (auto r = options.before_reset(out.modules); !r) return SnapshotError(r.error());
    // All modules in one write; a byte-coverage counter's "not run" is 0xff.
    std::vector<std::vector<uint8_t>> fills;
    std::vector<RemotePiece> pieces;
    for (const ClangModule& m : out.modules) {
      const bool bytes = (m.sections.version_word >> 60) & 1;
      fills.emplace_back(m.sections.counters_size, bytes ? 0xff : 0);
    }
    for (size_t i = 0; i < out.modules.size(); ++i)
      if (!fills[i].empty()) pieces.push_back({out.modules[i].sections.counters, fills[i].data(), fills[i].size()});
    if (auto r = memory.write_pieces(pieces); !r)
      return SnapshotError(Error(fmt::format("the counters could not be reset: {}", r.error().message)),
                           process_gone(r.error()) ? SnapshotFailure::kExited : SnapshotFailure::kFailed);
  }
  if (stop) out.pause = stop->resume();
  return out;
}

}  // namespace covkit::live
