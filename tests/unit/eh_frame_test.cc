// format/eh_frame: hand-built .eh_frame sections whose FDE ranges are known
// by construction (each pointer encoding a linker emits, both augmentation
// shapes gcc writes), damaged variants of them (each one clear error, no
// crash), and a real gcc-12 -O2 program whose FDEs, read from a stripped
// copy, must equal the unstripped file's symbol ranges.
#include "format/eh_frame.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "format/elf_symbols.h"
#include "test_support.h"

namespace covkit::format {
namespace eh_frame_test {

using covkit::testing::run_command;
using covkit::testing::TempDir;
using covkit::testing::write_text;

constexpr uint64_t kSection = 0x2000;  // where the built section "loads"

// Builds .eh_frame bytes record by record, the way a linker lays them out.
struct EhBuilder {
  std::vector<uint8_t> b;
  uint64_t base = kSection;  // the virtual address of b[0]

  void u8(uint64_t v) { b.push_back(uint8_t(v)); }
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(uint8_t(v >> (8 * i)));
  }
  void uleb(uint64_t v) {
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      b.push_back(uint8_t(byte | (v ? 0x80 : 0)));
    } while (v);
  }
  // Writes the length later: returns where it goes.
  size_t begin() {
    size_t at = b.size();
    le(0, 4);
    return at;
  }
  void end(size_t at) {
    while ((b.size() - at) % 4) b.push_back(0);  // DW_CFA_nop padding
    uint32_t len = uint32_t(b.size() - at - 4);
    for (int i = 0; i < 4; ++i) b[at + size_t(i)] = uint8_t(len >> (8 * i));
  }
  // A CIE; `aug_data` is the 'z' block's contents (empty for "").
  size_t cie(const std::string& aug, const std::vector<uint8_t>& aug_data) {
    size_t at = begin();
    le(0, 4);  // CIE id
    u8(1);     // version
    for (char c : aug) u8(uint8_t(c));
    u8(0);
    uleb(1);     // code alignment
    u8(0x78);    // data alignment -8 (sleb)
    u8(16);      // return address register (rip)
    if (!aug.empty()) {
      uleb(aug_data.size());
      b.insert(b.end(), aug_data.begin(), aug_data.end());
    }
    u8(0x0c), u8(7), u8(8);  // DW_CFA_def_cfa rsp+8
    end(at);
    return at;
  }
  // An FDE of `cie` for [start, start+size) in `enc`; `z` adds an empty augmentation block.
  size_t fde(size_t cie_at, uint64_t start, uint64_t size, uint8_t enc, bool z, uint64_t data_base = 0) {
    size_t at = begin();
    size_t id_pos = b.size();
    le(id_pos - cie_at, 4);
    uint64_t field = base + b.size();
    uint64_t value = (enc & 0x70) == 0x10 ? start - field : (enc & 0x70) == 0x30 ? start - data_base : start;
    int width = (enc & 0x0f) == 0x03 || (enc & 0x0f) == 0x0b ? 4 : (enc & 0x0f) == 0x02 ? 2 : 8;
    le(value, width);
    le(size, width);
    if (z) uleb(0);
    end(at);
    return at;
  }
};

std::vector<FdeRange> parse_ok(const std::vector<uint8_t>& bytes, EhFrameBases bases = {kSection, 0, 0}) {
  auto r = parse_eh_frame(bytes, bases);
  EXPECT_TRUE(r) << r.error().describe();
  return r ? *r : std::vector<FdeRange>{};
}

std::string parse_error(const std::vector<uint8_t>& bytes) {
  auto r = parse_eh_frame(bytes, {kSection, 0, 0});
  EXPECT_FALSE(r) << "damaged input parsed: " << (r ? r->size() : 0) << " FDEs";
  return r ? std::string() : r.error().describe();
}

// gcc's usual shape: one "zR" CIE (pcrel|sdata4), FDEs after it.
struct Typical {
  std::vector<uint8_t> b;
  size_t fde[3] = {};  // record offsets; each FDE's CIE pointer is 4 bytes further
};

