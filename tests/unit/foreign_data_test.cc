// util/foreign_data: files named by another user's data are opened with
// that user's rights, on the opening thread only; outputs get no more
// permission than the data had.
#include "util/foreign_data.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <climits>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

#include "test_support.h"

namespace covkit::util {
namespace foreign_data_test {

using namespace std::string_literals;

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

// `body` run in a child process, its failures (printed by the child) and
// skip told to this one: the owners a test notes are the process's for the
// rest of its life (as in covkit's), and the tests after it in the same
// process (covkit_unit_tests run whole, not one suite per process as ctest
// does) would read their files as nobody.
template <typename F>
void in_child_process(F&& body) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    body();
    std::fflush(nullptr);
    const auto* result = ::testing::UnitTest::GetInstance()->current_test_info()->result();
    ::_exit(result->Failed() ? 1 : result->Skipped() ? 77 : 0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child ended by signal " << WTERMSIG(status);
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "needs root to take another user's rights";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child's failures are printed above";
}

// Once data of another user was read (a process of nobody, here), the files
// it names are read with its rights, and outputs are private.
void narrows_reads_and_outputs() {
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

TEST(ForeignData, DataOfAnotherUserNarrowsReadsAndOutputs) { in_child_process(narrows_reads_and_outputs); }

// A thread that took another user's rights (the plan server asking as the
// process that asked it) opens a file named by data only when that user may
// too, not with the rights of the data's owners alone: before, the owner
// (who may read the file) opened it in place of the thread's user.
void thread_identity_also_narrows() {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to take another user's rights";
  constexpr uid_t kOwner = 54321;  // the data's owner: may read the file
  testing::TempDir d;
  ::chmod(d.path().c_str(), 0755);
  const std::string theirs = d / "theirs", open_file = d / "public";
  ASSERT_TRUE(testing::write_text(theirs, "the owner's"));
  ASSERT_EQ(::chown(theirs.c_str(), kOwner, kOwner), 0);
  ASSERT_EQ(::chmod(theirs.c_str(), 0600), 0);
  ASSERT_TRUE(testing::write_text(open_file, "anyone"));
  ASSERT_EQ(::chmod(open_file.c_str(), 0644), 0);
  note_foreign_data(DataOwner{kOwner, kOwner, {}}, 0600);
  EXPECT_TRUE(read_named_file(theirs));  // as covkit: the owner's rights, which allow it
  {
    ScopedFsIdentity as(DataOwner{kNobody, kNobody, {}});
    ASSERT_TRUE(as.switched());
    auto refused = read_named_file(theirs);
    ASSERT_FALSE(refused) << "read as the data's owner alone";
    EXPECT_EQ(refused.error().message, "Permission denied for user 65534 (nobody), whose data names it");
    auto allowed = read_named_file(open_file);
    ASSERT_TRUE(allowed) << allowed.error().message;
    EXPECT_EQ(allowed->text(), "anyone");
  }
  EXPECT_TRUE(read_named_file(theirs));  // the thread's own rights again
}

TEST(ForeignData, ThreadsIdentityNarrowsAsWellAsTheOwners) { in_child_process(thread_identity_also_narrows); }

// A file the kernel opened with no link on its way needs no look for one by
// name afterwards; one reached through another user's link is that user's
// choice (noted), and another user's file is theirs whichever way it came.
void links_noted_only_when_followed() {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to take another user's rights";
  testing::TempDir d;
  ::chmod(d.path().c_str(), 0755);
  const std::string mine = d / "mine", link = d / "link", theirs = d / "theirs";
  ASSERT_TRUE(testing::write_text(mine, "root's"));
  ASSERT_EQ(::chmod(mine.c_str(), 0644), 0);
  auto plain = read_input_file(mine);
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_TRUE(plain->opened_without_links());
  note_data_file(mine, *plain);
  EXPECT_EQ(output_mode_mask(), 07777u);

  ASSERT_EQ(::symlink(mine.c_str(), link.c_str()), 0);
  ASSERT_EQ(::lchown(link.c_str(), kNobody, kNobody), 0);
  auto linked = read_input_file(link);  // nobody may read it too
  ASSERT_TRUE(linked) << linked.error().message;
  EXPECT_FALSE(linked->opened_without_links());
  note_data_file(link, *linked);
  EXPECT_EQ(output_mode_mask() & 0777, 0700u);
  EXPECT_EQ(foreign_owners().size(), 1u);
}

TEST(ForeignData, LinksNotedOnlyWhenFollowed) { in_child_process(links_noted_only_when_followed); }

void owner_noted_without_links() {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to take another user's rights";
  testing::TempDir d;
  ::chmod(d.path().c_str(), 0755);
  const std::string theirs = d / "theirs";
  ASSERT_TRUE(testing::write_text(theirs, "nobody's"));
  ASSERT_EQ(::chown(theirs.c_str(), kNobody, kNobody), 0);
  ASSERT_EQ(::chmod(theirs.c_str(), 0600), 0);
  auto data = read_input_file(theirs);
  ASSERT_TRUE(data) << data.error().message;
  EXPECT_TRUE(data->opened_without_links());
  note_data_file(theirs, *data);
  EXPECT_EQ(output_mode_mask() & 0777, 0700u);
  ASSERT_EQ(foreign_owners().size(), 1u);
  EXPECT_EQ(foreign_owners()[0].uid, kNobody);
}

TEST(ForeignData, OwnerNotedWithoutLinks) { in_child_process(owner_noted_without_links); }

// A source named by covkit's own data (root's build of another user's
// checkout: `#line 1 "/proc/self/environ"` in a source of theirs) is never
// covkit's own process: not its /proc files, nor a descriptor of its
// reached through /proc/self/fd, /dev/fd or a link of covkit's user to one
// (as /dev/stdout is root's). Each was read, root's environment and what
// covkit's standard output went to copied into the report.
TEST(ForeignData, SourcesAreNeverCovkitsOwnProcess) {
  const std::string dir = ::testing::TempDir() + "covkit_own_process_" + std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0700);
  const std::string given = dir + "/given.txt";
  {
    std::FILE* f = std::fopen(given.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("TEXT-COVKIT-WAS-GIVEN\n", f);
    std::fclose(f);
  }
  auto plain = read_source_file(given);
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->text(), "TEXT-COVKIT-WAS-GIVEN\n");
  const int fd = ::open(given.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const std::string link = dir + "/stdout-like";
  ::unlink(link.c_str());
  ASSERT_EQ(::symlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), link.c_str()), 0);
  for (const std::string& name : {"/proc/self/environ"s, "/proc/self/cmdline"s, "/proc/self/fd/" + std::to_string(fd),
                                  "/dev/fd/" + std::to_string(fd), link}) {
    auto read = read_source_file(name);
    EXPECT_FALSE(read) << name << " was read: " << read->text().substr(0, 40);
    if (!read) {
      EXPECT_NE(read.error().message.find("/proc"), std::string::npos) << name << ": " << read.error().message;
    }
  }
  ::close(fd);
  ::unlink(link.c_str());
  ::unlink(given.c_str());
  ::rmdir(dir.c_str());
}

// Bazel runs the compiler with PWD=/proc/self/cwd, so its notes name
// sources under it; gcov reads them from its own working directory, and so
// does covkit: by that directory's name, not through the process's link.
TEST(ForeignData, SourcesUnderProcSelfCwdAreReadFromTheWorkingDirectory) {
  const std::string dir = ::testing::TempDir() + "covkit_self_cwd_" + std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0700);
  {
    std::FILE* f = std::fopen((dir + "/p.c").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("int main(void) { return 0; }\n", f);
    std::fclose(f);
  }
  char before[PATH_MAX];
  ASSERT_NE(::getcwd(before, sizeof before), nullptr);
  ASSERT_EQ(::chdir(dir.c_str()), 0);
  auto read = read_source_file("/proc/self/cwd/p.c");
  auto missing = read_source_file("/proc/self/cwd/none.c");
  auto sibling = read_source_file("/proc/self/cwdx/p.c");
  auto environ_file = read_source_file("/proc/self/cwd/../environ");
  ASSERT_EQ(::chdir(before), 0);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->text(), "int main(void) { return 0; }\n");
  EXPECT_FALSE(missing);
  EXPECT_FALSE(sibling);  // not the link: refused as /proc
  // The rest of the name stays a name: ".." leads to the working
  // directory's parent, never to the process's own files.
  if (environ_file) {
    EXPECT_EQ(environ_file->text().find("PATH="), std::string::npos);
  }
  ::unlink((dir + "/p.c").c_str());
  ::rmdir(dir.c_str());
}

}  // namespace foreign_data_test
}  // namespace covkit::util
