// Fuzzes the .eh_frame parser (format/eh_frame) and the merge of its FDEs
// with symbols (sample/fde_functions). Input: [section address:8 LE][bytes]:
// the bytes as an .eh_frame section, and as a segment starting with an
// .eh_frame_hdr.
// The parser must never read outside its input; an accepted input has no
// more FDEs than its bytes can hold, none empty or wrapping; the merged
// functions are sorted and those from FDEs are disjoint.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "format/eh_frame.h"
#include "sample/fde_functions.h"

using namespace covkit;

namespace {

void fail(const char* what) {
  std::fprintf(stderr, "fuzz_eh_frame: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  uint64_t base = 0;
  for (int i = 0; i < 8; ++i) base |= uint64_t(data[i]) << (8 * i);
  std::span<const uint8_t> bytes(data + 8, size - 8);
  auto from_hdr = format::parse_eh_frame_hdr(bytes, base, base);
  if (from_hdr) {
    // Every table entry takes 2 bytes at least; entries may repeat an FDE.
    if (from_hdr->size() > bytes.size() / 2) fail("more .eh_frame_hdr entries than its bytes can hold");
    for (const format::FdeRange& r : *from_hdr)
      if (r.size == 0 || r.start + r.size < r.start) fail("an empty or wrapping FDE (through the header)");
  } else if (from_hdr.error().message.empty()) {
    fail("an error without a message (header)");
  }
  auto ranges = format::parse_eh_frame(bytes, {base, base / 2, base / 4});
  if (!ranges) {
    if (ranges.error().message.empty()) fail("an error without a message");
    return 0;
  }
  // The smallest FDE: length, CIE pointer, 1-byte start and 1-byte range (uleb).
  if (ranges->size() > bytes.size() / 10) fail("more FDEs than the bytes can hold");
  for (const format::FdeRange& r : *ranges)
    if (r.size == 0 || r.start + r.size < r.start) fail("an empty or wrapping FDE");
  std::vector<sample::FunctionSymbol> symbols = {{"sym", base & 0xffff, 0x40}};
  std::vector<std::pair<uint64_t, uint64_t>> plt = {{0x1000, 0x1040}};
  auto functions = sample::add_fde_functions(symbols, *ranges, plt);
  uint64_t end = 0;
  for (size_t i = 0; i < functions.size(); ++i) {
    if (i && functions[i].address < functions[i - 1].address) fail("functions out of order");
    if (functions[i].name == "sym") continue;
    if (functions[i].address < end) fail("FDE functions overlap");
    end = functions[i].address + functions[i].size;
  }
  return 0;
}
