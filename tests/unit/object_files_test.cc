// format/object_files: finding .gcno/.gcda files in build and data trees,
// pairing data files from other trees by the longest shared path tail, and
// lexical path normalization.
#include "format/object_files.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_support.h"

namespace covkit::format {
namespace object_files_test {

using testing::TempDir;

// Creates an empty file (and its directories) below `t`; returns its path.
std::string touch(const TempDir& t, const std::string& rel) {
  std::string p = t / rel;
  std::filesystem::create_directories(std::filesystem::path(p).parent_path());
  EXPECT_TRUE(testing::write_text(p, ""));
  return p;
}

std::string cwd() {
  char buf[4096];
  EXPECT_NE(::getcwd(buf, sizeof buf), nullptr);
  return buf;
}

// --- absolute_path ------------------------------------------------------------

TEST(AbsolutePath, AbsoluteNamesAreNormalizedLexically) {
  EXPECT_EQ(absolute_path("/a/./b/../c"), "/a/c");
  EXPECT_EQ(absolute_path("//a//b///"), "/a/b");
  EXPECT_EQ(absolute_path("/a/b/../../.."), "/");
  EXPECT_EQ(absolute_path("/../x"), "/x");
  EXPECT_EQ(absolute_path("/"), "/");
  EXPECT_EQ(absolute_path("/a/.b/..c"), "/a/.b/..c");  // dotted names are not "." or ".."
}

TEST(AbsolutePath, RelativeNamesJoinTheBase) {
  EXPECT_EQ(absolute_path("src/a.c", "/build"), "/build/src/a.c");
  EXPECT_EQ(absolute_path("../src/a.c", "/build/obj"), "/build/src/a.c");
  EXPECT_EQ(absolute_path("./a.c", "/build/"), "/build/a.c");
  EXPECT_EQ(absolute_path("", "/build/x/.."), "/build");
  EXPECT_EQ(absolute_path("/abs/a.c", "/build"), "/abs/a.c");  // an absolute name ignores the base
}

TEST(AbsolutePath, RelativeNamesAndBasesUseTheWorkingDirectory) {
  TempDir t;
  testing::in_directory(t.path(), [&] {
    const std::string here = cwd();
    EXPECT_EQ(absolute_path("a.c"), here + "/a.c");
    EXPECT_EQ(absolute_path("."), here);
    EXPECT_EQ(absolute_path("a.c", "sub/dir"), here + "/sub/dir/a.c");
    EXPECT_EQ(absolute_path("../a.c", "sub"), here + "/a.c");
  });
}

// --- find_objects -----------------------------------------------------------------

TEST(FindObjects, DataBesideItsNotesPairs) {
  TempDir t;
  std::string n = touch(t, "build/x.gcno");
  std::string d = touch(t, "build/x.gcda");
  std::string n2 = touch(t, "build/sub/y.gcno");
  std::string d2 = touch(t, "build/sub/y.gcda");
  touch(t, "build/sub/y.o");  // other files are ignored
  ObjectSearch s = find_objects({t / "build"}, {});
  EXPECT_TRUE(s.warnings.empty()) << s.warnings[0];
  ASSERT_EQ(s.objects.size(), 2u);
  EXPECT_EQ(s.objects[0].notes, n2);  // sorted by notes path: ".../build/sub/y" < ".../build/x"
  EXPECT_EQ(s.objects[0].data, d2);
  EXPECT_EQ(s.objects[1].notes, n);
  EXPECT_EQ(s.objects[1].data, d);
}

// The walk takes every entry named .gcno/.gcda that is no directory (a
// FIFO is a run's counts that cannot be read: the report says so), looks
// into hidden directories, and follows no link to a directory, nor takes
// one as a file.
TEST(FindObjects, WalkTakesNonDirectoriesAndFollowsNoDirectoryLink) {
  TempDir t;
  std::string n = touch(t, "build/.hidden/x.gcno");
  std::string d = touch(t, "build/.hidden/x.gcda");
  std::string n2 = touch(t, "build/y.gcno");
  ASSERT_EQ(::mkfifo((t / "build/y.gcda").c_str(), 0600), 0);
  touch(t, "elsewhere/z.gcno");
  std::filesystem::create_directory_symlink(t / "elsewhere", t / "build/linked");
  std::filesystem::create_directory_symlink(t / "elsewhere", t / "build/w.gcda");  // a directory: no data file
  std::string n3 = touch(t, "build/v.gcno");
  std::filesystem::create_symlink(t / "build/.hidden/x.gcda", t / "build/v.gcda");
  ObjectSearch s = find_objects({t / "build"}, {});
  ASSERT_EQ(s.objects.size(), 3u);
  EXPECT_EQ(s.objects[0].notes, n);
  EXPECT_EQ(s.objects[0].data, d);
  EXPECT_EQ(s.objects[1].notes, n3);
  EXPECT_EQ(s.objects[1].data, t / "build/v.gcda");
  EXPECT_EQ(s.objects[2].notes, n2);
  EXPECT_EQ(s.objects[2].data, t / "build/y.gcda");
}

TEST(FindObjects, NeverRunNotesIsAnObjectWithoutData) {
  TempDir t;
  std::string n = touch(t, "build/lib.gcno");
  ObjectSearch s = find_objects({t / "build"}, {});
  EXPECT_TRUE(s.warnings.empty());
  ASSERT_EQ(s.objects.size(), 1u);
  EXPECT_EQ(s.objects[0].notes, n);
  EXPECT_EQ(s.objects[0].data, "");
}

TEST(FindObjects, PrefixTreePairsByLongestSharedTail) {
  // A GCOV_PREFIX run: data under prefix/<stripped absolute build path>.
  TempDir t;
  std::string na = touch(t, "build/src/a/x.gcno");
  std::string nb = touch(t, "build/src/b/x.gcno");
  std::string nc = touch(t, "build/src/c/y.gcno");
  std::string da = touch(t, "prefix/home/ci/build/src/a/x.gcda");
  std::string dc = touch(t, "prefix/home/ci/build/src/c/y.gcda");
  ObjectSearch s = find_objects({t / "build", t / "prefix"}, {});
  EXPECT_TRUE(s.warnings.empty()) << s.warnings[0];
  ASSERT_EQ(s.objects.size(), 3u);
  EXPECT_EQ(s.objects[0].notes, na);
  EXPECT_EQ(s.objects[0].data, da);
  EXPECT_EQ(s.objects[1].notes, nb);
  EXPECT_EQ(s.objects[1].data, "");
  EXPECT_EQ(s.objects[2].notes, nc);
  EXPECT_EQ(s.objects[2].data, dc);
}

// Runs kept apart, each tree named: the named trees are added up; the build
// tree's own file beside the notes is left out, and the warning says where
// each one was (`covkit report merged/ cov/` must not add cov/'s own files).
TEST(FindObjects, NamedDataTreesWinOverTheBuildTreesOwnFile) {
  TempDir t;
  std::string n = touch(t, "build/src/x.gcno");
  touch(t, "build/src/x.gcda");
  std::string d1 = touch(t, "run1/src/x.gcda");
  std::string d2 = touch(t, "run2/build/src/x.gcda");
  ObjectSearch s = find_objects({t / "build", t / "run2", t / "run1"}, {});
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], fmt::format("data files of the same objects were found in several places; used: {} (1 file), "
                                       "{} (1 file); left out: beside the .gcno files (1 file) (--add adds them all; "
                                       "or name each tree to use)",
                                       t / "run1", t / "run2"));
  EXPECT_EQ(s.conflict, "");
  ASSERT_EQ(s.objects.size(), 2u);
  for (const auto& o : s.objects) EXPECT_EQ(o.notes, n);
  EXPECT_EQ(s.objects[0].data, d1);
  EXPECT_EQ(s.objects[1].data, d2);
}

