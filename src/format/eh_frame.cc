#include "format/eh_frame.h"

#include <gelf.h>

#include <cstring>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

namespace covkit::format {

namespace {

// DW_EH_PE_* (LSB): the low nibble is the value's format, bits 4-6 what it
// is relative to, bit 7 an indirection through memory.
constexpr uint8_t kOmit = 0xff, kIndirect = 0x80;
constexpr uint8_t kAbsptr = 0x00, kUleb = 0x01, kUdata2 = 0x02, kUdata4 = 0x03, kUdata8 = 0x04, kSigned = 0x08,
                  kSleb = 0x09, kSdata2 = 0x0a, kSdata4 = 0x0b, kSdata8 = 0x0c;
constexpr uint8_t kPcrel = 0x10, kTextrel = 0x20, kDatarel = 0x30, kAligned = 0x50;

// A bounds-checked little-endian cursor over [pos, end) of the section; a
// failed read leaves `ok` false and everything after it returns 0.
struct EhCursor {
  std::span<const uint8_t> bytes;
  size_t pos = 0, end = 0;
  bool ok = true;

  bool need(size_t n) {
    if (!ok || pos > end || end - pos < n) return ok = false;
    return true;
  }
  uint64_t fixed(size_t n) {
    if (!need(n)) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(bytes[pos + i]) << (8 * i);
    pos += n;
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0; need(1); shift += 7) {
      uint8_t b = bytes[pos++];
      if (shift >= 64 || (shift == 63 && (b & 0x7e))) return ok = false, 0;  // more than 64 bits
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    return 0;
  }
  int64_t sleb() {
    uint64_t v = 0;
    unsigned shift = 0;
    for (; need(1); shift += 7) {
      uint8_t b = bytes[pos++];
      if (shift >= 64) return ok = false, 0;
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        shift += 7;
        if (shift < 64 && (b & 0x40)) v |= ~uint64_t(0) << shift;
        return int64_t(v);
      }
    }
    return 0;
  }
  std::string cstring() {
    size_t start = pos;
    while (need(1) && bytes[pos] != 0) ++pos;
    if (!need(1)) return {};
    ++pos;
    return std::string(reinterpret_cast<const char*>(bytes.data()) + start, pos - start - 1);
  }
};

struct CieInfo {
  uint8_t fde_encoding = kAbsptr;  // 'R'
  bool has_augmentation_data = false;  // 'z': FDEs carry a length-prefixed block too
};

// One record's frame: where its length field, id field and body end lie.
struct RecordBounds {
  size_t start = 0, id_pos = 0, end = 0;
  bool wide = false;  // 64-bit DWARF format (length 0xffffffff then a u64)
  uint64_t id = 0;
  bool terminator = false;
};

class EhFrameParser {
 public:
  // `by_address`: errors name virtual addresses (the bytes are a segment,
  // not the section, so an offset in them would mislead).
  EhFrameParser(std::span<const uint8_t> bytes, const EhFrameBases& bases, bool by_address = false)
      : bytes_(bytes), bases_(bases), by_address_(by_address) {}

  // Every record from `start` to the terminator or the end of the bytes.
  Expected<std::vector<FdeRange>> run(size_t start = 0) {
    std::vector<FdeRange> out;
    for (size_t at = start; at < bytes_.size();) {
      Expected<RecordBounds> r = record(at);
      if (!r) return r.error();
      if (r->terminator) break;
      if (r->id != 0) {
        Expected<std::optional<FdeRange>> fde = read_fde(*r);
        if (!fde) return fde.error();
        if (*fde) out.push_back(**fde);
      }
      at = r->end;
    }
    return out;
  }

  // The FDE of the record at `at` (nullopt when its range is empty).
  Expected<std::optional<FdeRange>> fde_at(size_t at) {
    Expected<RecordBounds> r = record(at);
    if (!r) return r.error();
    if (r->terminator || r->id == 0) return damaged(at, ".eh_frame_hdr's table names a record that is not an FDE");
    return read_fde(*r);
  }

  // Reads a DW_EH_PE value of .eh_frame_hdr (whose own bytes `c` walks;
  // datarel there is relative to the header's start).
  std::optional<uint64_t> hdr_pointer(EhCursor& c, uint8_t enc) { return read_pointer(c, enc); }