Typical typical() {
  EhBuilder e;
  Typical t;
  size_t cie = e.cie("zR", {0x1b});
  t.fde[0] = e.fde(cie, 0x1100, 0x20, 0x1b, true);
  t.fde[1] = e.fde(cie, 0x1140, 0x35, 0x1b, true);
  t.fde[2] = e.fde(cie, 0x1080, 0x22, 0x1b, true);
  t.b = e.b;
  return t;
}

TEST(EhFrame, PcrelSdata4FdesGiveTheirRanges) {
  std::vector<FdeRange> want = {{0x1100, 0x20}, {0x1140, 0x35}, {0x1080, 0x22}};
  EXPECT_EQ(parse_ok(typical().b), want);
}

TEST(EhFrame, PersonalityAndLsdaCieOfCxxCode) {
  EhBuilder e;
  // "zPLR": personality encoded indirect|pcrel|sdata4 (0x9b) then its
  // 4-byte pointer, LSDA encoding, FDE encoding.
  size_t cie = e.cie("zPLR", {0x9b, 0x10, 0x20, 0x30, 0x40, 0x1b, 0x1b});
  e.fde(cie, 0x4000, 0x100, 0x1b, true);
  std::vector<FdeRange> want = {{0x4000, 0x100}};
  EXPECT_EQ(parse_ok(e.b), want);
}

TEST(EhFrame, OtherEncodingsAndTheTerminator) {
  EhBuilder e;
  size_t abs = e.cie("", {});               // no augmentation: absptr, 8 bytes
  size_t u4 = e.cie("zR", {0x03});          // udata4, absolute
  size_t dr = e.cie("zR", {0x3b});          // datarel|sdata4 (i386's GOT-relative)
  e.fde(abs, 0x401000, 0x10, 0x00, false);
  e.fde(u4, 0x401020, 0x18, 0x03, true);
  e.fde(dr, 0x401040, 0x08, 0x3b, true, 0x404000);
  e.fde(u4, 0x401060, 0, 0x03, true);      // range 0: left out
  e.le(0, 4);                               // terminator: what follows is not read
  e.le(0xdeadbeef, 4);
  std::vector<FdeRange> want = {{0x401000, 0x10}, {0x401020, 0x18}, {0x401040, 0x08}};
  EXPECT_EQ(parse_ok(e.b, {kSection, 0, 0x404000}), want);
}

TEST(EhFrame, SixtyFourBitLengthRecord) {
  EhBuilder e;
  size_t cie = e.cie("zR", {0x03});
  // An FDE in the 64-bit format: length 0xffffffff, u64 length, u64 CIE pointer.
  e.le(0xffffffff, 4);
  e.le(8 + 4 + 4 + 1, 8);
  size_t id_pos = e.b.size();
  e.le(id_pos - cie, 8);
  e.le(0x5000, 4);
  e.le(0x40, 4);
  e.uleb(0);
  std::vector<FdeRange> want = {{0x5000, 0x40}};
  EXPECT_EQ(parse_ok(e.b), want);
}

TEST(EhFrame, EmptySectionHasNoFdes) { EXPECT_TRUE(parse_ok({}).empty()); }

TEST(EhFrame, EveryTruncationIsOneErrorNeverACrash) {
  Typical t = typical();
  // Cuts at record boundaries are whole sections; every other cut is damage.
  for (size_t n = 1; n < t.b.size(); ++n) {
    std::vector<uint8_t> cut(t.b.begin(), t.b.begin() + long(n));
    auto r = parse_eh_frame(cut, {kSection, 0, 0});
    bool boundary = n == t.fde[0] || n == t.fde[1] || n == t.fde[2];
    EXPECT_EQ(bool(r), boundary) << "cut at " << n;
    if (!r) {
      EXPECT_NE(r.error().describe().find(".eh_frame is damaged at offset"), std::string::npos);
    }
  }
}

TEST(EhFrame, LengthPastTheEnd) {
  Typical t = typical();
  std::vector<uint8_t> b = t.b;
  b[t.fde[0]] = 0xf0;  // the first FDE claims 240 bytes
  EXPECT_NE(parse_error(b).find(fmt::format("offset {:#x}: a record's length (240 bytes) runs past the end", t.fde[0])),
            std::string::npos);
  b = t.b;
  b[0] = b[1] = b[2] = b[3] = 0xff;  // a 64-bit length follows: the CIE's id and version, far too long
  EXPECT_NE(parse_error(b).find("offset 0x0: a record's length"), std::string::npos);
  b = t.b;
  b[t.fde[2]] = b[t.fde[2] + 1] = b[t.fde[2] + 2] = b[t.fde[2] + 3] = 0xff;
  b.resize(t.fde[2] + 4 + 5);  // the 64-bit length that follows is cut off
  EXPECT_NE(parse_error(b).find("64-bit length is cut off"), std::string::npos);
}

