// Block stepping's quick decoder (src/runtime/sample/quick_decode.c)
// against Zydis (step_decode.c's facts from Zydis's full decoding, the
// oracle): at every instruction of the code this program has loaded (libc,
// libstdc++, libm, ld.so, the test itself, linked with covkit's own code)
// and on random bytes, whatever the quick decoder accepts must be exactly
// what the Zydis path gives (step facts and the interpreter's decoding),
// an instruction cut short must be declined, and no byte past an
// instruction's own may be read, whatever size it is given (block stepping
// passes 15 for the instruction the thread stands at: the instruction
// just before an unmapped page is put there, and a read past it faults).
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <Zydis/Zydis.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "step_decode.h"

namespace {

struct Facts {
  cks_step_insn step;
  cks_emu_insn emu;
  bool operator==(const Facts &o) const {
    const cks_step_insn &a = step, &b = o.step;
    if (a.kind != b.kind || a.length != b.length || a.rsp_delta != b.rsp_delta || a.target != b.target ||
        a.cc != b.cc || a.stack_write != b.stack_write || a.write_disp != b.write_disp ||
        a.write_size != b.write_size || emu.op != o.emu.op || emu.length != o.emu.length)
      return false;
    // an instruction not emulated: the rest of its decoding is never read
    return emu.op == CKS_EMU_NONE || std::memcmp(&emu, &o.emu, sizeof emu) == 0;
  }
};

std::string Hex(const unsigned char *p, size_t n) {
  std::string s;
  char b[4];
  for (size_t i = 0; i < n; i++) {
    std::snprintf(b, sizeof b, "%02x ", p[i]);
    s += b;
  }
  return s;
}

class QuickDecode : public ::testing::Test {
 protected:
  void SetUp() override {
    ZydisDecoderInit(&dec_, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    // a page, then one that cannot be read
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void *m = mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(MAP_FAILED, m);
    edge_ = static_cast<unsigned char *>(m) + page_;
    ASSERT_EQ(0, mprotect(edge_, page_, PROT_NONE));
  }
  void TearDown() override {
    if (edge_) munmap(edge_ - page_, 2 * page_);
  }

  // Zydis's facts; false where Zydis does not decode.
  bool ByZydis(const unsigned char *p, size_t n, uint64_t at, Facts *f) {
    std::memset(f, 0, sizeof *f);
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec_, p, n, &in, ops))) {
      cks_step_clear(&f->step, &f->emu);
      return false;
    }
    cks_step_from_zydis(&in, ops, at, &f->step, &f->emu);
    return true;
  }

  bool Quick(const unsigned char *p, size_t n, uint64_t at, Facts *f) {
    std::memset(f, 0, sizeof *f);
    return cks_quick_decode(p, n, at, &f->step, &f->emu) != 0;
  }

  // One instruction at `p` (n bytes readable): the quick decoder agrees or
  // declines, and declines every cut of it. Its length (1 where Zydis does
  // not decode).
  size_t Check(const unsigned char *p, size_t n, uint64_t at, const std::string &where) {
    Facts z, q;
    const bool decoded = ByZydis(p, n, at, &z);
    if (decoded) total_++;
    if (Quick(p, n, at, &q)) {
      accepted_ += decoded;
      if (!(z == q) && failures_++ < 20)
        ADD_FAILURE() << where << ": " << Hex(p, decoded ? z.step.length : n)
                      << "decoded otherwise than by Zydis (length " << q.step.length << " vs "
                      << z.step.length << ", op " << int(q.emu.op) << " vs " << int(z.emu.op) << ")";
    }
    if (!decoded) return 1;
    // the instruction alone before the unreadable page, 15 bytes said
    // readable: a read past it faults (and fails the test)
    std::memcpy(edge_ - z.step.length, p, z.step.length);
    if (Quick(edge_ - z.step.length, 15, at, &q) && !(z == q) && failures_++ < 20)
      ADD_FAILURE() << where << ": " << Hex(p, z.step.length) << "decoded otherwise before an unmapped page";
    for (size_t cut = 1; cut < z.step.length; cut++)
      if (Quick(p, cut, at, &q) && failures_++ < 20)
        ADD_FAILURE() << where << ": " << Hex(p, z.step.length) << "accepted cut to " << cut << " bytes";
    return z.step.length;
  }

  ZydisDecoder dec_;
  size_t page_ = 0;
  unsigned char *edge_ = nullptr;
  long total_ = 0, accepted_ = 0, failures_ = 0;
};

struct Segment {
  std::string object;
  const unsigned char *start;
  size_t size;
};

int CollectSegment(dl_phdr_info *info, size_t, void *data) {
  auto *out = static_cast<std::vector<Segment> *>(data);
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    const char *name = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "(this test)";
    out->push_back({name, reinterpret_cast<const unsigned char *>(info->dlpi_addr + ph.p_vaddr), ph.p_filesz});
  }
  return 0;
}

TEST_F(QuickDecode, AgreesWithZydisOnEveryLoadedInstruction) {
  std::vector<Segment> segments;
  dl_iterate_phdr(CollectSegment, &segments);
  bool libc = false;
  for (const Segment &s : segments) {
    libc |= s.object.find("libc.so") != std::string::npos;
    for (size_t i = 0; i < s.size;) {
      const size_t n = s.size - i < 15 ? s.size - i : 15;
      i += Check(s.start + i, n, reinterpret_cast<uint64_t>(s.start + i),
                 s.object + "+" + std::to_string(i));
    }
  }
  EXPECT_TRUE(libc) << "libc's code was not among the objects decoded";
  ASSERT_GT(total_, 100000);
  // the common forms are most of compiled code: the quick decoder must take
  // them, or the handler pays Zydis's cold tables again
  EXPECT_GT(accepted_ * 100, total_ * 80) << accepted_ << " of " << total_ << " instructions decoded quickly";
}

