// util/output_path: output paths walked by descriptor, following a symbolic
// link only when root or covkit's user made it; trees below an output
// walked without following any.
#include "util/output_path.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "test_support.h"

namespace covkit::util {
namespace output_path_test {

namespace fs = std::filesystem;

TEST(OutputPath, WalksToTheParentAndCreatesWhatIsMissing) {
  testing::TempDir d;
  auto where = locate_output(d / "a/b/../c/out", MissingParents::kCreate);
  ASSERT_TRUE(where) << where.error().message;
  EXPECT_EQ(where->name, "out");
  EXPECT_EQ(where->path, d / "a/c/out");
  EXPECT_TRUE(fs::is_directory(d / "a/b"));
  EXPECT_TRUE(fs::is_directory(d / "a/c"));
  EXPECT_FALSE(fs::exists(d / "a/c/out"));
  struct stat held {}, named {};
  ASSERT_EQ(::fstat(where->parent.get(), &held), 0);
  ASSERT_EQ(::stat((d / "a/c").c_str(), &named), 0);
  EXPECT_EQ(held.st_ino, named.st_ino);

  auto missing = locate_output(d / "x/y/out", MissingParents::kError);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().errno_value, ENOENT);
  EXPECT_FALSE(fs::exists(d / "x"));

  // "." and ".." at the end name the directory itself, held by its parent.
  auto dot = locate_output(d / "a/c/.", MissingParents::kError);
  ASSERT_TRUE(dot);
  EXPECT_EQ(dot->name, "c");
  EXPECT_EQ(dot->path, d / "a/c");
}

TEST(OutputPath, FollowsOnlyLinksOfRootOrCovkitsUser) {
  testing::TempDir d, elsewhere;
  ASSERT_EQ(::symlink(elsewhere.path().c_str(), (d / "mine").c_str()), 0);
  auto mine = locate_output(d / "mine/out", MissingParents::kError);
  ASSERT_TRUE(mine) << mine.error().message;
  EXPECT_EQ(mine->path, elsewhere / "out");
  auto link_itself = locate_output(d / "mine", MissingParents::kError);
  ASSERT_TRUE(link_itself);
  EXPECT_EQ(link_itself->path, elsewhere.path());
  EXPECT_TRUE(link_itself->via_link);
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a link to another user";
  ASSERT_EQ(::lchown((d / "mine").c_str(), 65534, 65534), 0);
  for (const std::string& p : {d / "mine", d / "mine/out", d / "mine/a/b/out"}) {
    auto theirs = locate_output(p, MissingParents::kCreate);
    ASSERT_FALSE(theirs) << p;
    EXPECT_EQ(theirs.error().message,
              d / "mine" + " is a symbolic link of user 65534 (nobody) (to " + elsewhere.path() +
                  "); covkit does not follow another user's link in an output path");
  }
  EXPECT_TRUE(fs::is_empty(elsewhere.path()));
}

TEST(OutputPath, BelowAnOutputNoLinkIsFollowed) {
  testing::TempDir d, elsewhere;
  ASSERT_EQ(::mkdir((d / "tree").c_str(), 0755), 0);
  ASSERT_EQ(::symlink(elsewhere.path().c_str(), (d / "tree/sub").c_str()), 0);
  ASSERT_TRUE(testing::write_text(elsewhere / "x.gcda", "theirs"));
  ASSERT_EQ(::symlink((elsewhere / "x.gcda").c_str(), (d / "tree/y.gcda").c_str()), 0);
  int root = ::open((d / "tree").c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(root, 0);
  std::string last;
  auto through = open_parent_below(root, "sub/x.gcda", true, 0755, "T", &last);
  ASSERT_FALSE(through);
  EXPECT_EQ(through.error().message, "T/sub: a symbolic link; refusing to write through it");
  auto read = read_below(root, "y.gcda", "T");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().message, "T/y.gcda: a symbolic link; refusing to write through it");
  EXPECT_FALSE(read_below(root, "../x.gcda", "T"));
  auto none = read_below(root, "new/z.gcda", "T");
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  auto made = open_parent_below(root, "p/q/z.gcda", true, 0755, "T", &last);
  ASSERT_TRUE(made && *made);
  EXPECT_EQ(last, "z.gcda");
  EXPECT_TRUE(fs::is_directory(d / "tree/p/q"));
  ::close(root);
  EXPECT_TRUE(plain_relative_path("a/b.gcda"));
  for (const char* bad : {"", "/a", "a//b", "a/./b", "a/../b", "a/"}) EXPECT_FALSE(plain_relative_path(bad)) << bad;
}

TEST(OutputPath, ATreeDeeperThanTheLimitIsRefusedInWordsThatSaySo) {
  // A name from a target's stream 2,040 directories deep was refused with
  // strerror(ELOOP), "Too many levels of symbolic links", where no link was.
  testing::TempDir d;
  int root = ::open(d.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(root, 0);
  std::string deep;
  for (int i = 0; i < 600; ++i) deep += "d/";
  std::string last;
  auto refused = open_parent_below(root, deep + "x.gcda", true, 0755, "T", &last);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("more than 512 directories deep below the output tree"), std::string::npos)
      << refused.error().message;
  EXPECT_EQ(refused.error().message.find("symbolic link"), std::string::npos) << refused.error().message;
  auto allowed = open_parent_below(root, "a/b/c/x.gcda", true, 0755, "T", &last);
  EXPECT_TRUE(allowed && *allowed);
  ::close(root);
}

TEST(OutputPath, RemovesATreeWithoutFollowingLinks) {
  testing::TempDir d, elsewhere;
  ASSERT_TRUE(testing::write_text(elsewhere / "keep", "kept"));
  ASSERT_EQ(::mkdir((d / "t").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((d / "t/sub").c_str(), 0755), 0);
  ASSERT_TRUE(testing::write_text(d / "t/sub/f", "x"));
  ASSERT_EQ(::symlink(elsewhere.path().c_str(), (d / "t/link").c_str()), 0);
  int dir = ::open(d.path().c_str(), O_RDONLY | O_DIRECTORY);
  remove_tree_at(dir, "t");
  ::close(dir);
  EXPECT_FALSE(fs::exists(d / "t"));
  EXPECT_TRUE(fs::exists(elsewhere / "keep"));
}

TEST(OutputPath, TheTestStopPointIsInertWithoutTheVariable) {
  ::unsetenv("COVKIT_TEST_STOP_AT");
  test_stop_point("staging");  // would stop this test for good otherwise
  ::setenv("COVKIT_TEST_STOP_AT", "swap,output", 1);
  test_stop_point("staging");
  ::unsetenv("COVKIT_TEST_STOP_AT");
  SUCCEED();
}

}  // namespace output_path_test
}  // namespace covkit::util