TEST(FindObjects, AddTakesEveryDataFileOfAnObject) {
  TempDir t;
  std::string n = touch(t, "build/src/x.gcno");
  std::string d0 = touch(t, "build/src/x.gcda");
  std::string d1 = touch(t, "run1/src/x.gcda");
  std::string d2 = touch(t, "run2/build/src/x.gcda");
  ObjectSearch s = find_objects({t / "build", t / "run2", t / "run1"}, {}, SeveralData::add);
  EXPECT_TRUE(s.warnings.empty()) << s.warnings[0];
  ASSERT_EQ(s.objects.size(), 3u);
  for (const auto& o : s.objects) EXPECT_EQ(o.notes, n);
  EXPECT_EQ(s.objects[0].data, d0);  // sorted by data path
  EXPECT_EQ(s.objects[1].data, d1);
  EXPECT_EQ(s.objects[2].data, d2);
}

// Issue 35's trap: `live dump -o snap`, `-o d1`, `-o d2` inside the build
// tree, then `covkit report d2 .`: d2 is named (and its files are d2's,
// though "." holds them too); snap's and d1's are left out, not added.
TEST(FindObjects, SnapshotsInsideTheBuildTreeAreNotAddedToTheNamedOne) {
  TempDir t;
  const std::string b = t / "b";
  std::string n = touch(t, "b/obj/x.gcno");
  touch(t, "b/obj/y.gcno");
  for (const char* snap : {"snap", "d1", "d2"}) {
    touch(t, fmt::format("b/{}{}/obj/x.gcda", snap, b));
    touch(t, fmt::format("b/{}{}/obj/y.gcda", snap, b));
  }
  ObjectSearch s = find_objects({b + "/d2", b}, {});
  EXPECT_EQ(s.conflict, "");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], fmt::format("data files of the same objects were found in several places; used: {}/d2 (2 "
                                       "files); left out: {}/d1 (2 files), {}/snap (2 files) (--add adds them all; "
                                       "or name each tree to use)",
                                       b, b, b));
  ASSERT_EQ(s.objects.size(), 2u);
  EXPECT_EQ(s.objects[0].notes, n);
  EXPECT_EQ(s.objects[0].data, b + "/d2" + b + "/obj/x.gcda");
  EXPECT_EQ(s.objects[1].data, b + "/d2" + b + "/obj/y.gcda");
}

