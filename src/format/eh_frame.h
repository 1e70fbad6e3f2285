#pragma once
// Function boundaries from an ELF file's .eh_frame: every FDE (frame
// description entry) names the code range it describes, and compilers emit
// one per function (gcc and clang by default on x86-64, for unwinding), so
// the FDEs find the functions of a binary whose symbol table was stripped.
// Only the ranges are read; the call-frame instructions are skipped.
//
// Layout (LSB, "Exception Frame"): a sequence of records, each a u32 length
// (0xffffffff: a u64 length follows; 0: the terminator) then a u32 id, 0 for
// a CIE, else the distance back to the FDE's CIE. A CIE's augmentation
// string ("zR", "zPLR", ...) says how its FDEs encode their initial location
// (DW_EH_PE_*: the value's size and sign, and what it is relative to). Every
// read is bounds-checked: damaged input gives one Error with its offset.
#include <cstdint>
#include <span>
#include <vector>

#include <libelf.h>

#include "util/expected.h"

namespace covkit::format {

// One FDE's code: [start, start + size), ELF virtual addresses.
struct FdeRange {
  uint64_t start = 0, size = 0;
  bool operator==(const FdeRange&) const = default;
};

// The addresses that relative pointer encodings add to a value.
struct EhFrameBases {
  uint64_t section = 0;  // the virtual address of the section's first byte (pcrel)
  uint64_t text = 0;     // DW_EH_PE_textrel
  uint64_t data = 0;     // DW_EH_PE_datarel (the GOT on i386-style ABIs)
};

// The FDEs of .eh_frame bytes, in section order, those of range 0 left out.
// Errors name the record's byte offset and what is wrong with it.
Expected<std::vector<FdeRange>> parse_eh_frame(std::span<const uint8_t> bytes, const EhFrameBases& bases);

// The FDEs that .eh_frame_hdr's search table lists (or, without a table, all
// of .eh_frame from the header's pointer on), for a file without section
// headers: `segment` is the loadable segment's bytes, at `segment_vaddr`,
// holding the header (at `hdr_vaddr`) and the .eh_frame it points to.
Expected<std::vector<FdeRange>> parse_eh_frame_hdr(std::span<const uint8_t> segment, uint64_t segment_vaddr,
                                                   uint64_t hdr_vaddr);

struct EhFrameFunctions {
  bool present = false;  // the file has an .eh_frame section with contents
  std::vector<FdeRange> ranges;
};

// The FDEs of the file's .eh_frame section (found by name), or in a file
// without section headers, those .eh_frame_hdr (PT_GNU_EH_FRAME) lists; not
// present when there is none (removed, or never emitted:
// -fno-asynchronous-unwind-tables).
Expected<EhFrameFunctions> read_eh_frame_functions(Elf* elf);

}  // namespace covkit::format
