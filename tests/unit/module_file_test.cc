#include "live/module_file.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace covkit::live {
namespace module_file_test {

// What open_mapped_file found in a child with no /proc (a chroot's, a
// container's), run in a mount namespace of its own: 0 the file of that
// device and inode, 1 none, 77 no namespace could be made (not root).
int found_without_proc(const std::string& path, uint64_t inode_delta) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  pid_t child = fork();
  if (child == 0) {
    if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::umount2("/proc", MNT_DETACH) != 0)
      _exit(77);
    if (::access("/proc/self/fd", F_OK) == 0) _exit(77);
    // A process long gone: only the path itself can lead to the file.
    auto opened = open_mapped_file(1 << 30, 0x1000, 0x2000, major(st.st_dev), minor(st.st_dev),
                                   st.st_ino + inode_delta, path);
    _exit(opened && opened->fd.valid() && opened->size == size_t(st.st_size) ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Without /proc the mapped file is reached by its path alone, and only when
// it is the mapping's device and inode (util::open_regular_file's fallback:
// the same look before the open as with /proc, the file checked after it).
TEST(ModuleFile, AMappedFileOpensByItsPathWhereThereIsNoProc) {
  // A name of this run's own (the plain and the sanitized suites may run at
  // once), in the test's temporary directory.
  const std::string path = ::testing::TempDir() + "covkit_module_file_test." + std::to_string(getpid()) + ".bin";
  std::ofstream(path) << "not empty";
  const int same = found_without_proc(path, 0);
  const int other = found_without_proc(path, 1);
  std::filesystem::remove(path);
  if (same == 77) GTEST_SKIP() << "no mount namespace without /proc could be made (not root?)";
  EXPECT_EQ(same, 0) << "the file of the mapping's device and inode was not opened by its path";
  EXPECT_EQ(other, 1) << "a file of another inode was taken for the mapping's";
}

}  // namespace module_file_test
}  // namespace covkit::live