// The build tree alone: its own file beside the notes wins over a
// snapshot kept inside it.
TEST(FindObjects, TheFileBesideTheNotesWinsWhenNoneIsNamed) {
  TempDir t;
  const std::string b = t / "b";
  touch(t, "b/obj/x.gcno");
  std::string own = touch(t, "b/obj/x.gcda");
  touch(t, fmt::format("b/snap{}/obj/x.gcda", b));
  ObjectSearch s = find_objects({b}, {});
  EXPECT_EQ(s.conflict, "");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("left out: " + b + "/snap (1 file)"), std::string::npos) << s.warnings[0];
  ASSERT_EQ(s.objects.size(), 1u);
  EXPECT_EQ(s.objects[0].data, own);
}

// Two snapshots in the build tree and none named: which one is the user's
// choice, never their sum.
TEST(FindObjects, SeveralDataFilesNoneNamedIsAConflict) {
  TempDir t;
  const std::string b = t / "b";
  touch(t, "b/obj/x.gcno");
  std::string other = touch(t, "b/obj/other.gcno");
  touch(t, fmt::format("b/snap{}/obj/x.gcda", b));
  touch(t, fmt::format("b/d1{}/obj/x.gcda", b));
  ObjectSearch s = find_objects({b}, {});
  EXPECT_EQ(s.conflict, fmt::format("the data files of 1 object were found in several places and none of them is "
                                    "named or beside its .gcno file: {}/d1 (1 file), {}/snap (1 file) (name the tree "
                                    "to use as a PATH, or add them all with --add)",
                                    b, b));
  ASSERT_EQ(s.objects.size(), 1u);  // the object in conflict is left out
  EXPECT_EQ(s.objects[0].notes, other);
  // A named data tree holding two of them names neither.
  touch(t, fmt::format("runs/1{}/obj/x.gcda", b));
  touch(t, fmt::format("runs/2{}/obj/x.gcda", b));
  s = find_objects({b, t / "runs"}, {});
  EXPECT_NE(s.conflict, "");
  s = find_objects({b, b + "/snap"}, {});
  EXPECT_EQ(s.conflict, "");
  ASSERT_EQ(s.objects.size(), 2u);
  EXPECT_EQ(s.objects[1].data, b + "/snap" + b + "/obj/x.gcda");
}

