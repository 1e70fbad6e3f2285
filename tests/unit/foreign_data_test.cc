// util/foreign_data: files named by another user's data are opened with
// that user's rights, on the opening thread only; outputs get no more
// permission than the data had.
#include "util/foreign_data.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "test_support.h"

namespace covkit::util {
namespace foreign_data_test {

constexpr uid_t kNobody = 65534;

// Each thread has its own file-system identity: while one reads as nobody,
// another reads what only root may, at the same moment.
TEST(ForeignData, IdentitiesArePerThread) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to take another user's rights";
  testing::TempDir d;
  ::chmod(d.path().c_str(), 0755);
  const std::string secret = d / "secret";
  ASSERT_TRUE(testing::write_text(secret, "root only"));
  ASSERT_EQ(::chmod(secret.c_str(), 0600), 0);
  std::atomic<int> phase{0};
  bool nobody_could = true;
  std::thread other([&] {
    DataOwner nobody{kNobody, kNobody, {}};
    ScopedFsIdentity as(nobody);
    EXPECT_TRUE(as.switched());
    phase = 1;
    while (phase != 2) std::this_thread::yield();
    int fd = ::open(secret.c_str(), O_RDONLY);
    nobody_could = fd >= 0;
    if (fd >= 0) ::close(fd);
    phase = 3;
  });
  while (phase != 1) std::this_thread::yield();
  int fd = ::open(secret.c_str(), O_RDONLY);  // this thread is still root
  EXPECT_GE(fd, 0);
  if (fd >= 0) ::close(fd);
  phase = 2;
  while (phase != 3) std::this_thread::yield();
  other.join();
  EXPECT_FALSE(nobody_could);
  fd = ::open(secret.c_str(), O_RDONLY);  // and root again after the switch
  EXPECT_GE(fd, 0);
  if (fd >= 0) ::close(fd);
}

// Once data of another user was read (a process of nobody, here), the files
// it names are read with its rights, and outputs are private. (Last: the
// noted owners stay for the rest of this suite's process.)
TEST(ForeignData, DataOfAnotherUserNarrowsReadsAndOutputs) {
  testing::TempDir d;
  ::chmod(d.path().c_str(), 0755);
  const std::string secret = d / "secret", open_file = d / "public";
  ASSERT_TRUE(testing::write_text(secret, "root only"));
  ASSERT_EQ(::chmod(secret.c_str(), 0600), 0);
  ASSERT_TRUE(testing::write_text(open_file, "anyone"));
  ASSERT_EQ(::chmod(open_file.c_str(), 0644), 0);
  EXPECT_EQ(output_mode_mask(), 07777u);
  EXPECT_TRUE(read_named_file(secret));  // nothing foreign yet
  note_foreign_data(DataOwner{::geteuid(), ::getegid(), {}}, 0600);  // covkit's own: changes nothing
  EXPECT_EQ(output_mode_mask(), 07777u);
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to take another user's rights";
  note_foreign_data(DataOwner{kNobody, kNobody, {}}, 0600);
  EXPECT_EQ(output_mode_mask() & 0777, 0700u);
  auto refused = read_named_file(secret);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "Permission denied for user 65534 (nobody), whose data names it");
  auto allowed = read_named_file(open_file);
  ASSERT_TRUE(allowed) << allowed.error().message;
  EXPECT_EQ(allowed->text(), "anyone");
}

}  // namespace foreign_data_test
}  // namespace covkit::util
