#pragma once
// How far an ELF file's compressed debug sections expand. libdw expands
// every one of them whole when it opens a file (dwarf_begin_elf), to the
// size its header states: zlib expands up to a thousandfold, so a hostile
// program of 1 MB whose .debug_str is 1 GB of zeros took 1 GB of covkit's
// memory (`covkit gprof`; trace report and sample read the programs and
// libraries their data names the same way). Real debug information
// compresses a few times over; the bound below is far above that.
#include <libelf.h>

#include <cstdint>

namespace covkit::format {

// The most the compressed debug sections of a file may expand to: this
// many times the bytes of the file they take (each byte once, however
// many section headers point at it), plus kDebugExpansionSlack.
inline constexpr uint64_t kMaxDebugExpansion = 32;
inline constexpr uint64_t kDebugExpansionSlack = uint64_t(256) << 20;

// The bytes the compressed sections of `elf` (SHF_COMPRESSED, and GNU's
// .zdebug_* with their "ZLIB" header) state they expand to, when that is
// more than the bound above; 0 when it is not (or none is compressed).
uint64_t debug_expansion_past_bound(Elf* elf);

}  // namespace covkit::format