TEST_F(QuickDecode, AgreesWithZydisOnRandomBytes) {
  std::mt19937_64 rng(33);
  // prefixes and escapes the quick decoder reads, so that its forms come up
  static const unsigned char kLead[] = {0x66, 0x64, 0x40, 0x41, 0x44, 0x48, 0x49, 0x4c, 0x4f, 0x0f, 0xf3, 0x2e,
                                       0x67, 0xf2, 0xf0, 0x65, 0x26, 0x36, 0x3e, 0x45, 0x4a, 0x0f};
  unsigned char buf[15];
  for (int k = 0; k < 1000000; k++) {
    for (unsigned char &b : buf) b = static_cast<unsigned char>(rng());
    const int lead = static_cast<int>(rng() % 5);
    for (int j = 0; j < lead; j++) buf[j] = kLead[rng() % sizeof kLead];
    const size_t n = 1 + rng() % 15;
    Check(buf, n, 0x7f0000001000ull + (rng() & 0xffff), "random " + Hex(buf, n));
  }
  EXPECT_GT(accepted_, 10000);
}

// Every opcode of both maps under the prefixes the quick decoder reads,
// with every ModRM and, where one follows, SIBs of each base and index
// kind (none, rsp, rbp/r13, other): forms compiled code rarely holds (lea
// rsp,[rsp+rax*1] is one) are met here whatever the libraries hold. Zydis
// is asked only where the quick decoder accepts.
TEST_F(QuickDecode, AgreesWithZydisOnEveryOpcodeModrmAndSibForm) {
  static const std::vector<std::vector<unsigned char>> kPrefixes = {
      {}, {0x66}, {0x64}, {0x48}, {0x66, 0x48}, {0x41}, {0x4c}, {0x4d}, {0x64, 0x49}, {0x66, 0x41}};
  std::vector<unsigned char> sibs;
  for (int scale : {0, 3})
    for (int index : {0, 4, 5, 7})
      for (int base : {0, 4, 5, 7}) sibs.push_back(static_cast<unsigned char>(scale << 6 | index << 3 | base));
  long accepted = 0;
  for (const auto &prefix : kPrefixes)
    for (int map = 0; map < 2; map++)
      for (int opcode = 0; opcode < 256; opcode++)
        for (int modrm = 0; modrm < 256; modrm++) {
          const bool has_sib = (modrm >> 6) != 3 && (modrm & 7) == 4;
          for (size_t k = 0; k < (has_sib ? sibs.size() : 1); k++) {
            unsigned char buf[15];
            size_t n = 0;
            for (unsigned char b : prefix) buf[n++] = b;
            if (map) buf[n++] = 0x0f;
            buf[n++] = static_cast<unsigned char>(opcode);
            buf[n++] = static_cast<unsigned char>(modrm);
            if (has_sib) buf[n++] = sibs[k];
            for (unsigned char fill = 0x81; n < sizeof buf; fill += 0x11) buf[n++] = fill;  // displacement, immediate
            Facts q, z;
            if (!Quick(buf, sizeof buf, 0x7f0000001000ull, &q)) continue;
            accepted++;
            const bool decoded = ByZydis(buf, sizeof buf, 0x7f0000001000ull, &z);
            if ((!decoded || !(z == q)) && failures_++ < 20)
              ADD_FAILURE() << Hex(buf, decoded ? z.step.length : sizeof buf) << "decoded otherwise than by Zydis";
            for (size_t cut = 1; decoded && cut < z.step.length; cut++)
              if (Quick(buf, cut, 0x7f0000001000ull, &q) && failures_++ < 20)
                ADD_FAILURE() << Hex(buf, z.step.length) << "accepted cut to " << cut << " bytes";
          }
        }
  EXPECT_GT(accepted, 100000);
}

// A branch with 0x66 and no REX.W: Zydis decodes it as Intel does (rel32,
// 8 bytes pushed), AMD's processors as rel16: single-stepped, whichever
// decoder meets it (the quick one declines it).
TEST_F(QuickDecode, BranchesWhoseLengthDependsOnTheVendorAreSingleStepped) {
  const unsigned char jne[] = {0x66, 0x0f, 0x85, 1, 0, 0, 0, 0x90};
  const unsigned char call[] = {0x66, 0xe8, 1, 0, 0, 0, 0x90};
  const unsigned char ret[] = {0x66, 0xc3, 0x90};
  const unsigned char tls_call[] = {0x66, 0x66, 0x48, 0xe8, 1, 0, 0, 0};
  Facts f;
  for (auto [p, n] : {std::pair{jne, sizeof jne}, {call, sizeof call}, {ret, sizeof ret}}) {
    ASSERT_TRUE(ByZydis(p, n, 0x1000, &f));
    EXPECT_EQ(f.step.kind, CKS_STEP_OTHER) << Hex(p, n);
    EXPECT_FALSE(Quick(p, n, 0x1000, &f)) << Hex(p, n);
  }
  ASSERT_TRUE(ByZydis(tls_call, sizeof tls_call, 0x1000, &f));
  EXPECT_EQ(f.step.kind, CKS_STEP_JUMP);
  EXPECT_EQ(f.step.rsp_delta, -8);
  EXPECT_EQ(f.step.target, 0x1009u);
}

}  // namespace
