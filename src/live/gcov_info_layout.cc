#include "live/gcov_info_layout.h"

#include <fmt/format.h>

#include <cstring>
#include <unordered_set>

#include "format/gcov_version.h"
#include "live/object_names.h"
#include "util/printable.h"

namespace covkit::live {

std::optional<GcovLayout> layout_for_version(uint32_t version_word) {
  auto v = format::GcovVersion::decode(version_word);
  if (!v) return std::nullopt;
  // Verified against the records gcc-11 and gcc-12 emit (tests/live checks
  // every dump byte for byte against the program's own __gcov_dump).
  if (v->major != 11 && v->major != 12) return std::nullopt;
  GcovLayout l;
  l.gcc_major = v->major;
  l.counter_kinds = 8;
  l.has_checksum = v->major >= 12;
  return l;
}

std::string unknown_layout_message(uint32_t version_word) {
  auto v = format::GcovVersion::decode(version_word);
  if (!v)
    return fmt::format("libgcov record with version word 0x{:08x}, which is no GCC version: refused", version_word);
  return fmt::format("libgcov of GCC {}.{} ('{}'): its record layout is unknown to covkit (it reads GCC 11 and 12)",
                     v->major, v->minor, v->four_chars());
}

namespace {

Error at(uint64_t address, std::string_view what) {
  return Error(fmt::format("{} at 0x{:x}", what, address));
}

// An aligned pointer into the module, holding `len` bytes.
// A record copied out of the process, read field by field (the target's
// byte order is the host's: covkit reads processes of its own machine).
struct RawRecord {
  explicit RawRecord(size_t size) : bytes(size) {}
  uint32_t u32(size_t off) const {
    uint32_t v;
    std::memcpy(&v, bytes.data() + off, 4);
    return v;
  }
  uint64_t u64(size_t off) const {
    uint64_t v;
    std::memcpy(&v, bytes.data() + off, 8);
    return v;
  }
  std::vector<uint8_t> bytes;
};

bool points_into(const ModuleBounds& b, uint64_t p, uint64_t len, bool writable = false) {
  return p != 0 && p % 8 == 0 && b.holds(p, len, writable);
}

Expected<FunctionRecord> decode_function(const MemorySource& memory, const ModuleBounds& bounds, uint64_t address,
                                         uint64_t object, uint32_t kinds, const GcovLayout& layout,
                                         const DecodeLimits& limits) {
  FunctionRecord fn;
  fn.address = address;
  if (address == 0) return fn;
  unsigned active = __builtin_popcount(kinds);
  uint64_t size = layout.fn_counters + uint64_t(layout.ctr_size) * active;
  if (!points_into(bounds, address, size)) return at(address, "function record outside the module");
  RawRecord raw(size);
  if (auto r = memory.read(address, raw.bytes.data(), raw.bytes.size()); !r) return r.error();
  fn.owned = raw.u64(0) == object;
  fn.ident = raw.u32(8);
  fn.lineno_checksum = raw.u32(12);
  fn.cfg_checksum = raw.u32(16);
  size_t slot = 0;
  for (unsigned kind = 0; kind < layout.counter_kinds; ++kind) {
    if (!(kinds & (1u << kind))) continue;
    size_t off = layout.fn_counters + layout.ctr_size * slot++;
    CounterArray c{kind, raw.u32(off), raw.u64(off + 8)};
    if (c.num > limits.max_counters)
      return at(address, fmt::format("function {} claims {} counters of kind {}", fn.ident, c.num, kind));
    if (is_topn_kind(kind) && c.num % 3 != 0)
      return at(address, fmt::format("function {}: {} top-N words is not a multiple of 3", fn.ident, c.num));
    if (c.num != 0 && !points_into(bounds, c.values, uint64_t(c.num) * 8, true))
      return at(address, fmt::format("function {}: counters of kind {} outside the module's data", fn.ident, kind));
    fn.counters.push_back(c);
  }
  return fn;
}

}  // namespace

Expected<RootRecord> decode_root(const MemorySource& memory, const ModuleBounds& bounds, uint64_t address) {
  if (!points_into(bounds, address, GcovLayout::kRootSize, true)) return at(address, "libgcov root outside the module");
  uint64_t raw[4];
  if (auto r = memory.read(address, raw, sizeof raw); !r) return r.error();
  RootRecord root;
  root.address = address;
  root.list = raw[0];
  root.flags = uint32_t(raw[1]);
  root.marker = uint32_t(raw[1] >> 32);
  root.next = raw[2];
  root.prev = raw[3];
  if (root.flags & ~3u) return at(address, "libgcov root with unknown flags");
  if (root.list != 0 && !points_into(bounds, root.list, 8)) return at(address, "libgcov root whose list leaves the module");
  return root;
}

Expected<ObjectRecord> decode_object(const MemorySource& memory, const ModuleBounds& bounds, uint64_t address,
                                     const GcovLayout& layout, const DecodeLimits& limits) {
  if (!points_into(bounds, address, layout.info_size)) return at(address, "object record outside the module");
  RawRecord raw(layout.info_size);
  if (auto r = memory.read(address, raw.bytes.data(), raw.bytes.size()); !r) return r.error();
  ObjectRecord obj;
  obj.address = address;
  obj.version = raw.u32(0);
  auto own = layout_for_version(obj.version);
  if (!own || own->gcc_major != layout.gcc_major) return at(address, unknown_layout_message(obj.version));
  obj.stamp = raw.u32(16);
  obj.checksum = layout.has_checksum ? raw.u32(20) : 0;
  if (!layout.has_checksum && raw.u32(20) != 0) return at(address, "object record with data in GCC 11's padding");
  uint64_t filename = raw.u64(layout.info_filename);
  if (filename == 0 || !bounds.holds(filename, 1)) return at(address, "object record whose file name leaves the module");
  auto name = memory.c_string(filename, limits.max_filename);
  if (!name) return at(address, "object record whose file name " + name.error().message);
  if (name->empty()) return at(address, "object record with an empty file name");
  // The name becomes a path (below -o DIR, the program's own file, its notes).
  if (auto plain = check_object_name(*name); !plain)
    return at(address, fmt::format("object record named {}: {}", util::printable(*name), plain.error().message));
  obj.filename = std::move(*name);
  for (unsigned kind = 0; kind < layout.counter_kinds; ++kind) {
    uint64_t merge = raw.u64(layout.info_merge + 8 * kind);
    if (merge == 0) continue;
    if (!bounds.holds_code(merge)) return at(address, fmt::format("merge function of kind {} outside the module's code", kind));
    obj.kinds |= 1u << kind;
  }
  uint32_t n = raw.u32(layout.info_n_functions);
  if (n > limits.max_functions) return at(address, fmt::format("object record claims {} functions", n));
  uint64_t functions = raw.u64(layout.info_functions);
  if (n != 0 && !points_into(bounds, functions, uint64_t(n) * 8)) return at(address, "function table outside the module");
  std::vector<uint64_t> table(n);
  if (n != 0)
    if (auto r = memory.read(functions, table.data(), table.size() * 8); !r) return r.error();
  obj.functions.reserve(n);
  for (uint64_t fn_address : table) {
    auto fn = decode_function(memory, bounds, fn_address, address, obj.kinds, layout, limits);
    if (!fn) return fn.error();
    obj.functions.push_back(std::move(*fn));
  }
  return obj;
}

Expected<ModuleRecords> decode_module(const MemorySource& memory, const ModuleBounds& bounds, uint64_t root_address,
                                      const DecodeLimits& limits) {
  auto root = decode_root(memory, bounds, root_address);
  if (!root) return root.error();
  ModuleRecords module;
  module.root = *root;
  std::unordered_set<uint64_t> seen;
  for (uint64_t at_info = root->list; at_info != 0;) {
    if (!seen.insert(at_info).second) return at(at_info, "object list that loops");
    if (seen.size() > limits.max_objects) return at(at_info, "object list longer than any program's");
    if (!points_into(bounds, at_info, 8)) return at(at_info, "object record outside the module");
    auto version = memory.u32(at_info);
    if (!version) return version.error();
    auto layout = layout_for_version(*version);
    if (!layout) return Error(unknown_layout_message(*version));
    if (module.objects.empty()) module.layout = *layout;
    auto obj = decode_object(memory, bounds, at_info, module.layout, limits);
    if (!obj) return obj.error();
    module.objects.push_back(std::move(*obj));
    auto next = memory.u64(at_info + 8);
    if (!next) return next.error();
    at_info = *next;
  }
  return module;
}

}  // namespace covkit::live
