#pragma once
// libgcov's own records as they sit in a running program (libgcc/libgcov.h),
// decoded from outside and validated word by word: the program may be
// hostile or in the middle of registering a module, so every pointer must
// stay inside the module's segments, every count is bounded, every string
// ends within bounds, and a version word covkit does not know is refused,
// never guessed.
//
// The records, LP64 little-endian (x86-64, aarch64), GCC 11 and 12:
//
//   gcov_root    list@0  flags@8 (bit 0 dumped, bit 1 run_counted)  next@16  prev@24
//                (bytes 12-15 are padding that libgcov never touches: covkit
//                keeps its reset marker there, see snapshot.h)
//   gcov_master  version@0  root@8          (one per process; links every root)
//   gcov_info    version@0  next@8  stamp@16  checksum@20 (GCC 12; padding in 11)
//                filename@24  merge[8]@32  n_functions@96  functions@104
//   gcov_fn_info key@0  ident@8  lineno_checksum@12  cfg_checksum@16
//                ctrs[]@24, 16 bytes each: num@0  values@8, one per kind whose
//                merge function is set, in kind order
//
// GCC 11 and 12 share the offsets; 12 fills the checksum that 11 leaves as
// padding, and writes it into the .gcda header. Both have eight counter kinds
// (arcs, interval, pow2, topn, indirect_call, average, ior, time_profiler).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "live/memory_source.h"
#include "util/expected.h"

namespace covkit::live {

inline constexpr unsigned kCounterArcs = 0;
inline constexpr unsigned kCounterTopn = 3;
inline constexpr unsigned kCounterIndirectCall = 4;

// The layout of one GCC version's records.
struct GcovLayout {
  int gcc_major = 0;
  unsigned counter_kinds = 0;  // GCOV_COUNTERS
  bool has_checksum = false;
  uint32_t info_filename = 24, info_merge = 32, info_n_functions = 96, info_functions = 104, info_size = 112;
  uint32_t fn_counters = 24, ctr_size = 16;
  static constexpr uint32_t kRootSize = 32, kMasterSize = 16;
};

// The layout for a gcov_info version word, or nullopt when covkit has not
// verified that GCC's layout (anything but GCC 11 and 12).
std::optional<GcovLayout> layout_for_version(uint32_t version_word);
// "libgcov of GCC 13.1 ('B31*'): its record layout is unknown to covkit (it
// reads GCC 11 and 12)" or, for a word that is no version at all, says so.
std::string unknown_layout_message(uint32_t version_word);

// Whether a counter kind keeps lists of (value, count) pairs (top N values,
// indirect calls): three words in memory per counter, the third a pointer.
inline bool is_topn_kind(unsigned kind) { return kind == kCounterTopn || kind == kCounterIndirectCall; }

struct CounterArray {
  unsigned kind = 0;
  uint32_t num = 0;     // counters (topn: three words each)
  uint64_t values = 0;  // address of num int64 counters
};

struct FunctionRecord {
  uint64_t address = 0;  // 0: a null entry (libgcov writes a placeholder)
  bool owned = false;    // key == this object: written in full; else a placeholder
  uint32_t ident = 0, lineno_checksum = 0, cfg_checksum = 0;
  std::vector<CounterArray> counters;  // one per active kind, in kind order

  // The object writes this function's counters (read, reset, written in
  // full); otherwise a placeholder: a null entry, or a COMDAT copy whose
  // counters are another object's.
  bool writes_counters() const { return address != 0 && owned; }
};

struct ObjectRecord {  // one gcov_info: one object file, one .gcda
  uint64_t address = 0;
  uint32_t version = 0, stamp = 0, checksum = 0;
  std::string filename;
  uint32_t kinds = 0;  // bit k: merge[k] is set
  std::vector<FunctionRecord> functions;
};

struct RootRecord {  // one module's __gcov_root
  uint64_t address = 0;
  uint64_t list = 0;
  uint32_t flags = 0;
  uint32_t marker = 0;  // covkit's reset marker, in the padding after the flags
  uint64_t next = 0, prev = 0;
  bool dumped() const { return flags & 1u; }
  bool run_counted() const { return flags & 2u; }
};

struct ModuleRecords {
  RootRecord root;
  GcovLayout layout;
  std::vector<ObjectRecord> objects;  // in list order
};

struct DecodeLimits {
  size_t max_objects = size_t(1) << 16;
  uint32_t max_functions = uint32_t(1) << 20;
  uint32_t max_counters = uint32_t(1) << 26;  // in one array
  size_t max_filename = 4096;
};

// The root at `address` (inside `bounds`, writable).
Expected<RootRecord> decode_root(const MemorySource& memory, const ModuleBounds& bounds, uint64_t address);

// One gcov_info and its functions.
Expected<ObjectRecord> decode_object(const MemorySource& memory, const ModuleBounds& bounds, uint64_t address,
                                     const GcovLayout& layout, const DecodeLimits& limits = {});

// The root and every object on its list. A root with an empty list (a module
// whose constructors have not run) gives no objects. All objects of a list
// must carry the same version word, as libgcov registers only its own.
Expected<ModuleRecords> decode_module(const MemorySource& memory, const ModuleBounds& bounds, uint64_t root_address,
                                      const DecodeLimits& limits = {});

}  // namespace covkit::live
