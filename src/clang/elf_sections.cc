#include "clang/elf_sections.h"

#include <fmt/format.h>

#include <cstring>
#include <optional>

#include "clang/byte_cursor.h"

namespace covkit::clang {

namespace {

constexpr uint32_t kNoteGnuBuildId = 3;
constexpr uint16_t kShnXindex = 0xffff;

struct SectionHeader {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t flags = 0, address = 0, offset = 0, size = 0;
};

std::optional<SectionHeader> section_header(ByteCursor c, bool is64) {
  SectionHeader h;
  auto word = [&]() -> std::optional<uint64_t> {
    if (is64) return c.u64();
    auto v = c.u32();
    return v ? std::optional<uint64_t>(*v) : std::nullopt;
  };
  auto name = c.u32(), type = c.u32();
  auto flags = word(), address = word(), offset = word(), size = word();
  auto link = c.u32();
  if (!name || !type || !flags || !address || !offset || !size || !link) return std::nullopt;
  h.name = *name;
  h.type = *type;
  h.flags = *flags;
  h.address = *address;
  h.offset = *offset;
  h.size = *size;
  h.link = *link;
  return h;
}

std::string build_id_of(const ElfSection& s, bool big_endian) {
  ByteCursor n(s.bytes, big_endian);
  while (n.remaining() >= 12) {
    const uint32_t namesz = *n.u32(), descsz = *n.u32(), type = *n.u32();
    auto name = n.text(namesz);
    if (!name || !n.align(4)) return {};
    auto desc = n.bytes(descsz);
    if (!desc) return {};
    n.align(4);
    if (type == kNoteGnuBuildId && *name == std::string_view("GNU\0", 4)) {
      std::string hex;
      for (uint8_t b : *desc) hex += fmt::format("{:02x}", b);
      return hex;
    }
  }
  return {};
}

}  // namespace

std::vector<const ElfSection*> ElfImage::named(std::string_view name) const {
  std::vector<const ElfSection*> out;
  for (const ElfSection& s : sections)
    if (s.name == name) out.push_back(&s);
  return out;
}

bool looks_like_elf(std::span<const uint8_t> bytes) {
  return bytes.size() >= 16 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F';
}

Expected<ElfImage> read_elf_sections(std::span<const uint8_t> bytes) {
  if (!looks_like_elf(bytes)) return Error(0, "not an ELF file");
  ElfImage img;
  if (bytes[4] != 1 && bytes[4] != 2) return Error(4, fmt::format("ELF class {} is neither 32 nor 64 bits", bytes[4]));
  if (bytes[5] != 1 && bytes[5] != 2) return Error(5, fmt::format("ELF data encoding {} is unknown", bytes[5]));
  img.is64 = bytes[4] == 2;
  img.big_endian = bytes[5] == 2;
  ByteCursor h(bytes, img.big_endian);
  if (bytes.size() < (img.is64 ? 64u : 52u)) return Error(0, "the ELF header is cut short");
  h.seek(16);
  img.type = *h.u16();
  h.seek(img.is64 ? 0x28 : 0x20);
  const uint64_t shoff = img.is64 ? *h.u64() : *h.u32();
  h.seek(img.is64 ? 0x3a : 0x2e);
  const uint16_t shentsize = *h.u16();
  uint64_t shnum = *h.u16();
  uint32_t shstrndx = *h.u16();
  if (shoff == 0) return img;  // no section headers at all
  const uint64_t min_entsize = img.is64 ? 64 : 40;
  if (shentsize < min_entsize)
    return Error(img.is64 ? 0x3a : 0x2e, fmt::format("section headers of {} bytes", shentsize));
  auto header_at = [&](uint64_t i) -> std::optional<SectionHeader> {
    if (shoff > bytes.size() || i >= (bytes.size() - shoff) / shentsize) return std::nullopt;
    return section_header(ByteCursor(bytes.subspan(size_t(shoff + i * shentsize), shentsize), img.big_endian),
                          img.is64);
  };
  // More than 0xff00 sections: the counts are in section 0.
  if (shnum == 0 || shstrndx == kShnXindex) {
    auto first = header_at(0);
    if (!first) return Error(shoff, "the section header table lies outside the file");
    if (shnum == 0) shnum = first->size;
    if (shstrndx == kShnXindex) shstrndx = first->link;
  }
  if (shoff > bytes.size() || shnum > (bytes.size() - shoff) / shentsize)
    return Error(shoff, fmt::format("{} section headers at byte {} run past the end of the file", shnum, shoff));
  std::vector<SectionHeader> headers;
  headers.reserve(size_t(shnum));
  for (uint64_t i = 0; i < shnum; ++i) headers.push_back(*header_at(i));
  auto contents = [&](const SectionHeader& s) -> std::optional<std::span<const uint8_t>> {
    if (s.type == kShtNobits) return std::span<const uint8_t>();
    if (s.offset > bytes.size() || s.size > bytes.size() - s.offset) return std::nullopt;
    return bytes.subspan(size_t(s.offset), size_t(s.size));
  };
  std::span<const uint8_t> names;
  if (shstrndx < headers.size()) {
    auto n = contents(headers[shstrndx]);
    if (!n) return Error(shoff, "the section names run past the end of the file");
    names = *n;
  }
  for (uint64_t i = 0; i < headers.size(); ++i) {
    const SectionHeader& s = headers[i];
    ElfSection out;
    if (s.name < names.size()) {
      auto start = reinterpret_cast<const char*>(names.data()) + s.name;
      out.name.assign(start, strnlen(start, names.size() - s.name));
    }
    auto c = contents(s);
    if (!c)
      return Error(shoff + i * shentsize,
                   fmt::format("section {} ({} bytes at byte {}) runs past the end of the file", out.name, s.size,
                               s.offset));
    out.type = s.type;
    out.flags = s.flags;
    out.address = s.address;
    out.offset = s.offset;
    out.bytes = *c;
    img.sections.push_back(std::move(out));
  }
  for (const ElfSection& s : img.sections)
    if (s.type == kShtNote && img.build_id.empty()) img.build_id = build_id_of(s, img.big_endian);
  return img;
}

}  // namespace covkit::clang
