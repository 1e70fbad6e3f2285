#include "format/dwarf_alt_file.h"

#include <elfutils/libdwelf.h>

#include <utility>
#include <vector>

#include "format/elf_debug_expansion.h"
#include "util/foreign_data.h"
#include "util/hex_text.h"

namespace covkit::format {

namespace {

// libdw's mark of an alternate file looked for and not found (dwarf_getalt
// tries once, and returns none for this since elfutils 0.161): set, libdw
// opens nothing itself; dwarf_end frees only an alternate file it opened.
Dwarf* const kNoAltFile = reinterpret_cast<Dwarf*>(-1);

// libdw's places, in its order.
std::vector<std::string> alt_file_places(const char* name, const void* id, ssize_t id_size, const std::string& dir) {
  std::vector<std::string> places;
  if (id_size >= 3 && id_size <= 64) {
    const auto* bytes = static_cast<const uint8_t*>(id);
    std::string p = "/usr/lib/debug/.build-id/";
    util::append_hex(p, std::span<const uint8_t>(bytes, 1));
    p += '/';
    util::append_hex(p, std::span<const uint8_t>(bytes + 1, size_t(id_size) - 1));
    places.push_back(p + ".debug");
  }
  if (name && name[0] == '/') {
    places.emplace_back(name);
  } else if (name && name[0] && !dir.empty()) {
    places.push_back(dir.back() == '/' ? dir + name : dir + '/' + name);
  }
  return places;
}

}  // namespace

DwarfAltFile::DwarfAltFile(DwarfAltFile&& o) noexcept
    : data_(std::move(o.data_)), elf_(std::exchange(o.elf_, nullptr)), alt_(std::exchange(o.alt_, nullptr)) {}

DwarfAltFile& DwarfAltFile::operator=(DwarfAltFile&& o) noexcept {
  if (this != &o) {
    release();
    data_ = std::move(o.data_);
    elf_ = std::exchange(o.elf_, nullptr);
    alt_ = std::exchange(o.alt_, nullptr);
  }
  return *this;
}

DwarfAltFile::~DwarfAltFile() { release(); }

void DwarfAltFile::release() {
  if (alt_) dwarf_end(alt_);
  if (elf_) elf_end(elf_);
  alt_ = nullptr;
  elf_ = nullptr;
  data_ = util::FileData();
}

void DwarfAltFile::attach(Dwarf* dbg, const std::string& dir) {
  release();
  if (!dbg) return;
  const char* name = nullptr;
  const void* id = nullptr;
  const ssize_t id_size = dwelf_dwarf_gnu_debugaltlink(dbg, &name, &id);
  if (id_size <= 0) return;  // no link: libdw looks for nothing either
  for (const std::string& place : alt_file_places(name, id, id_size, dir)) {
    auto file = util::read_named_file(place);
    if (!file) continue;
    const std::span<const uint8_t> bytes = file->bytes();
    Elf* elf = elf_memory(const_cast<char*>(reinterpret_cast<const char*>(bytes.data())), bytes.size());
    if (!elf) continue;
    Dwarf* alt = debug_expansion_past_bound(elf) ? nullptr : dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
    if (!alt) {
      elf_end(elf);
      continue;
    }
    // Its own link is followed by none (libdw follows one level only).
    dwarf_setalt(alt, kNoAltFile);
    data_ = std::move(*file);
    elf_ = elf;
    alt_ = alt;
    dwarf_setalt(dbg, alt_);
    return;
  }
  dwarf_setalt(dbg, kNoAltFile);
}

}  // namespace covkit::format