// `covkit report snap/` alone: the notes are where the snapshot says the
// data files belong.
TEST(FindObjects, DataTreeAloneFindsTheNotesAtTheRecordedPaths) {
  TempDir t;
  const std::string b = t / "b";
  std::string n = touch(t, "b/obj/x.gcno");
  std::string d = touch(t, fmt::format("snap{}/obj/x.gcda", b));
  std::string orphan = touch(t, "snap/nowhere/y.gcda");
  ObjectSearch s = find_objects({t / "snap"}, {});
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], orphan + ": no matching .gcno file found; skipped");
  ASSERT_EQ(s.objects.size(), 1u);
  EXPECT_EQ(s.objects[0].notes, n);
  EXPECT_EQ(s.objects[0].data, d);
}

// A build tree given with the snapshot wins over the recorded path (a build
// moved or copied since).
TEST(FindObjects, AGivenBuildTreeWinsOverTheRecordedPath) {
  TempDir t;
  touch(t, "b/obj/x.gcno");
  std::string copy = touch(t, "copy/b/obj/x.gcno");
  std::string d = touch(t, fmt::format("snap{}/obj/x.gcda", t / "b"));
  ObjectSearch s = find_objects({t / "snap", t / "copy"}, {});
  EXPECT_TRUE(s.warnings.empty()) << s.warnings[0];
  ASSERT_EQ(s.objects.size(), 1u);
  EXPECT_EQ(s.objects[0].notes, copy);
  EXPECT_EQ(s.objects[0].data, d);
}

TEST(FindObjects, AmbiguousTailIsAWarningAndSkipped) {
  TempDir t;
  std::string n1 = touch(t, "b1/src/x.gcno");
  std::string n2 = touch(t, "b2/src/x.gcno");
  std::string d = touch(t, "prefix/src/x.gcda");  // shares "src/x" with both
  ObjectSearch s = find_objects({t / "b1", t / "b2", t / "prefix"}, {});
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0],
            d + ": several .gcno files match equally well and no single one has its stamp; skipped (pass the "
                "build tree that holds it)");
  ASSERT_EQ(s.objects.size(), 2u);
  EXPECT_EQ(s.objects[0].notes, n1);
  EXPECT_EQ(s.objects[0].data, "");
  EXPECT_EQ(s.objects[1].notes, n2);
  EXPECT_EQ(s.objects[1].data, "");
}

TEST(FindObjects, LongerTailBreaksATie) {
  TempDir t;
  touch(t, "b1/src/x.gcno");
  std::string n2 = touch(t, "b2/lib/src/x.gcno");
  touch(t, "b3/src/x.gcno");
  std::string d = touch(t, "prefix/lib/src/x.gcda");  // "lib/src/x" only with b2
  ObjectSearch s = find_objects({t / "b1", t / "b2", t / "b3", t / "prefix"}, {});
  EXPECT_TRUE(s.warnings.empty()) << s.warnings[0];
  ASSERT_EQ(s.objects.size(), 3u);
  EXPECT_EQ(s.objects[1].notes, n2);
  EXPECT_EQ(s.objects[1].data, d);
  EXPECT_EQ(s.objects[0].data, "");
  EXPECT_EQ(s.objects[2].data, "");
}

TEST(FindObjects, DataWithoutNotesIsAWarning) {
  TempDir t;
  std::string d = touch(t, "prefix/src/orphan.gcda");
  std::string n = touch(t, "build/src/other.gcno");
  ObjectSearch s = find_objects({t / "build", t / "prefix"}, {});
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], d + ": no matching .gcno file found; skipped");
  ASSERT_EQ(s.objects.size(), 1u);
  EXPECT_EQ(s.objects[0].notes, n);
  EXPECT_EQ(s.objects[0].data, "");
}

TEST(FindObjects, NonexistentRootIsAWarning) {
  TempDir t;
  std::string n = touch(t, "build/x.gcno");
  ObjectSearch s = find_objects({t / "nope", t / "build"}, {});
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], t / "nope" + ": no such file or directory");
  ASSERT_EQ(s.objects.size(), 1u);
  EXPECT_EQ(s.objects[0].notes, n);
}

TEST(FindObjects, NonexistentRootIsNamedAsGiven) {
  TempDir t;
  testing::in_directory(t.path(), [&] {
    ObjectSearch s = find_objects({"missing/dir"}, {});
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_EQ(s.warnings[0], "missing/dir: no such file or directory");
    EXPECT_TRUE(s.objects.empty());
  });
}

