// format::declared_file on real programs: the declaration file of a
// function in the unit's main file, for DWARF 4 and 5 from gcc and clang.
// clang's DWARF 5 names that file by index 0, which libdw 0.188's
// dwarf_decl_file() answers NULL for. Programs, not objects: libdw reads
// an object's DWARF unrelocated.
#include <gtest/gtest.h>
#include <dwarf.h>
#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "format/dwarf_decl_file.h"
#include "test_support.h"

namespace covkit::format {
namespace dwarf_decl_file_test {

// The declaration file of the subprogram `name` in the object at `path`,
// "" when it has none, "?" when the object or the function is not found.
std::string declared_file_of(const std::string& path, const char* name) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "?";
  Dwarf* dwarf = dwarf_begin(fd, DWARF_C_READ);
  std::string found = "?";
  Dwarf_Off offset = 0, next = 0;
  size_t header = 0;
  while (dwarf && found == "?" && dwarf_nextcu(dwarf, offset, &next, &header, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu, child;
    if (dwarf_offdie(dwarf, offset + header, &cu) && dwarf_child(&cu, &child) == 0) {
      do {
        const char* die_name = dwarf_diename(&child);
        if (dwarf_tag(&child) == DW_TAG_subprogram && die_name && std::string(die_name) == name) {
          const char* file = declared_file(&child);
          found = file ? file : "";
          break;
        }
      } while (dwarf_siblingof(&child, &child) == 0);
    }
    offset = next;
  }
  if (dwarf) dwarf_end(dwarf);
  close(fd);
  return found;
}

TEST(DeclaredFileTest, MainFileFunctionsOfEveryCompilerAndVersion) {
  covkit::testing::TempDir dir;
  ASSERT_TRUE(covkit::testing::write_text(dir / "unit.c", "int twice(int x) { return 2 * x; }\nint main(void) { return twice(0); }\n"));
  int compiled = 0;
  for (const char* cc : {"gcc-12", "gcc-11", "clang-14", "clang-16"}) {
    if (!covkit::testing::have_program(cc)) continue;
    for (const char* version : {"-gdwarf-4", "-gdwarf-5"}) {
      const std::string object = dir / (std::string(cc) + version + "");
      std::string out;
      ASSERT_EQ(covkit::testing::run_command("cd '" + dir.path() + "' && " + cc + " -O0 " + version +
                                                 " unit.c -o '" + object + "'",
                                             &out),
                0)
          << out;
      EXPECT_EQ(declared_file_of(object, "twice"), dir / "unit.c") << cc << " " << version;
      ++compiled;
    }
  }
  if (compiled == 0) GTEST_SKIP() << "no gcc-12, gcc-11, clang-14 or clang-16 here";
}

}  // namespace dwarf_decl_file_test
}  // namespace covkit::format