 private:
  Error damaged(size_t offset, const std::string& what) const {
    // The offset is in the message: Error::offset would count from the file's start.
    if (by_address_)
      return Error(fmt::format(".eh_frame is damaged at address {:#x}: {}", bases_.section + offset, what));
    return Error(fmt::format(".eh_frame is damaged at offset {:#x}: {}", offset, what));
  }

  Expected<RecordBounds> record(size_t at) const {
    EhCursor c{bytes_, at, bytes_.size()};
    RecordBounds r;
    r.start = at;
    uint64_t length = c.fixed(4);
    if (!c.ok) return damaged(at, "a record's length is cut off");
    if (length == 0) {
      r.terminator = true;
      return r;
    }
    if (length == 0xffffffff) {
      r.wide = true;
      length = c.fixed(8);
      if (!c.ok) return damaged(at, "a record's 64-bit length is cut off");
    }
    if (length > bytes_.size() - c.pos)
      return damaged(at, fmt::format("a record's length ({} bytes) runs past the end of the section ({} bytes)",
                                     length, bytes_.size()));
    r.end = c.pos + size_t(length);
    r.id_pos = c.pos;
    c.end = r.end;
    r.id = c.fixed(r.wide ? 8 : 4);
    if (!c.ok) return damaged(at, "a record is too short to hold its CIE id");
    return r;
  }

  Expected<CieInfo> cie_at(size_t at) {
    if (auto it = cies_.find(at); it != cies_.end()) return it->second;
    Expected<RecordBounds> r = record(at);
    if (!r) return r.error();
    if (r->terminator || r->id != 0) return damaged(at, "an FDE's CIE pointer does not point at a CIE");
    EhCursor c{bytes_, r->id_pos + (r->wide ? 8 : 4), r->end};
    CieInfo cie;
    uint8_t version = uint8_t(c.fixed(1));
    if (c.ok && version != 1 && version != 3 && version != 4)
      return damaged(at, fmt::format("CIE version {} is not 1, 3 or 4", version));
    std::string aug = c.cstring();
    size_t ehpos = 0;
    if (aug.starts_with("eh")) {  // an old gcc's eh_data pointer
      c.fixed(8);
      ehpos = 2;
    }
    if (version == 4) c.fixed(2);  // address size, segment selector size
    c.uleb();                      // code alignment
    c.sleb();                      // data alignment
    if (version == 1) c.fixed(1); else c.uleb();  // return address register
    if (!c.ok) return damaged(at, "a CIE is cut off before its augmentation");
    if (aug.size() > ehpos && aug[ehpos] != 'z')
      return damaged(at, fmt::format("CIE augmentation \"{}\" is unknown (its FDEs cannot be read)", aug));
    if (aug.size() > ehpos) {
      cie.has_augmentation_data = true;
      uint64_t len = c.uleb();
      if (!c.ok || len > c.end - c.pos) return damaged(at, "a CIE's augmentation data runs past its end");
      c.end = c.pos + size_t(len);
      for (size_t i = ehpos + 1; i < aug.size() && c.ok; ++i) {
        char a = aug[i];
        if (a == 'R') {
          cie.fde_encoding = uint8_t(c.fixed(1));
        } else if (a == 'L') {
          c.fixed(1);
        } else if (a == 'P') {
          // The personality routine's address: only skipped, so its
          // indirection and relation do not matter, its size does.
          uint8_t enc = uint8_t(c.fixed(1));
          if ((enc & 0x70) == kAligned) c.pos += (8 - (bases_.section + c.pos) % 8) % 8;
          if (c.ok && !read_pointer(c, uint8_t(enc & 0x0f), true))
            return damaged(at, fmt::format("personality encoding {:#x} is unknown", enc));
        } else if (a != 'S' && a != 'B' && a != 'G') {
          break;  // vendor letters we do not know: 'z''s length lets us skip the rest
        }
      }
      if (!c.ok) return damaged(at, "a CIE's augmentation data is cut off");
    }
    cies_[at] = cie;
    return cie;
  }

