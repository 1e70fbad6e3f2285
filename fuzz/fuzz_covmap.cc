// Fuzzes the coverage mapping reader and what llvm-cov's rules make of it:
// the input is [u32 covmap size][u32 covfun size][__llvm_covmap]
// [__llvm_covfun][__llvm_prf_names] (little-endian sizes; a first byte with
// bit 7 set reads the sections as big-endian). What decodes is counted
// against a profile made from the input's bytes (every function present,
// with counts, or absent), turned into segments, lines, branches and the
// project model; the whole input is also read as an ELF file. Nothing may
// read outside its input, loop forever on cyclic expansions or
// expressions, or allocate what the input merely claims.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>

#include "clang/clang_model.h"
#include "clang/coverage_mapping_reader.h"
#include "clang/function_records.h"
#include "clang/profile_counts.h"

using namespace covkit;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)clang::read_coverage_mapping(std::span<const uint8_t>(data, size));
  if (size < 8) return 0;
  uint32_t covmap_size, covfun_size;
  std::memcpy(&covmap_size, data, 4);
  std::memcpy(&covfun_size, data + 4, 4);
  const bool big = data[0] & 0x80;
  covmap_size &= 0xffffff;
  const size_t rest = size - 8;
  if (covmap_size > rest || covfun_size > rest - covmap_size) return 0;
  clang::MappingSections s;
  s.covmap = std::span<const uint8_t>(data + 8, covmap_size);
  s.covfun = std::span<const uint8_t>(data + 8 + covmap_size, covfun_size);
  s.names = std::span<const uint8_t>(data + 8 + covmap_size + covfun_size, rest - covmap_size - covfun_size);
  s.big_endian = big;
  auto m = clang::decode_coverage_mapping(s);
  if (!m) {
    if (!m.error().offset) {
      std::fprintf(stderr, "fuzz_covmap: error without an offset: %s\n", m.error().message.c_str());
      std::abort();
    }
    return 0;
  }
  // A profile from the input: every other function present, its counts
  // from the input's bytes (one more counter than the mapping needs, or one
  // fewer, now and then).
  clang::ProfileCounts profile;
  size_t k = 0;
  for (const clang::FunctionMapping& f : m->functions) {
    if (k++ % 2) continue;
    std::vector<uint64_t> counts(8 + k % 3);
    for (size_t i = 0; i < counts.size(); ++i) counts[i] = data[(k * 7 + i) % size] * (i + 1);
    profile.add(f.name, f.hash, counts);
  }
  clang::CoverageSet set;
  std::vector<clang::MismatchedFunction> mismatched;
  set.add(m->functions, profile, mismatched);
  set.add(m->functions, clang::ProfileCounts(), mismatched);
  for (const std::string& file : set.source_files()) (void)clang::file_model(set, file);
  return 0;
}
