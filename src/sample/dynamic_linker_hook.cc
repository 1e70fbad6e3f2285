#include "sample/dynamic_linker_hook.h"

#include <elf.h>

#include <cstring>

#include <fmt/format.h>

#include "live/proc_files.h"
#include "live/remote_memory.h"
#include "sample/breakpoint_plan.h"
#include "sample/elf_module_file.h"

namespace covkit::sample {

std::optional<uint64_t> auxv_value(std::string_view auxv, uint64_t type) {
  for (size_t at = 0; at + 16 <= auxv.size(); at += 16) {
    uint64_t t, v;
    std::memcpy(&t, auxv.data() + at, 8);
    std::memcpy(&v, auxv.data() + at + 8, 8);
    if (t == AT_NULL) break;
    if (t == type) return v;
  }
  return std::nullopt;
}

bool is_plain_return(std::span<const uint8_t> code) {
  static constexpr uint8_t endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
  if (!code.empty() && code[0] == 0xc3) return true;
  return code.size() >= 5 && std::memcmp(code.data(), endbr64, 4) == 0 && code[4] == 0xc3;
}

Expected<std::optional<uint64_t>> find_r_brk(pid_t pid, const std::vector<live::Mapping>& maps) {
  auto auxv = live::read_proc_file(fmt::format("/proc/{}/auxv", pid));
  if (!auxv) return Error(fmt::format("process {}: cannot read its auxiliary vector: {}", pid, auxv.error().message));
  std::optional<uint64_t> base = auxv_value(*auxv, AT_BASE);
  if (!base || *base == 0) return std::optional<uint64_t>();  // no interpreter
  const live::Mapping* base_mapping = nullptr;
  for (const live::Mapping& m : maps)
    if (m.start == *base && m.offset == 0) base_mapping = &m;
  if (!base_mapping || base_mapping->path.empty() || base_mapping->path[0] != '/')
    return Error(fmt::format("process {}: no file mapped at the dynamic linker's base 0x{:x}", pid, *base));
  const std::string linker = base_mapping->path;
  // The file the process maps, never what its path names now (the
  // process's owner may point it at a binary only root may read).
  auto opened = open_mapped_module(pid, *base_mapping);
  if (!opened) return opened.error();
  auto hook = symbol_address(opened->file(), "_dl_debug_state");
  if (!hook) return named_for(hook.error(), *opened);
  if (!*hook) return Error(fmt::format("{}: no symbol _dl_debug_state", linker));
  auto file = read_elf_module(*opened);
  if (!file) return file.error();
  std::vector<format::SampleMapping> mapped;
  for (const live::Mapping& m : maps)
    if (m.path == linker && m.executable) mapped.push_back({m.start, m.end, m.offset, m.path, ""});
  std::optional<uint64_t> at = file_to_runtime(**hook, file->loads, mapped);
  if (!at) return Error(fmt::format("{}: _dl_debug_state is not mapped in process {}", linker, pid));
  uint8_t code[5] = {};
  if (auto r = live::RemoteMemory(pid).read(*at, code, sizeof code); !r)
    return Error(fmt::format("process {}: {}", pid, r.error().message));
  if (!is_plain_return(code))
    return Error(fmt::format("{}: _dl_debug_state is not a bare return; libraries are not followed", linker));
  return at;
}

}  // namespace covkit::sample
