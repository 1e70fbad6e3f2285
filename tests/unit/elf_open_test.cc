// format/elf_open: another user's ELF file is read, not mapped, by libelf,
// so that its owner cutting it short while covkit reads it is a failed read
// and not SIGBUS.
#include "format/elf_open.h"

#include <fcntl.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace covkit::format {
namespace elf_open_test {

// Every section's header and data, as a symbol reader looks at them.
size_t read_every_section(Elf* elf) {
  size_t read = 0;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    if (Elf_Data* d = elf_getdata(scn, nullptr); d && d->d_buf) read += d->d_size;
  }
  return read;
}

// A copy of this test program that others may write (group-writable: not
// only covkit's own user's, whoever runs the test), opened, then cut to
// nothing before its sections are read: mapped, the first read of a
// section killed the process with SIGBUS.
TEST(ElfOpenDeathTest, FileOthersCanChangeCutShortWhileReadIsNoCrash) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = ::testing::TempDir() + "covkit_elf_open_" + std::to_string(::getpid());
  std::filesystem::copy_file("/proc/self/exe", path, std::filesystem::copy_options::overwrite_existing);
  ASSERT_EQ(::chmod(path.c_str(), 0664), 0);
  {  // the whole file, as it is (the control)
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    elf_version(EV_CURRENT);
    Elf* elf = begin_elf(fd);
    ASSERT_NE(elf, nullptr);
    EXPECT_GT(read_every_section(elf), 0u);
    elf_end(elf);
    ::close(fd);
  }
  EXPECT_EXIT(
      {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        elf_version(EV_CURRENT);
        Elf* elf = begin_elf(fd);
        if (::truncate(path.c_str(), 0) != 0) ::_exit(2);
        if (elf) read_every_section(elf);
        ::_exit(0);
      },
      ::testing::ExitedWithCode(0), "");
  ::unlink(path.c_str());
}

}  // namespace elf_open_test
}  // namespace covkit::format
