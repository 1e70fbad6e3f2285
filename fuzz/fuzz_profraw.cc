// Fuzzes clang's raw profile reader (.profraw: headers, binary ids, data
// records, counters, names, value records, profiles back to back) and, on
// what it accepts, llvm-profdata's merge and the .profdata writer: what was
// read must come back unchanged through the indexed format. No read or
// allocation beyond the input's claims; an error always has its offset.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "clang/profdata_reader.h"
#include "clang/profdata_writer.h"
#include "clang/profile_counts.h"
#include "clang/profraw_reader.h"

using namespace covkit;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto raw = clang::read_profraw(std::span<const uint8_t>(data, size));
  if (!raw) {
    if (!raw.error().offset || *raw.error().offset > size) {
      std::fprintf(stderr, "fuzz_profraw: error without an offset inside the input: %s\n",
                   raw.error().message.c_str());
      std::abort();
    }
    return 0;
  }
  clang::ProfileCounts merged;
  for (const clang::RawProfile& p : *raw)
    for (const clang::FunctionCounts& f : p.functions) merged.add(f.name, f.hash, f.counts);
  const std::string bytes = clang::write_profdata(merged);
  auto back = clang::read_profdata(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  if (!back) {
    std::fprintf(stderr, "fuzz_profraw: the written .profdata does not read back: %s\n",
                 back.error().describe().c_str());
    std::abort();
  }
  clang::ProfileCounts again;
  for (const clang::FunctionCounts& f : back->functions) again.add(f.name, f.hash, f.counts);
  for (std::string_view name : merged.names())
    for (const clang::ProfileCounts::Entry& e : *merged.entries(name)) {
      auto found = again.find(name, e.hash);
      if (found.found != clang::ProfileCounts::Found::kCounts || *found.counts != e.counts) {
        std::fprintf(stderr, "fuzz_profraw: a function changed through .profdata\n");
        std::abort();
      }
    }
  return 0;
}
