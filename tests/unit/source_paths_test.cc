// model/source_paths: where a recorded source name really is (compile
// directory, --path-map) and how reports name it (--root, --source-prefix).
#include "model/source_paths.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "test_support.h"

namespace covkit::model {
namespace source_paths_test {

using Maps = std::vector<std::pair<std::string, std::string>>;

TEST(SourcePathRules, RelativeNamesJoinTheCompileDirectory) {
  SourcePathRules r("/proj", "", {});
  SourcePaths p = r.resolve("src/a.c", "/proj/build");
  EXPECT_EQ(p.absolute, "/proj/build/src/a.c");
  EXPECT_EQ(p.display, "build/src/a.c");
  p = r.resolve("../src/./a.c", "/proj/build");
  EXPECT_EQ(p.absolute, "/proj/src/a.c");
  EXPECT_EQ(p.display, "src/a.c");
  p = r.resolve("/usr/include/stdio.h", "/proj/build");  // absolute names ignore the compile directory
  EXPECT_EQ(p.absolute, "/usr/include/stdio.h");
  EXPECT_EQ(p.display, "/usr/include/stdio.h");
}

TEST(SourcePathRules, DisplayIsRelativeToTheRootOnlyInsideIt) {
  SourcePathRules r("/proj/", "", {});
  EXPECT_EQ(r.root(), "/proj");
  EXPECT_EQ(r.resolve_absolute("/proj/a.c").display, "a.c");
  EXPECT_EQ(r.resolve_absolute("/proj/x/y/z.h").display, "x/y/z.h");
  // Component boundaries: /project is not inside /proj.
  EXPECT_EQ(r.resolve_absolute("/project/a.c").display, "/project/a.c");
  EXPECT_EQ(r.resolve_absolute("/other/a.c").display, "/other/a.c");
  // The root itself has no relative name.
  EXPECT_EQ(r.resolve_absolute("/proj").display, "/proj");
}

TEST(SourcePathRules, RootIsMadeAbsoluteAgainstTheWorkingDirectory) {
  testing::TempDir t;
  testing::in_directory(t.path(), [&] {
    char buf[4096];
    ASSERT_NE(::getcwd(buf, sizeof buf), nullptr);
    const std::string here = buf;
    SourcePathRules dot(".", "", {});
    EXPECT_EQ(dot.root(), here);
    SourcePathRules empty("", "", {});
    EXPECT_EQ(empty.root(), here);
    SourcePathRules sub("sub/../src", "", {});
    EXPECT_EQ(sub.root(), here + "/src");
    EXPECT_EQ(sub.resolve("a.c", here + "/src").display, "a.c");
    EXPECT_EQ(sub.resolve("a.c", here).display, here + "/a.c");
  });
}

// In a directory reached through a symbolic link, GCC records the compile
// directory as the shell names it ($PWD), and getcwd() resolves the link:
// the project's sources are inside the default root under either name.
TEST(SourcePathRules, ARootReachedThroughALinkHoldsTheSourcesUnderBothNames) {
  testing::TempDir t;
  char buf[4096];
  ASSERT_NE(::realpath(t.path().c_str(), buf), nullptr);
  const std::string real = std::string(buf) + "/real", link = std::string(buf) + "/link";
  ASSERT_EQ(::mkdir(real.c_str(), 0755), 0);
  ASSERT_EQ(::symlink(real.c_str(), link.c_str()), 0);
  const char* old_pwd = std::getenv("PWD");
  const std::string saved = old_pwd ? old_pwd : "";
  testing::in_directory(link, [&] {
    ::setenv("PWD", link.c_str(), 1);
    SourcePathRules dot(".", "", {});
    EXPECT_EQ(dot.root(), link);
    EXPECT_EQ(dot.resolve("src/a.c", link).display, "src/a.c");
    EXPECT_EQ(dot.resolve("src/a.c", real).display, "src/a.c");
    EXPECT_EQ(dot.resolve("a.c", "/elsewhere").display, "/elsewhere/a.c");
    // A $PWD that is not the working directory (a program that changed
    // directory without updating it) is not believed.
    ::setenv("PWD", "/", 1);
    EXPECT_EQ(SourcePathRules(".", "", {}).root(), real);
  });
  if (old_pwd)
    ::setenv("PWD", saved.c_str(), 1);
  else
    ::unsetenv("PWD");
}

TEST(SourcePathRules, PathMapRewritesThePrefix) {
  SourcePathRules r("/new", "", Maps{{"/old", "/new"}});
  SourcePaths p = r.resolve("src/a.c", "/old");
  EXPECT_EQ(p.absolute, "/new/src/a.c");
  EXPECT_EQ(p.display, "src/a.c");  // display follows the mapped path
  p = r.resolve_absolute("/old/x.c");
  EXPECT_EQ(p.absolute, "/new/x.c");
  EXPECT_EQ(p.display, "x.c");
  p = r.resolve_absolute("/elsewhere/x.c");  // no map applies
  EXPECT_EQ(p.absolute, "/elsewhere/x.c");
  EXPECT_EQ(p.display, "/elsewhere/x.c");
}

TEST(SourcePathRules, PathMapRespectsComponentBoundaries) {
  SourcePathRules r("/", "", Maps{{"/src", "/mnt/src"}});
  EXPECT_EQ(r.resolve_absolute("/src/a.c").absolute, "/mnt/src/a.c");
  EXPECT_EQ(r.resolve_absolute("/srcfoo/a.c").absolute, "/srcfoo/a.c");
  EXPECT_EQ(r.resolve_absolute("/sr/a.c").absolute, "/sr/a.c");
  EXPECT_EQ(r.resolve_absolute("/src").absolute, "/mnt/src");
  // OLD written with a trailing slash or unnormalized still means the directory.
  SourcePathRules slash("/", "", Maps{{"/src/", "/mnt"}});
  EXPECT_EQ(slash.resolve_absolute("/src/a.c").absolute, "/mnt/a.c");
  EXPECT_EQ(slash.resolve_absolute("/srcfoo/a.c").absolute, "/srcfoo/a.c");
  SourcePathRules dots("/", "", Maps{{"/x/../src/./", "/mnt/"}});
  EXPECT_EQ(dots.resolve_absolute("/src/d/a.c").absolute, "/mnt/d/a.c");
}

TEST(SourcePathRules, FirstMatchingMapWins) {
  SourcePathRules r("/", "", Maps{{"/src", "/A"}, {"/src/sub", "/B"}, {"/lib", "/C"}});
  EXPECT_EQ(r.resolve_absolute("/src/sub/x.c").absolute, "/A/sub/x.c");
  EXPECT_EQ(r.resolve_absolute("/lib/y.c").absolute, "/C/y.c");
  // Maps apply once: /lib -> /C does not map again through a later rule.
  SourcePathRules chain("/", "", Maps{{"/a", "/b"}, {"/b", "/c"}});
  EXPECT_EQ(chain.resolve_absolute("/a/f.c").absolute, "/b/f.c");
  EXPECT_EQ(chain.resolve_absolute("/b/f.c").absolute, "/c/f.c");
  // A more specific map listed first wins over a general one.
  SourcePathRules specific("/", "", Maps{{"/src/sub", "/B"}, {"/src", "/A"}});
  EXPECT_EQ(specific.resolve_absolute("/src/sub/x.c").absolute, "/B/x.c");
  EXPECT_EQ(specific.resolve_absolute("/src/x.c").absolute, "/A/x.c");
}

TEST(SourcePathRules, PathMapNewSideIsNormalized) {
  SourcePathRules r("/", "", Maps{{"/old", "/new/./tree/"}});
  EXPECT_EQ(r.resolve_absolute("/old/a/../b.c").absolute, "/new/tree/b.c");
}

TEST(SourcePathRules, SourcePrefixIsRemovedFromTheDisplayOnly) {
  SourcePathRules r("/proj", "/proj/src", {});
  SourcePaths p = r.resolve_absolute("/proj/src/lib/a.c");
  EXPECT_EQ(p.absolute, "/proj/src/lib/a.c");
  EXPECT_EQ(p.display, "lib/a.c");  // the prefix wins over the root
  // Outside the prefix the root applies.
  EXPECT_EQ(r.resolve_absolute("/proj/include/a.h").display, "include/a.h");
  // Component boundary: /proj/srcx is not under /proj/src.
  EXPECT_EQ(r.resolve_absolute("/proj/srcx/a.c").display, "srcx/a.c");
  // A prefix outside the root.
  SourcePathRules outside("/proj", "/opt/vendor", {});
  EXPECT_EQ(outside.resolve_absolute("/opt/vendor/z.c").display, "z.c");
  EXPECT_EQ(outside.resolve_absolute("/opt/vendor").display, "/opt/vendor");
}

TEST(SourcePathRules, SourcePrefixAppliesAfterThePathMap) {
  SourcePathRules r("/", "/new/src", Maps{{"/old", "/new"}});
  SourcePaths p = r.resolve("a.c", "/old/src");
  EXPECT_EQ(p.absolute, "/new/src/a.c");
  EXPECT_EQ(p.display, "a.c");
}

TEST(ParsePathMap, Forms) {
  auto pm = parse_path_map("/old=/new");
  ASSERT_TRUE(pm);
  EXPECT_EQ(pm->first, "/old");
  EXPECT_EQ(pm->second, "/new");
  pm = parse_path_map("/a=/b=c");  // the first '=' splits
  ASSERT_TRUE(pm);
  EXPECT_EQ(pm->first, "/a");
  EXPECT_EQ(pm->second, "/b=c");
  for (const char* bad : {"=/new", "/old", ""}) {
    auto r = parse_path_map(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message, "expected OLD=NEW");
  }
}

}  // namespace
}  // namespace covkit::model
