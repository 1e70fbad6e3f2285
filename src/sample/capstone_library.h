#pragma once
// capstone, loaded when a command first decodes instructions: linked, its
// 77,000 relocations were applied at the start of every covkit command (a
// third of `covkit gcov`'s start-up), though only `covkit sample` decodes.
#include <capstone/capstone.h>

#include "util/expected.h"

namespace covkit::sample {

// The functions covkit calls, named as capstone names them.
#define COVKIT_CAPSTONE_FUNCTIONS(X) \
  X(cs_open)                         \
  X(cs_option)                       \
  X(cs_close)                        \
  X(cs_malloc)                       \
  X(cs_free)                         \
  X(cs_disasm)                       \
  X(cs_disasm_iter)

struct CapstoneLibrary {
#define COVKIT_CAPSTONE_MEMBER(name) decltype(&::name) name = nullptr;
  COVKIT_CAPSTONE_FUNCTIONS(COVKIT_CAPSTONE_MEMBER)
#undef COVKIT_CAPSTONE_MEMBER
};

// Loaded once per process (thread-safe); later calls return the same
// functions, or the same Error ("cannot load libcapstone.so.4 (needed to
// decode instructions): ..."). Commands that decode check it first, so a
// missing library is one line and not an empty control-flow graph.
Expected<const CapstoneLibrary*> capstone_library();

}  // namespace covkit::sample
