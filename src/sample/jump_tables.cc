#include "sample/jump_tables.h"

#include <capstone/x86.h>

#include <algorithm>
#include <cstring>

namespace covkit::sample {

namespace {

// How far back the patterns look: gcc keeps the compare, the table load
// and the jump within a few instructions.
constexpr size_t kWindow = 24;
// Beyond this many entries a "bound" is more likely a misread than a switch.
constexpr uint64_t kMaxEntries = 4096;

bool is_reg(const Operand& o, int canonical) {
  return o.kind == Operand::kReg && canonical_register(o.reg) == canonical;
}

// Entries the table has: from `cmp idx, N` followed by ja (idx <= N) or jae
// (idx < N), the nearest such pair before the jump.
std::optional<uint64_t> table_size(const std::vector<DecodedInsn>& insns, size_t jump, int index_reg) {
  size_t first = jump > kWindow ? jump - kWindow : 0;
  for (size_t i = jump; i-- > first + 1;) {
    const DecodedInsn& j = insns[i];
    // gcc copies the index after the compare (mov %edi,%edx): follow the
    // copy back to the register that was compared.
    bool copy = (j.id == X86_INS_MOV || j.id == X86_INS_MOVZX || j.id == X86_INS_MOVSXD) && j.op_count == 2 &&
                is_reg(j.ops[0], index_reg) && j.ops[1].kind == Operand::kReg;
    if (copy) index_reg = canonical_register(j.ops[1].reg);
    if (j.flow != Flow::cond_jump || (j.id != X86_INS_JA && j.id != X86_INS_JAE)) continue;
    const DecodedInsn& c = insns[i - 1];
    if (c.id != X86_INS_CMP || c.op_count != 2 || !is_reg(c.ops[0], index_reg) || c.ops[1].kind != Operand::kImm)
      return std::nullopt;
    if (c.ops[1].imm < 0) return std::nullopt;
    uint64_t n = uint64_t(c.ops[1].imm) + (j.id == X86_INS_JA ? 1 : 0);
    if (n == 0 || n > kMaxEntries) return std::nullopt;
    return n;
  }
  return std::nullopt;
}

template <typename T>
std::optional<T> read(const BinaryImage& image, uint64_t vaddr) {
  auto bytes = image.bytes_at(vaddr, sizeof(T));
  if (bytes.empty()) return std::nullopt;
  T v;
  std::memcpy(&v, bytes.data(), sizeof v);  // x86-64 is little-endian, as the file
  return v;
}

std::optional<std::vector<uint64_t>> collect(std::vector<uint64_t> targets, uint64_t lo, uint64_t hi) {
  std::vector<uint64_t> out;
  for (uint64_t t : targets) {
    if (t < lo || t >= hi) return std::nullopt;
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  }
  return out;
}

// jmp *table(,%idx,8)
std::optional<std::vector<uint64_t>> absolute_table(const BinaryImage& image, const std::vector<DecodedInsn>& insns,
                                                    size_t jump, uint64_t lo, uint64_t hi) {
  const Operand& m = insns[jump].ops[0];
  if (m.base != X86_REG_INVALID || m.index == X86_REG_INVALID || m.scale != 8) return std::nullopt;
  auto n = table_size(insns, jump, canonical_register(m.index));
  if (!n) return std::nullopt;
  std::vector<uint64_t> targets;
  for (uint64_t i = 0; i < *n; ++i) {
    auto e = read<uint64_t>(image, uint64_t(m.disp) + 8 * i);
    if (!e) return std::nullopt;
    targets.push_back(*e);
  }
  return collect(std::move(targets), lo, hi);
}

// lea table(%rip),%t; movslq (%t,%idx,4),%x; add %t,%x; jmp *%x
std::optional<std::vector<uint64_t>> relative_table(const BinaryImage& image, const std::vector<DecodedInsn>& insns,
                                                    size_t jump, uint64_t lo, uint64_t hi) {
  int x = canonical_register(insns[jump].ops[0].reg);
  size_t first = jump > kWindow ? jump - kWindow : 0;
  int table_reg = 0, index_reg = 0;
  std::optional<uint64_t> table;
  size_t i = jump;
  // The add that forms the target, then the load of the entry, then the lea.
  while (i-- > first) {
    const DecodedInsn& a = insns[i];
    if (a.id == X86_INS_ADD && a.op_count == 2 && is_reg(a.ops[0], x) && a.ops[1].kind == Operand::kReg) {
      table_reg = canonical_register(a.ops[1].reg);
      break;
    }
  }
  if (!table_reg) return std::nullopt;
  while (i-- > first) {
    const DecodedInsn& l = insns[i];
    if (l.id == X86_INS_MOVSXD && l.op_count == 2 && is_reg(l.ops[0], x) && l.ops[1].kind == Operand::kMem &&
        canonical_register(l.ops[1].base) == table_reg && l.ops[1].scale == 4 && l.ops[1].disp == 0) {
      index_reg = canonical_register(l.ops[1].index);
      break;
    }
  }
  if (!index_reg) return std::nullopt;
  // The lea may come before or after the load.
  for (size_t k = jump; k-- > first;) {
    const DecodedInsn& e = insns[k];
    if (e.id == X86_INS_LEA && e.op_count == 2 && is_reg(e.ops[0], table_reg) && e.ops[1].kind == Operand::kMem &&
        e.ops[1].base == X86_REG_RIP && e.ops[1].index == X86_REG_INVALID) {
      table = e.next() + uint64_t(e.ops[1].disp);
      break;
    }
  }
  if (!table) return std::nullopt;
  auto n = table_size(insns, jump, index_reg);
  if (!n) return std::nullopt;
  std::vector<uint64_t> targets;
  for (uint64_t k = 0; k < *n; ++k) {
    auto e = read<int32_t>(image, *table + 4 * k);
    if (!e) return std::nullopt;
    targets.push_back(*table + uint64_t(int64_t(*e)));
  }
  return collect(std::move(targets), lo, hi);
}

}  // namespace

std::optional<std::vector<uint64_t>> resolve_jump_table(const BinaryImage& image,
                                                        const std::vector<DecodedInsn>& insns, size_t jump,
                                                        uint64_t lo, uint64_t hi) {
  const DecodedInsn& j = insns[jump];
  if (j.flow != Flow::indirect_jump || j.op_count != 1) return std::nullopt;
  if (j.ops[0].kind == Operand::kMem) return absolute_table(image, insns, jump, lo, hi);
  if (j.ops[0].kind == Operand::kReg) return relative_table(image, insns, jump, lo, hi);
  return std::nullopt;
}

}  // namespace covkit::sample