TEST(FindObjects, SingleFileRootsBothGiven) {
  TempDir t;
  std::string n = touch(t, "build/x.gcno");
  std::string d = touch(t, "build/x.gcda");
  touch(t, "build/y.gcno");  // not named: not found
  ObjectSearch s = find_objects({n, d}, {});
  EXPECT_TRUE(s.warnings.empty()) << s.warnings[0];
  ASSERT_EQ(s.objects.size(), 1u);
  EXPECT_EQ(s.objects[0].notes, n);
  EXPECT_EQ(s.objects[0].data, d);
}

TEST(FindObjects, SingleNotesFileRoot) {
  TempDir t;
  std::string n = touch(t, "build/x.gcno");
  ObjectSearch s = find_objects({n}, {});
  EXPECT_TRUE(s.warnings.empty());
  ASSERT_EQ(s.objects.size(), 1u);
  EXPECT_EQ(s.objects[0].notes, n);
  EXPECT_EQ(s.objects[0].data, "");
}

TEST(FindObjects, SingleRelativeFileRootsAreMadeAbsolute) {
  TempDir t;
  touch(t, "build/x.gcno");
  touch(t, "build/x.gcda");
  testing::in_directory(t.path(), [&] {
    const std::string here = cwd();
    ObjectSearch s = find_objects({"build/./x.gcno", "build/x.gcda"}, {});
    EXPECT_TRUE(s.warnings.empty()) << s.warnings[0];
    ASSERT_EQ(s.objects.size(), 1u);
    EXPECT_EQ(s.objects[0].notes, here + "/build/x.gcno");
    EXPECT_EQ(s.objects[0].data, here + "/build/x.gcda");
  });
}

// `covkit report --help` promises single .gcda files as roots; like gcov, a
// data file named alone must find the notes file beside it.
TEST(FindObjects, SingleDataFileRootPairsWithTheNotesBesideIt) {
  TempDir t;
  std::string n = touch(t, "build/x.gcno");
  std::string d = touch(t, "build/x.gcda");
  ObjectSearch s = find_objects({d}, {});
  EXPECT_TRUE(s.warnings.empty()) << s.warnings[0];
  ASSERT_EQ(s.objects.size(), 1u);
  EXPECT_EQ(s.objects[0].notes, n);
  EXPECT_EQ(s.objects[0].data, d);
}

TEST(FindObjects, SingleNotesFileRootBringsItsData) {
  TempDir t;
  std::string n = touch(t, "build/x.gcno");
  std::string d = touch(t, "build/x.gcda");
  touch(t, "build/y.gcda");  // not its partner
  ObjectSearch s = find_objects({n}, {});
  EXPECT_TRUE(s.warnings.empty()) << s.warnings[0];
  ASSERT_EQ(s.objects.size(), 1u);
  EXPECT_EQ(s.objects[0].notes, n);
  EXPECT_EQ(s.objects[0].data, d);
}

TEST(FindObjects, SingleDataFileRootWithoutNotesIsAWarning) {
  TempDir t;
  std::string d = touch(t, "build/x.gcda");
  ObjectSearch s = find_objects({d}, {});
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], d + ": no matching .gcno file found; skipped");
  EXPECT_TRUE(s.objects.empty());
}

TEST(FindObjects, SingleFileThatIsNoCoverageFileIsAWarning) {
  TempDir t;
  std::string f = touch(t, "build/x.o");
  ObjectSearch s = find_objects({f}, {});
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], f + ": neither a directory nor a .gcno/.gcda file");
  EXPECT_TRUE(s.objects.empty());
}

TEST(FindObjects, ObjectDirectoryGivesNotesOnly) {
  TempDir t;
  std::string n = touch(t, "objs/src/x.gcno");
  touch(t, "objs/src/stale.gcda");  // data in a notes directory is not read
  touch(t, "objs/src/stale.gcno");
  std::string d = touch(t, "data/src/x.gcda");
  ObjectSearch s = find_objects({t / "data"}, {t / "objs"});
  EXPECT_TRUE(s.warnings.empty()) << s.warnings[0];
  ASSERT_EQ(s.objects.size(), 2u);
  EXPECT_EQ(s.objects[0].notes, t / "objs/src/stale.gcno");
  EXPECT_EQ(s.objects[0].data, "");
  EXPECT_EQ(s.objects[1].notes, n);
  EXPECT_EQ(s.objects[1].data, d);
}

