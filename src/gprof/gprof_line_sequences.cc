#include "gprof/gprof_line_sequences.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include <cstring>
#include <span>
#include <string_view>

namespace covkit::trace {

namespace {

// Bounds-checked little-endian reads (x86-64's .debug_line); a read past
// the end sets `ok` false and returns 0.
class LineReader {
 public:
  LineReader(const uint8_t* p, const uint8_t* end) : p_(p), end_(end) {}
  bool ok() const { return ok_; }
  const uint8_t* at() const { return p_; }
  void seek(const uint8_t* to) {
    if (to < p_ || to > end_) ok_ = false;
    else p_ = to;
  }
  void limit(const uint8_t* end) {
    if (end > end_ || end < p_) ok_ = false;
    else end_ = end;
  }
  bool done() const { return !ok_ || p_ >= end_; }
  uint64_t fixed(size_t n) {
    if (n > 8 || size_t(end_ - p_) < n) {
      ok_ = false;
      return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(p_[i]) << (8 * i);
    p_ += n;
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (p_ >= end_ || shift > 63) {
        ok_ = false;
        return 0;
      }
      const uint8_t b = *p_++;
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  }
  int64_t sleb() {
    int64_t v = 0;
    unsigned shift = 0;
    uint8_t b = 0;
    do {
      if (p_ >= end_ || shift > 63) {
        ok_ = false;
        return 0;
      }
      b = *p_++;
      v |= int64_t(b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= -(int64_t(1) << shift);
    return v;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

// .debug_line's bytes.
std::span<const uint8_t> debug_line(Dwarf* dwarf) {
  Elf* elf = dwarf_getelf(dwarf);
  size_t shstrndx = 0;
  if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) return {};
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!name || std::string_view(name) != ".debug_line") continue;
    // libdw expanded a compressed section when it read it; if not, do it.
    if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) return {};
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) return {};
    return {static_cast<const uint8_t*>(data->d_buf), data->d_size};
  }
  return {};
}

enum : uint8_t {
  kCopy = 1, kAdvancePc, kAdvanceLine, kSetFile, kSetColumn, kNegateStmt, kSetBasicBlock, kConstAddPc,
  kFixedAdvancePc, kSetPrologueEnd, kSetEpilogueBegin, kSetIsa,
};
enum : uint8_t { kEndSequence = 1, kSetAddress = 2 };

}  // namespace

std::optional<GprofLineProgram> read_line_program(Dwarf* dwarf, Dwarf_Die* cu) {
  Dwarf_Attribute attr;
  Dwarf_Word offset = 0;
  if (!dwarf_attr(cu, DW_AT_stmt_list, &attr) || dwarf_formudata(&attr, &offset) != 0) return std::nullopt;
  const std::span<const uint8_t> section = debug_line(dwarf);
  if (offset >= section.size()) return std::nullopt;
  LineReader r(section.data() + offset, section.data() + section.size());
  uint64_t unit_length = r.fixed(4);
  size_t offset_size = 4;
  if (unit_length == 0xffffffff) {
    unit_length = r.fixed(8);
    offset_size = 8;
  }
  if (!r.ok() || unit_length > uint64_t(section.data() + section.size() - r.at())) return std::nullopt;
  r.limit(r.at() + unit_length);
  GprofLineProgram program;
  program.version = unsigned(r.fixed(2));
  if (program.version < 2 || program.version > 5) return std::nullopt;
  unsigned address_size = 8;
  if (program.version >= 5) {
    address_size = unsigned(r.fixed(1));
    r.fixed(1);  // segment selector size
  }
  const uint64_t header_length = r.fixed(offset_size);
  const uint8_t* program_start = r.at() + header_length;
  const unsigned min_inst = unsigned(r.fixed(1));
  if (program.version >= 4) r.fixed(1);  // maximum operations per instruction (1 on x86)
  const bool default_is_stmt = r.fixed(1) != 0;
  (void)default_is_stmt;
  const int line_base = int8_t(r.fixed(1));
  const unsigned line_range = unsigned(r.fixed(1));
  const unsigned opcode_base = unsigned(r.fixed(1));
  if (!r.ok() || line_range == 0 || opcode_base == 0) return std::nullopt;
  std::vector<unsigned> operands(opcode_base, 0);
  for (unsigned i = 1; i < opcode_base; ++i) operands[i] = unsigned(r.fixed(1));
  if (header_length > uint64_t(section.data() + section.size() - r.at())) return std::nullopt;
  r.seek(program_start);

  uint64_t addr = 0;
  uint32_t file = 1;
  int64_t line = 1;
  bool file_set = false;
  GprofLineSequence seq;
  auto emit = [&] {
    if (seq.rows.empty()) seq.start = addr;
    seq.rows.push_back({addr, file, int(line), !file_set});
  };
  while (!r.done()) {
    const unsigned op = unsigned(r.fixed(1));
    if (op >= opcode_base) {
      const unsigned adjusted = op - opcode_base;
      addr += uint64_t(adjusted / line_range) * min_inst;
      line += line_base + int(adjusted % line_range);
      emit();
      continue;
    }
    switch (op) {
      case 0: {  // extended
        const uint64_t len = r.uleb();
        const uint8_t* next = r.at() + len;
        if (len == 0 || len > uint64_t(section.data() + section.size() - r.at())) return std::nullopt;
        const unsigned sub = unsigned(r.fixed(1));
        if (sub == kEndSequence) {
          if (seq.rows.empty()) seq.start = addr;
          seq.end = addr;
          program.sequences.push_back(std::move(seq));
          seq = GprofLineSequence{};
          addr = 0;
          file = 1;
          line = 1;
          file_set = false;
        } else if (sub == kSetAddress) {
          addr = r.fixed(program.version >= 5 ? address_size : size_t(len - 1));
        }
        r.seek(next);
        break;
      }
      case kCopy: emit(); break;
      case kAdvancePc: addr += r.uleb() * min_inst; break;
      case kAdvanceLine: line += r.sleb(); break;
      case kSetFile:
        file = uint32_t(r.uleb());
        file_set = true;
        break;
      case kConstAddPc: addr += uint64_t((255 - opcode_base) / line_range) * min_inst; break;
      case kFixedAdvancePc: addr += r.fixed(2); break;
      default:  // the others change nothing a lookup needs; skip their operands
        for (unsigned i = 0; i < operands[op]; ++i) r.uleb();
        break;
    }
  }
  if (!r.ok()) return std::nullopt;
  return program;
}

}  // namespace covkit::trace
