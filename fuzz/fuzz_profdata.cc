// Fuzzes clang's indexed profile reader (.profdata: header, summaries, the
// on-disk hash table's records and value records). What it accepts is
// merged, written again and must read back the same.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "clang/profdata_reader.h"
#include "clang/profdata_writer.h"
#include "clang/profile_counts.h"

using namespace covkit;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto indexed = clang::read_profdata(std::span<const uint8_t>(data, size));
  if (!indexed) {
    if (!indexed.error().offset || *indexed.error().offset > size) {
      std::fprintf(stderr, "fuzz_profdata: error without an offset inside the input: %s\n",
                   indexed.error().message.c_str());
      std::abort();
    }
    return 0;
  }
  clang::ProfileCounts merged;
  for (const clang::FunctionCounts& f : indexed->functions) merged.add(f.name, f.hash, f.counts);
  const std::string bytes = clang::write_profdata(merged);
  auto back = clang::read_profdata(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  if (!back || back->functions.size() != merged.functions()) {
    std::fprintf(stderr, "fuzz_profdata: the written .profdata does not read back whole\n");
    std::abort();
  }
  return 0;
}