TEST(EhFrame, BadCiePointers) {
  Typical t = typical();
  std::vector<uint8_t> b = t.b;
  b[t.fde[0] + 4] = 0x80;  // 0x80 bytes back from the first FDE's id field: before the section
  EXPECT_NE(parse_error(b).find("points before the section"), std::string::npos);
  b = t.b;
  size_t id2 = t.fde[2] + 4;
  b[id2] = uint8_t(id2 - t.fde[0]);  // the third FDE's CIE is the first FDE
  EXPECT_NE(parse_error(b).find(fmt::format("offset {:#x}: an FDE's CIE pointer does not point at a CIE", t.fde[0])),
            std::string::npos);
  b = t.b;
  b[id2] = uint8_t(id2 - t.fde[0] - 6);  // into the middle of a record
  EXPECT_FALSE(parse_eh_frame(b, {kSection, 0, 0}));
}

TEST(EhFrame, UnknownEncodingsAndAugmentations) {
  EhBuilder e;
  size_t cie = e.cie("zR", {0x0f});  // format 0x0f does not exist
  e.fde(cie, 0x1000, 0x10, 0x03, true);
  EXPECT_NE(parse_error(e.b).find("FDE pointer encoding 0xf is not supported"), std::string::npos);
  EhBuilder f;
  size_t odd = f.cie("xy", {});
  f.fde(odd, 0x1000, 0x10, 0x00, false);
  EXPECT_NE(parse_error(f.b).find("augmentation \"xy\" is unknown"), std::string::npos);
  std::vector<uint8_t> b = typical().b;
  b[8] = 9;  // CIE version
  EXPECT_NE(parse_error(b).find("CIE version 9"), std::string::npos);
}

// .eh_frame_hdr (for a file without section headers): a segment holding the
// header, then .eh_frame; the table lists two of the three FDEs.
TEST(EhFrame, HdrTableNamesItsFdes) {
  constexpr size_t kHdr = 12 + 2 * 8;  // version, encodings, eh_frame_ptr, count, 2 entries
  EhBuilder e;
  e.base = kSection + kHdr;
  size_t cie = e.cie("zR", {0x1b});
  size_t f1 = e.fde(cie, 0x1100, 0x20, 0x1b, true);
  e.fde(cie, 0x1140, 0x35, 0x1b, true);
  size_t f3 = e.fde(cie, 0x1080, 0x22, 0x1b, true);
  EhBuilder h;
  h.u8(1), h.u8(0x1b), h.u8(0x03), h.u8(0x3b);
  h.le(uint64_t(kHdr - 4), 4);  // pcrel from the field at +4 to .eh_frame at +kHdr
  h.le(2, 4);
  // datarel|sdata4 from the header's start, sorted by initial location.
  h.le(0x1080 - kSection, 4), h.le(kHdr + f3, 4);
  h.le(0x1100 - kSection, 4), h.le(kHdr + f1, 4);
  ASSERT_EQ(h.b.size(), kHdr);
  std::vector<uint8_t> segment = h.b;
  segment.insert(segment.end(), e.b.begin(), e.b.end());
  auto r = parse_eh_frame_hdr(segment, kSection, kSection);
  ASSERT_TRUE(r) << r.error().describe();
  std::vector<FdeRange> want = {{0x1080, 0x22}, {0x1100, 0x20}};
  EXPECT_EQ(*r, want);
  // Damage: a count past the table, an entry pointing at the CIE, a bad version.
  std::vector<uint8_t> bad = segment;
  bad[8] = 200;
  auto cut = parse_eh_frame_hdr(bad, kSection, kSection);
  ASSERT_FALSE(cut);
  // The entries past the table read .eh_frame's bytes as pointers: the
  // first one leads to the header itself, which is no FDE.
  EXPECT_EQ(cut.error().describe().find(".eh_frame is damaged at address 0x2000:"), 0u) << cut.error().describe();
  bad = segment;
  bad[16] = uint8_t(kHdr + cie), bad[17] = bad[18] = bad[19] = 0;
  EXPECT_FALSE(parse_eh_frame_hdr(bad, kSection, kSection));
  bad = segment;
  bad[0] = 2;
  EXPECT_FALSE(parse_eh_frame_hdr(bad, kSection, kSection));
  EXPECT_FALSE(parse_eh_frame_hdr(segment, kSection, kSection + segment.size()));
}

