#pragma once
// Zydis, loaded when a command first decodes instructions: linked, it (and
// Zycore) would be loaded and relocated at the start of every covkit
// command, though only `covkit sample` decodes (util/shared_library).
#include <Zydis/Zydis.h>

#include "util/expected.h"

namespace covkit::sample {

// The functions covkit calls, named as Zydis names them.
#define COVKIT_ZYDIS_FUNCTIONS(X)       \
  X(ZydisDecoderInit)                   \
  X(ZydisDecoderDecodeFull)             \
  X(ZydisDecoderDecodeInstruction)      \
  X(ZydisCalcAbsoluteAddress)           \
  X(ZydisRegisterGetLargestEnclosing)

struct ZydisLibrary {
#define COVKIT_ZYDIS_MEMBER(name) decltype(&::name) name = nullptr;
  COVKIT_ZYDIS_FUNCTIONS(COVKIT_ZYDIS_MEMBER)
#undef COVKIT_ZYDIS_MEMBER
};

// Loaded once per process (thread-safe); later calls return the same
// functions, or the same Error ("cannot load libZydis.so.4.0 (needed to
// decode instructions): ..."). Commands that decode check it first, so a
// missing library is one line and not an empty control-flow graph.
Expected<const ZydisLibrary*> zydis_library();

}  // namespace covkit::sample
