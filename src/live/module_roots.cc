#include "live/module_roots.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

#include "live/elf_image.h"
#include "live/gcov_info_layout.h"
#include "live/module_file.h"

namespace covkit::live {

const char* root_source_name(RootSource s) {
  switch (s) {
    case RootSource::kSymtab:
      return "symtab";
    case RootSource::kMasterChain:
      return "dynsym __gcov_master";
    case RootSource::kScan:
      return "scan";
  }
  return "?";
}

namespace {

constexpr uint64_t kMaxScanBytes = uint64_t(512) << 20;

std::optional<size_t> module_holding(const std::vector<Module>& modules, uint64_t address, uint64_t len) {
  for (size_t i = 0; i < modules.size(); ++i)
    if (modules[i].bounds.holds(address, len, true)) return i;
  return std::nullopt;
}

// Follows master -> root -> next ... assigning each root to its module.
void walk_master(const std::vector<Module>& modules, const MemorySource& memory, uint64_t master,
                 std::vector<std::optional<ModuleRoot>>& roots) {
  auto first = memory.u64(master + 8);
  if (!first) return;
  std::unordered_set<uint64_t> seen;
  for (uint64_t at = *first; at != 0 && seen.insert(at).second && seen.size() < 4096;) {
    auto owner = module_holding(modules, at, GcovLayout::kRootSize);
    if (!owner) return;  // a link out of every module: stop following
    auto root = decode_root(memory, modules[*owner].bounds, at);
    if (!root) return;
    if (!roots[*owner]) roots[*owner] = ModuleRoot{*owner, at, RootSource::kMasterChain};
    at = root->next;
  }
}

}  // namespace

std::optional<uint64_t> scan_for_root(const Module& module, const MemorySource& memory) {
  // Read the module's writable data once.
  struct Block {
    uint64_t start;
    std::vector<uint64_t> words;
  };
  std::vector<Block> blocks;
  uint64_t total = 0;
  for (const AddressRange& r : module.bounds.ranges()) {
    if (!r.writable) continue;
    uint64_t start = (r.start + 7) & ~uint64_t(7), end = r.end & ~uint64_t(7);
    if (start >= end) continue;
    total += end - start;
    if (total > kMaxScanBytes) return std::nullopt;
    Block b{start, std::vector<uint64_t>((end - start) / 8)};
    if (!memory.read(start, b.words.data(), b.words.size() * 8)) continue;
    blocks.push_back(std::move(b));
  }
  // Records that validate completely, and the links between them.
  std::set<uint64_t> objects;
  std::unordered_set<uint64_t> linked, next_fields;
  for (const Block& b : blocks)
    for (size_t i = 0; i < b.words.size(); ++i) {
      uint64_t at = b.start + i * 8;
      auto layout = layout_for_version(uint32_t(b.words[i]));
      if (!layout || (b.words[i] >> 32) != 0) continue;
      auto obj = decode_object(memory, module.bounds, at, *layout);
      if (!obj || obj->functions.empty()) continue;
      objects.insert(at);
      next_fields.insert(at + 8);
      if (i + 1 < b.words.size() && b.words[i + 1] != 0) linked.insert(b.words[i + 1]);
    }
  std::vector<uint64_t> heads;
  for (uint64_t o : objects)
    if (!linked.count(o)) heads.push_back(o);
  if (heads.size() != 1) return std::nullopt;
  // The root: the one other word pointing at the head.
  std::optional<uint64_t> found;
  for (const Block& b : blocks)
    for (size_t i = 0; i < b.words.size(); ++i) {
      uint64_t at = b.start + i * 8;
      if (b.words[i] != heads[0] || next_fields.count(at)) continue;
      auto root = decode_root(memory, module.bounds, at);
      if (!root) continue;
      if (found) return std::nullopt;  // two candidates: refuse to guess
      found = at;
    }
  return found;
}

std::vector<ModuleRoot> find_roots(pid_t pid, const std::vector<Module>& modules, const MemorySource& memory) {
  std::vector<std::optional<ModuleRoot>> roots(modules.size());
  std::vector<uint64_t> masters;
  // A module whose .symtab lacks __gcov_root has no libgcov: not scanned.
  std::vector<bool> surely_without(modules.size(), false);
  for (size_t i = 0; i < modules.size(); ++i) {
    auto file = module_file(pid, modules[i]);
    if (!file) continue;
    if (auto syms = find_symbols(file->bytes(), false, {"__gcov_root"}); syms) {
      surely_without[i] = syms->present && !symbol_value(*syms, "__gcov_root");
      if (auto v = symbol_value(*syms, "__gcov_root")) {
        uint64_t at = *v + modules[i].load_bias;
        if (decode_root(memory, modules[i].bounds, at)) roots[i] = ModuleRoot{i, at, RootSource::kSymtab};
      }
    }
    if (auto dyn = find_symbols(file->bytes(), true, {"__gcov_master"}); dyn)
      if (auto v = symbol_value(*dyn, "__gcov_master")) {
        uint64_t at = *v + modules[i].load_bias;
        if (modules[i].bounds.holds(at, GcovLayout::kMasterSize, true)) masters.push_back(at);
      }
  }
  for (uint64_t master : masters) walk_master(modules, memory, master, roots);
  // Modules built with --coverage carry libgcov's code; only those without
  // a root yet are scanned.
  for (size_t i = 0; i < modules.size(); ++i)
    if (!roots[i] && !surely_without[i])
      if (auto at = scan_for_root(modules[i], memory)) roots[i] = ModuleRoot{i, *at, RootSource::kScan};
  std::vector<ModuleRoot> out;
  for (auto& r : roots)
    if (r) out.push_back(*r);
  return out;
}

}  // namespace covkit::live