TEST(FindObjects, SameRootTwiceFindsEachFileOnce) {
  TempDir t;
  std::string n = touch(t, "build/x.gcno");
  std::string d = touch(t, "build/x.gcda");
  ObjectSearch s = find_objects({t / "build", t / "build/", t.path()}, {});
  EXPECT_TRUE(s.warnings.empty());
  ASSERT_EQ(s.objects.size(), 1u);
  EXPECT_EQ(s.objects[0].notes, n);
  EXPECT_EQ(s.objects[0].data, d);
}

TEST(FindObjects, DottedStemsPairByTheirFullStem) {
  // CMake names objects "foo.c.gcno"; the stem is everything before the last '.'.
  TempDir t;
  std::string n1 = touch(t, "build/CMakeFiles/p.dir/foo.c.gcno");
  std::string n2 = touch(t, "build/CMakeFiles/p.dir/foo.cc.gcno");
  std::string d = touch(t, "prefix/CMakeFiles/p.dir/foo.cc.gcda");
  ObjectSearch s = find_objects({t / "build", t / "prefix"}, {});
  EXPECT_TRUE(s.warnings.empty()) << s.warnings[0];
  ASSERT_EQ(s.objects.size(), 2u);
  EXPECT_EQ(s.objects[0].notes, n1);
  EXPECT_EQ(s.objects[0].data, "");
  EXPECT_EQ(s.objects[1].notes, n2);
  EXPECT_EQ(s.objects[1].data, d);
}

// --- directories_with_notes_near ----------------------------------------------

// `covkit report src/` beside a build/ that holds .gcno files but no file of a
// build system: build/ is where they are; a CMake tree beside it that holds
// no .gcno is not.
TEST(DirectoriesWithNotesNear, SiblingsHoldingNotesNotBuildSystemFiles) {
  TempDir t;
  touch(t, "p/src/a.c");
  touch(t, "p/build/CMakeFiles/prog.dir/src/a.c.gcno");
  touch(t, "p/cmake-build/CMakeCache.txt");  // a build tree without coverage
  touch(t, "p/other/x.gcda");                 // data alone
  EXPECT_EQ(directories_with_notes_near(t / "p/src"), std::vector<std::string>{t / "p/build"});
  EXPECT_EQ(directories_with_notes_near(t / "p/cmake-build"), std::vector<std::string>{t / "p/build"});
}

// Beside the parent when nothing beside it holds any (`covkit report
// src/lib`); the parent, which holds what was searched, is not a suggestion.
TEST(DirectoriesWithNotesNear, BesideTheParentWhenNotBesideIt) {
  TempDir t;
  touch(t, "p/src/lib/a.c");
  touch(t, "p/src/doc/x.txt");
  touch(t, "p/build-debug/a.gcno");
  touch(t, "p/build-release/a.gcno");
  EXPECT_EQ(directories_with_notes_near(t / "p/src/lib"),
            (std::vector<std::string>{t / "p/build-debug", t / "p/build-release"}));
  touch(t, "p/src/gen/g.gcno");  // nearer: the only one named
  EXPECT_EQ(directories_with_notes_near(t / "p/src/lib"), std::vector<std::string>{t / "p/src/gen"});
}

// The bounds: deeper than kNotesSearchDepth levels, hidden directories and
// links to directories are not searched; a search from / returns nothing.
TEST(DirectoriesWithNotesNear, BoundedDepthNoHiddenDirectoriesNoLinks) {
  TempDir t;
  touch(t, "p/src/a.c");
  touch(t, "p/shallow/1/2/3/4/5/6/x.gcno");     // 6 levels below shallow/
  touch(t, "p/deep/1/2/3/4/5/6/7/x.gcno");      // 7
  touch(t, "p/hidden/.cache/x.gcno");
  TempDir elsewhere;
  touch(elsewhere, "x.gcno");
  std::filesystem::create_directories(t / "p/linked");
  std::filesystem::create_directory_symlink(elsewhere.path(), t / "p/linked/to");
  EXPECT_EQ(directories_with_notes_near(t / "p/src"), std::vector<std::string>{t / "p/shallow"});
  EXPECT_TRUE(directories_with_notes_near("/").empty());
  EXPECT_TRUE(directories_with_notes_near(t / "p/src/a.c").empty());  // not a directory
}

}  // namespace
}  // namespace covkit::format
