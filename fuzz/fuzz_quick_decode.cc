// Fuzzes block stepping's quick decoder (src/runtime/sample/quick_decode.c),
// which reads the code bytes of the program the runtime is preloaded into
// (hostile: JIT code, data jumped into, bytes cut short by the end of a
// mapping) against Zydis, the oracle: whatever it accepts must be exactly
// what step_decode.c makes of Zydis's full decoding (the step's facts and
// the interpreter's decoding), it must decline every cut of it, and it must
// read no byte past an instruction's own even when told 15 are readable.
// Input: [readable bytes - 1 : 1 byte, % 15][instruction bytes]; the address
// is fixed. No input may crash, read past the bytes given, or disagree.
#include <Zydis/Zydis.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "step_decode.h"

namespace {

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "fuzz_quick_decode: %s\n", what);
  std::abort();
}

bool same(const cks_step_insn &a, const cks_emu_insn &ea, const cks_step_insn &b, const cks_emu_insn &eb) {
  if (a.kind != b.kind || a.length != b.length || a.rsp_delta != b.rsp_delta || a.target != b.target || a.cc != b.cc ||
      a.stack_write != b.stack_write || a.write_disp != b.write_disp || a.write_size != b.write_size ||
      ea.op != eb.op || ea.length != eb.length)
    return false;
  return ea.op == CKS_EMU_NONE || std::memcmp(&ea, &eb, sizeof ea) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  const size_t readable = 1 + data[0] % 15;
  if (size - 1 < readable) return 0;
  // exactly `readable` bytes of its own, so that ASan sees a read past them
  unsigned char *bytes = static_cast<unsigned char *>(std::malloc(readable));
  std::memcpy(bytes, data + 1, readable);
  static ZydisDecoder dec;
  static bool ready = ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64));
  if (!ready) fail("ZydisDecoderInit failed");
  const uint64_t at = 0x7f0000001000ull;
  cks_step_insn qs, zs;
  cks_emu_insn qe, ze;
  std::memset(&qs, 0, sizeof qs), std::memset(&zs, 0, sizeof zs);
  std::memset(&qe, 0, sizeof qe), std::memset(&ze, 0, sizeof ze);
  ZydisDecodedInstruction in;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  const bool decoded = ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, bytes, readable, &in, ops));
  if (decoded) cks_step_from_zydis(&in, ops, at, &zs, &ze);
  if (cks_quick_decode(bytes, readable, at, &qs, &qe)) {
    if (!decoded) fail("accepted what Zydis does not decode");
    if (!same(zs, ze, qs, qe)) fail("decoded otherwise than by Zydis");
    for (size_t cut = 1; cut < qs.length; cut++)
      if (cks_quick_decode(bytes, cut, at, &qs, &qe)) fail("accepted an instruction cut short");
  }
  if (decoded) {
    // the instruction's own bytes only, 15 said readable (block stepping's
    // call for the instruction the thread stands at): ASan sees a read past
    unsigned char *own = static_cast<unsigned char *>(std::malloc(in.length));
    std::memcpy(own, bytes, in.length);
    if (cks_quick_decode(own, 15, at, &qs, &qe) && !same(zs, ze, qs, qe)) fail("decoded otherwise given 15 bytes");
    std::free(own);
  }
  std::free(bytes);
  return 0;
}
