#include "live/process_modules.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "live/elf_image.h"

namespace covkit::live {

namespace {

constexpr uint64_t kPage = 4096;

// The parts of [start, end) that mappings cover, with their protections.
void add_mapped(const std::vector<Mapping>& maps, uint64_t start, uint64_t end, std::vector<AddressRange>& out) {
  for (const Mapping& m : maps) {
    uint64_t s = std::max(start, m.start), e = std::min(end, m.end);
    if (s >= e || !m.readable) continue;
    out.push_back({s, e, m.writable, m.executable});
  }
}

std::optional<Module> module_at(const std::vector<Mapping>& maps, const Mapping& first, const MemorySource& memory) {
  // The ELF header and program headers lie at the start of the file, which
  // the first mapping holds.
  std::vector<uint8_t> head(kPage);
  size_t have = size_t(std::min<uint64_t>(kPage, first.end - first.start));
  head.resize(have);
  if (!memory.read(first.start, head.data(), head.size())) return std::nullopt;
  auto end = program_headers_end(head);
  if (!end) return std::nullopt;
  if (*end > head.size()) {
    if (*end > first.end - first.start || *end > 1 << 20) return std::nullopt;
    head.resize(size_t(*end));
    if (!memory.read(first.start, head.data(), head.size())) return std::nullopt;
  }
  auto info = parse_load_info(head);
  if (!info) return std::nullopt;
  uint64_t lowest = UINT64_MAX;
  for (const LoadSegment& s : info->loads) lowest = std::min(lowest, s.vaddr & ~(kPage - 1));
  Module mod;
  mod.path = first.path;
  mod.start = first.start;
  mod.map_end = first.end;
  mod.dev_major = first.dev_major;
  mod.dev_minor = first.dev_minor;
  mod.inode = first.inode;
  mod.load_bias = first.start - lowest;
  std::vector<AddressRange> ranges;
  for (const LoadSegment& s : info->loads) {
    uint64_t start = s.vaddr + mod.load_bias;
    if (start + s.memsz < start) return std::nullopt;
    add_mapped(maps, start, start + s.memsz, ranges);
  }
  mod.bounds = ModuleBounds(std::move(ranges));
  return mod;
}

}  // namespace

std::vector<Module> find_modules(const std::vector<Mapping>& maps, const MemorySource& memory) {
  std::vector<Module> modules;
  // A file mapped twice (dlopen'ed under two names is one mapping set; the
  // same file at two places is two modules): one module per mapping of
  // offset 0 of a file.
  for (const Mapping& m : maps) {
    if (m.inode == 0 || m.offset != 0 || m.path.empty() || m.path[0] == '[' || !m.readable) continue;
    if (auto mod = module_at(maps, m, memory)) modules.push_back(std::move(*mod));
  }
  return modules;
}

}  // namespace covkit::live