  // A DW_EH_PE-encoded value at c.pos, absolute where the encoding is
  // relative to the section, the text or the data; nullopt for an encoding
  // that is unknown or cannot locate code (funcrel, indirect, omit).
  std::optional<uint64_t> read_pointer(EhCursor& c, uint8_t enc, bool value_only = false) {
    if (enc == kOmit || (enc & kIndirect)) return std::nullopt;
    uint64_t field = bases_.section + c.pos, base = 0;
    uint8_t app = value_only ? 0 : uint8_t(enc & 0x70);
    switch (app) {
      case 0: break;
      case kPcrel: base = field; break;
      case kTextrel: base = bases_.text; break;
      case kDatarel: base = bases_.data; break;
      case kAligned: c.pos += (8 - (bases_.section + c.pos) % 8) % 8; break;
      default: return std::nullopt;
    }
    uint64_t v = 0;
    switch (enc & 0x0f) {
      case kAbsptr: case kSigned: case kUdata8: case kSdata8: v = c.fixed(8); break;
      case kUleb: v = c.uleb(); break;
      case kSleb: v = uint64_t(c.sleb()); break;
      case kUdata2: v = c.fixed(2); break;
      case kSdata2: v = uint64_t(int64_t(int16_t(c.fixed(2)))); break;
      case kUdata4: v = c.fixed(4); break;
      case kSdata4: v = uint64_t(int64_t(int32_t(c.fixed(4)))); break;
      default: return std::nullopt;
    }
    return base + v;  // wraps as the unwinder's arithmetic does
  }

  Expected<std::optional<FdeRange>> read_fde(const RecordBounds& r) {
    // The id is the distance from the id field back to the CIE.
    if (r.id > r.id_pos)
      return damaged(r.start, fmt::format("an FDE's CIE pointer ({:#x}) points before the section", r.id));
    Expected<CieInfo> cie = cie_at(r.id_pos - size_t(r.id));
    if (!cie) return cie.error();
    EhCursor c{bytes_, r.id_pos + (r.wide ? 8 : 4), r.end};
    std::optional<uint64_t> start = read_pointer(c, cie->fde_encoding);
    if (!start && c.ok)
      return damaged(r.start, fmt::format("FDE pointer encoding {:#x} is not supported", cie->fde_encoding));
    std::optional<uint64_t> size = read_pointer(c, uint8_t(cie->fde_encoding & 0x0f), true);
    if (!c.ok || !size) return damaged(r.start, "an FDE is cut off before the end of its address range");
    if (*size == 0) return std::optional<FdeRange>{};
    if (*start + *size < *start) return damaged(r.start, "an FDE's address range wraps around the address space");
    return std::optional<FdeRange>{FdeRange{*start, *size}};
  }

  std::span<const uint8_t> bytes_;
  EhFrameBases bases_;
  bool by_address_ = false;
  std::map<size_t, CieInfo> cies_;
};

}  // namespace

Expected<std::vector<FdeRange>> parse_eh_frame(std::span<const uint8_t> bytes, const EhFrameBases& bases) {
  return EhFrameParser(bytes, bases).run();
}

Expected<std::vector<FdeRange>> parse_eh_frame_hdr(std::span<const uint8_t> segment, uint64_t segment_vaddr,
                                                   uint64_t hdr_vaddr) {
  auto bad = [](const std::string& what) { return Error(".eh_frame_hdr is damaged: " + what); };
  if (hdr_vaddr < segment_vaddr || hdr_vaddr - segment_vaddr >= segment.size())
    return bad("it lies outside its segment");
  // Pointers in the header: pcrel from the segment's bytes, datarel from the header.
  EhFrameParser p(segment, {segment_vaddr, 0, hdr_vaddr}, true);
  EhCursor c{segment, size_t(hdr_vaddr - segment_vaddr), segment.size()};
  uint8_t version = uint8_t(c.fixed(1)), ptr_enc = uint8_t(c.fixed(1)), count_enc = uint8_t(c.fixed(1)),
          table_enc = uint8_t(c.fixed(1));
  if (!c.ok) return bad("its header is cut off");
  if (version != 1) return bad(fmt::format("version {} is not 1", version));
  std::optional<uint64_t> eh_frame = p.hdr_pointer(c, ptr_enc);
  if (!c.ok || !eh_frame || *eh_frame < segment_vaddr || *eh_frame - segment_vaddr >= segment.size())
    return bad("its .eh_frame pointer does not point into the segment");
  std::optional<uint64_t> count = count_enc == kOmit ? std::nullopt : p.hdr_pointer(c, count_enc);
  if (!count || table_enc == kOmit) return p.run(size_t(*eh_frame - segment_vaddr));  // no table: walk
  if (!c.ok) return bad("its FDE count is cut off");
  std::vector<FdeRange> out;
  for (uint64_t i = 0; i < *count; ++i) {  // each entry takes bytes: a hostile count ends at the cut
    p.hdr_pointer(c, table_enc);            // the initial location: the FDE says it too
    std::optional<uint64_t> fde = p.hdr_pointer(c, table_enc);
    if (!c.ok || !fde) return bad(fmt::format("its table is cut off at entry {} of {}", i, *count));
    if (*fde < segment_vaddr || *fde - segment_vaddr >= segment.size())
      return bad(fmt::format("table entry {} points outside the segment", i));
    Expected<std::optional<FdeRange>> r = p.fde_at(size_t(*fde - segment_vaddr));
    if (!r) return r.error();
    if (*r) out.push_back(**r);
  }
  return out;
}