// A real program: the FDEs of the stripped copy are the symbols' ranges.
TEST(EhFrame, StrippedProgramFdesEqualTheSymbolRanges) {
  if (run_command("command -v gcc-12 >/dev/null && command -v strip >/dev/null") != 0)
    GTEST_SKIP() << "gcc-12 or strip is not installed";
  TempDir d;
  write_text(d / "p.c",
             "#include <stdio.h>\n"
             "__attribute__((noinline)) int used(int x) { return x * 3 + 1; }\n"
             "__attribute__((noinline)) int twice(int x) { return used(x) + used(x + 1); }\n"
             "__attribute__((noinline)) long loop(long n) { long s = 0; for (long i = 0; i < n; ++i) s += i * i; "
             "return s; }\n"
             "int main(int argc, char **argv) { (void)argv; printf(\"%d %ld\\n\", twice(argc), loop(argc)); "
             "return 0; }\n");
  std::string out;
  ASSERT_EQ(run_command("cd '" + d.path() + "' && gcc-12 -O2 -g -o p p.c && strip --strip-all -o ps p", &out), 0)
      << out;
  auto symbols = function_symbols(d / "p");
  ASSERT_TRUE(symbols);
  auto stripped = OpenElf::open(d / "ps");
  ASSERT_TRUE(stripped);
  auto eh = read_eh_frame_functions(stripped->elf());
  ASSERT_TRUE(eh) << eh.error().describe();
  ASSERT_TRUE(eh->present);
  int compared = 0;
  for (const FunctionSymbol& s : *symbols) {
    if (s.name != "used" && s.name != "twice" && s.name != "loop" && s.name != "main" && s.name != "_start") continue;
    ++compared;
    EXPECT_NE(std::find(eh->ranges.begin(), eh->ranges.end(), FdeRange{s.address, s.size}), eh->ranges.end())
        << s.name << " at " << std::hex << s.address << " size " << s.size << " has no FDE of that range";
  }
  EXPECT_EQ(compared, 5);
  ASSERT_EQ(run_command("cd '" + d.path() + "' && objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr "
                        "ps pn", &out), 0) << out;
  // Without section headers (e_shoff, e_shnum, e_shstrndx zeroed), the
  // same FDEs through PT_GNU_EH_FRAME's table.
  std::vector<uint8_t> bytes = covkit::testing::read_bytes(d / "ps");
  ASSERT_GT(bytes.size(), 64u);
  std::fill(bytes.begin() + 0x28, bytes.begin() + 0x30, 0);
  std::fill(bytes.begin() + 0x3c, bytes.begin() + 0x40, 0);
  ASSERT_TRUE(covkit::testing::write_bytes(d / "noshdr", bytes));
  auto noshdr = OpenElf::open(d / "noshdr");
  ASSERT_TRUE(noshdr);
  auto via_hdr = read_eh_frame_functions(noshdr->elf());
  ASSERT_TRUE(via_hdr) << via_hdr.error().describe();
  EXPECT_TRUE(via_hdr->present);
  auto sorted = [](std::vector<FdeRange> v) {
    std::sort(v.begin(), v.end(), [](const FdeRange& a, const FdeRange& b) { return a.start < b.start; });
    return v;
  };
  EXPECT_EQ(sorted(via_hdr->ranges), sorted(eh->ranges));
  EXPECT_GE(eh->ranges.size(), 5u);

  auto removed = OpenElf::open(d / "pn");
  ASSERT_TRUE(removed);
  auto gone = read_eh_frame_functions(removed->elf());
  ASSERT_TRUE(gone);
  EXPECT_FALSE(gone->present);
}

}  // namespace
}  // namespace covkit::format
