// format::DwarfAltFile on a real program whose unit's directory is a string
// of a dwz file (DW_FORM_strp_sup, into the file .gnu_debugaltlink names):
// found and read when the link names an ELF file, none (and no wait) when it
// names a FIFO, where libdw's own open(2) blocked for good.
#include <gtest/gtest.h>
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "format/dwarf_alt_file.h"
#include "test_support.h"

namespace covkit::format {
namespace dwarf_alt_file_test {

using testing::run_command;
using testing::TempDir;

struct Section {
  size_t offset = 0, size = 0;
};

// The section `name` of the ELF file `bytes`, as its headers place it.
std::optional<Section> section_of(std::vector<uint8_t>& bytes, const char* name) {
  elf_version(EV_CURRENT);
  Elf* elf = elf_memory(reinterpret_cast<char*>(bytes.data()), bytes.size());
  size_t names = 0;
  std::optional<Section> found;
  if (elf && elf_getshdrstrndx(elf, &names) == 0)
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn && !found; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr sh;
      const char* n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, names, sh.sh_name) : nullptr;
      if (n && std::strcmp(n, name) == 0) found = Section{size_t(sh.sh_offset), size_t(sh.sh_size)};
    }
  if (elf) elf_end(elf);
  return found;
}

size_t find(const std::vector<uint8_t>& bytes, Section in, const std::vector<uint8_t>& what) {
  auto it = std::search(bytes.begin() + long(in.offset), bytes.begin() + long(in.offset + in.size), what.begin(),
                        what.end());
  return it == bytes.begin() + long(in.offset + in.size) ? SIZE_MAX : size_t(it - bytes.begin());
}

std::vector<uint8_t> le32(uint32_t v) { return {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)}; }

// The comp_dir of the first unit of the program at `path`, read with the
// alternate file DwarfAltFile settles; `found`: whether it found one.
std::optional<std::string> comp_dir_through_alt(const std::string& path, bool& found) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  Dwarf* dwarf = elf ? dwarf_begin_elf(elf, DWARF_C_READ, nullptr) : nullptr;
  std::optional<std::string> dir;
  {
    DwarfAltFile alt;
    alt.attach(dwarf, "");
    found = alt.found();
    Dwarf_Off next = 0;
    size_t header = 0;
    Dwarf_Die cu;
    Dwarf_Attribute attr;
    if (dwarf && dwarf_nextcu(dwarf, 0, &next, &header, nullptr, nullptr, nullptr) == 0 &&
        dwarf_offdie(dwarf, header, &cu) && dwarf_attr(&cu, DW_AT_comp_dir, &attr)) {
      const char* s = dwarf_formstring(&attr);
      dir = s ? s : "";
    }
    if (dwarf) dwarf_end(dwarf);
  }
  if (elf) elf_end(elf);
  close(fd);
  return dir;
}

TEST(DwarfAltFile, StringsOfTheLinkedFileOrNoneForAFifo) {
  if (!testing::have_program("gcc-12") || !testing::have_program("objcopy")) GTEST_SKIP() << "gcc-12 or objcopy missing";
  TempDir t;
  std::string out;
  ASSERT_TRUE(testing::write_text(t / "p.c", "int work(int x) { return x * 3; }\nint main(void) { return work(1); }\n"));
  ASSERT_TRUE(testing::write_text(t / "alt.c", "int alt_marker_function(int x) { return x; }\nint main(void) { return 0; }\n"));
  ASSERT_EQ(run_command("cd '" + t.path() + "' && gcc-12 -O0 -g -o p p.c && gcc-12 -O0 -g -o alt alt.c", &out), 0)
      << out;
  // The unit's DW_AT_comp_dir (0x1b) in DW_FORM_line_strp (0x1f) becomes
  // DW_FORM_strp_sup (0x1d), its offset the marker's in alt's .debug_str.
  std::vector<uint8_t> alt = testing::read_bytes(t / "alt");
  const auto alt_str = section_of(alt, ".debug_str");
  ASSERT_TRUE(alt_str);
  const std::string marker = "alt_marker_function";
  std::vector<uint8_t> marker_bytes(marker.begin(), marker.end());
  marker_bytes.push_back(0);
  const size_t marker_at = find(alt, *alt_str, marker_bytes);
  ASSERT_NE(marker_at, SIZE_MAX);
  std::vector<uint8_t> p = testing::read_bytes(t / "p");
  const auto abbrev = section_of(p, ".debug_abbrev"), info = section_of(p, ".debug_info"),
             line_str = section_of(p, ".debug_line_str");
  ASSERT_TRUE(abbrev && info && line_str);
  const size_t form = find(p, *abbrev, {0x1b, 0x1f});
  ASSERT_NE(form, SIZE_MAX);
  p[form + 1] = 0x1d;
  std::vector<uint8_t> dir_bytes(t.path().begin(), t.path().end());
  dir_bytes.push_back(0);
  const size_t dir_at = find(p, *line_str, dir_bytes);
  ASSERT_NE(dir_at, SIZE_MAX);
  const size_t value = find(p, *info, le32(uint32_t(dir_at - line_str->offset)));
  ASSERT_NE(value, SIZE_MAX);
  const std::vector<uint8_t> to = le32(uint32_t(marker_at - alt_str->offset));
  std::copy(to.begin(), to.end(), p.begin() + long(value));
  ASSERT_TRUE(testing::write_bytes(t / "p.sup", p));
  ASSERT_EQ(mkfifo((t / "alt.fifo").c_str(), 0600), 0);
  for (const char* target : {"alt", "alt.fifo"}) {
    std::string link = t / target;
    link.push_back('\0');
    link += std::string("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14", 20);
    ASSERT_TRUE(testing::write_text(t / "link.bin", link));
    ASSERT_EQ(run_command("cd '" + t.path() + "' && rm -f q && objcopy --add-section .gnu_debugaltlink=link.bin p.sup q", &out), 0)
        << out;
    bool found = false;
    const auto dir = comp_dir_through_alt(t / "q", found);
    ASSERT_TRUE(dir) << target;
    if (std::string(target) == "alt") {
      EXPECT_TRUE(found);
      EXPECT_EQ(*dir, marker);
    } else {
      EXPECT_FALSE(found);
      EXPECT_EQ(*dir, "");  // no string: libdw's answer when it finds no file
    }
  }
}

}  // namespace dwarf_alt_file_test
}  // namespace covkit::format