namespace {

// Without section headers: the PT_GNU_EH_FRAME segment (.eh_frame_hdr) and
// the loadable segment holding it, where .eh_frame lies too.
Expected<EhFrameFunctions> eh_frame_from_program_headers(Elf* elf) {
  EhFrameFunctions out;
  size_t phnum = 0, file_size = 0;
  const char* raw = elf_rawfile(elf, &file_size);
  if (!raw || elf_getphdrnum(elf, &phnum) != 0) return out;
  std::optional<GElf_Phdr> hdr;
  std::vector<GElf_Phdr> loads;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf, int(i), &ph)) continue;
    if (ph.p_type == PT_GNU_EH_FRAME && ph.p_filesz > 0) hdr = ph;
    if (ph.p_type == PT_LOAD) loads.push_back(ph);
  }
  if (!hdr) return out;
  for (const GElf_Phdr& l : loads) {
    if (hdr->p_vaddr < l.p_vaddr || hdr->p_vaddr - l.p_vaddr >= l.p_filesz) continue;
    if (l.p_offset > file_size || l.p_filesz > file_size - l.p_offset)
      return Error("the segment holding .eh_frame_hdr lies beyond the end of the file");
    out.present = true;
    auto ranges = parse_eh_frame_hdr({reinterpret_cast<const uint8_t*>(raw) + l.p_offset, l.p_filesz}, l.p_vaddr,
                                     hdr->p_vaddr);
    if (!ranges) return ranges.error();
    out.ranges = std::move(*ranges);
    return out;
  }
  return out;
}

}  // namespace

Expected<EhFrameFunctions> read_eh_frame_functions(Elf* elf) {
  EhFrameFunctions out;
  size_t shstrndx = 0, shnum = 0;
  if (elf_getshdrnum(elf, &shnum) != 0 || shnum == 0) return eh_frame_from_program_headers(elf);
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return out;
  EhFrameBases bases;
  Elf_Data* eh = nullptr;
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!name) continue;
    if (std::strcmp(name, ".got") == 0 && !bases.data) bases.data = sh.sh_addr;
    if (std::strcmp(name, ".got.plt") == 0) bases.data = sh.sh_addr;  // what DT_PLTGOT names
    if (std::strcmp(name, ".text") == 0) bases.text = sh.sh_addr;
    if (std::strcmp(name, ".eh_frame") == 0 && sh.sh_type == SHT_PROGBITS && !eh) {
      eh = elf_getdata(scn, nullptr);
      if (!eh) return Error(fmt::format(".eh_frame cannot be read: {}", elf_errmsg(-1)));
      bases.section = sh.sh_addr;
    }
  }
  if (!eh || !eh->d_buf || eh->d_size == 0) return out;
  out.present = true;
  auto ranges = parse_eh_frame({static_cast<const uint8_t*>(eh->d_buf), eh->d_size}, bases);
  if (!ranges) return ranges.error();
  out.ranges = std::move(*ranges);
  return out;
}

}  // namespace covkit::format
