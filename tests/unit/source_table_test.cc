// model/source_table: gcov's canonical source names and the table of sources.
#include "model/source_table.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include "test_support.h"

namespace covkit::model {
namespace source_table_test {

using testing::TempDir;

void mkdirs(const std::string& path) { ASSERT_EQ(testing::run_command("mkdir -p '" + path + "'"), 0); }

using testing::in_directory;

TEST(CanonicalizeName, ElidesDotAndResolvesDotDotOfExistingDirectories) {
  TempDir t;
  mkdirs(t / "a/b");
  const std::string& d = t.path();
  EXPECT_EQ(canonicalize_name(d + "/a/./b/../c"), d + "/a/c");
  EXPECT_EQ(canonicalize_name(d + "/a/b/.."), d + "/a");
  EXPECT_EQ(canonicalize_name(d + "/a/b/../../x"), d + "/x");
  in_directory(d, [] {
    EXPECT_EQ(canonicalize_name("a/./b/../c"), "a/c");
    EXPECT_EQ(canonicalize_name("a/b/.."), "a");
    EXPECT_EQ(canonicalize_name("./a//b/z.c"), "a/b/z.c");
    EXPECT_EQ(canonicalize_name("a/b/./."), "a/b");
  });
}

TEST(CanonicalizeName, KeepsDotDotOfMissingDirectories) {
  TempDir t;
  mkdirs(t / "a");
  const std::string& d = t.path();
  EXPECT_EQ(canonicalize_name(d + "/a/nx/../c"), d + "/a/nx/../c");
  // Once a '..' is kept, later ones cannot climb above it.
  EXPECT_EQ(canonicalize_name(d + "/a/nx/../../y"), d + "/a/nx/../../y");
  in_directory(d, [] { EXPECT_EQ(canonicalize_name("a/./nx/../c"), "a/nx/../c"); });
}

TEST(CanonicalizeName, LeadingDotDotStays) {
  EXPECT_EQ(canonicalize_name("../x"), "../x");
  EXPECT_EQ(canonicalize_name("../../x/y.c"), "../../x/y.c");
  EXPECT_EQ(canonicalize_name("./../x"), "../x");
  EXPECT_EQ(canonicalize_name(".."), "..");
}

TEST(CanonicalizeName, AbsoluteAndRepeatedSlashes) {
  EXPECT_EQ(canonicalize_name("/abs//y"), "/abs/y");
  EXPECT_EQ(canonicalize_name("//abs///y//"), "/abs/y");
  EXPECT_EQ(canonicalize_name("/"), "");  // gcov's quirk: the root alone becomes empty
  EXPECT_EQ(canonicalize_name("/./usr/./include"), "/usr/include");
}

TEST(CanonicalizeName, Trivial) {
  EXPECT_EQ(canonicalize_name(""), "");
  EXPECT_EQ(canonicalize_name("."), "");
  EXPECT_EQ(canonicalize_name("./x.c"), "x.c");
  EXPECT_EQ(canonicalize_name("x.c"), "x.c");
}

TEST(CanonicalizeName, DotDotAfterSymlinkIsResolvedTextually) {
  // gcov stat()s (following links), so S_ISLNK never holds: gcov-12 reports
  // a file compiled as lnk/../b/w.c (lnk -> a/b) as 'b/w.c'. Kept for identical output.
  TempDir t;
  mkdirs(t / "a/b");
  ASSERT_EQ(::symlink("a/b", (t / "lnk").c_str()), 0);
  in_directory(t.path(), [] { EXPECT_EQ(canonicalize_name("lnk/../b/w.c"), "b/w.c"); });
}

TEST(SourceTable, SpellingsOfOneFileShareAnEntry) {
  TempDir t;
  mkdirs(t / "a/b");
  SourceTable table;
  int newer_calls = 0;
  auto newer = [&](const std::string&) { newer_calls++; };
  uint32_t i1 = table.find(t / "a/b/x.c", INT64_MAX, newer);
  uint32_t i2 = table.find(t / "a/./b/x.c", INT64_MAX, newer);
  uint32_t i3 = table.find(t / "a/b/../b/x.c", INT64_MAX, newer);
  uint32_t other = table.find(t / "a/y.c", INT64_MAX, newer);
  EXPECT_EQ(i1, 0u);
  EXPECT_EQ(i2, 0u);
  EXPECT_EQ(i3, 0u);
  EXPECT_EQ(other, 1u);
  ASSERT_EQ(table.entries().size(), 2u);
  EXPECT_EQ(table.entries()[0].name, t / "a/b/x.c");
  EXPECT_EQ(table.lookup(t / "a/./b/x.c"), 0);
  EXPECT_EQ(table.lookup(t / "a/y.c"), 1);
  EXPECT_EQ(table.lookup("never/seen.c"), -1);
  EXPECT_EQ(newer_calls, 0);
  table.clear();
  EXPECT_TRUE(table.entries().empty());
  EXPECT_EQ(table.lookup(t / "a/y.c"), -1);
}

TEST(SourceTable, SourcePrefixIsRemovedFromDisplayName) {
  SourceTable table("/src/proj");
  table.find("/src/proj/lib/a.c", 0, nullptr);
  table.find("/src/projother/b.c", 0, nullptr);
  table.find("/src/proj", 0, nullptr);
  ASSERT_EQ(table.entries().size(), 3u);
  EXPECT_EQ(table.entries()[0].display_name, "lib/a.c");
  EXPECT_EQ(table.entries()[0].name, "/src/proj/lib/a.c");
  EXPECT_EQ(table.entries()[1].display_name, "/src/projother/b.c");  // not a directory prefix
  EXPECT_EQ(table.entries()[2].display_name, "/src/proj");
}

TEST(SourceTable, NewerThanNotesReportedOnce) {
  TempDir t;
  std::string src = t / "s.c";
  testing::write_text(src, "int x;\n");
  struct utimbuf times {1000000, 2000000};
  ASSERT_EQ(::utime(src.c_str(), &times), 0);
  SourceTable table;
  std::vector<std::string> reported;
  auto newer = [&](const std::string& s) { reported.push_back(s); };
  uint32_t idx = table.find(src, 1999999, newer);
  EXPECT_EQ(reported, (std::vector<std::string>{src}));
  EXPECT_EQ(table.entries()[idx].file_time, 0);  // marks "Source is newer than graph"
  table.find(src, 1999999, newer);
  EXPECT_EQ(reported.size(), 1u);

  SourceTable older;
  older.find(src, 2000000, newer);  // same second: not newer
  EXPECT_EQ(reported.size(), 1u);
  EXPECT_EQ(older.entries()[0].file_time, 2000000);
}

TEST(SourceTable, MissingFileHasNoTime) {
  SourceTable table;
  int calls = 0;
  table.find("/nonexistent/covkit/x.c", 0, [&](const std::string&) { calls++; });
  EXPECT_EQ(table.entries()[0].file_time, 0);
  EXPECT_EQ(calls, 0);
}

TEST(SourceTable, SharedFactsGiveTheSameEntriesAsTheFileSystem) {
  // Tables of several sessions (a report's objects) asking one
  // SourceNameFacts: the same canonical names, times and newer-than-notes
  // reports as each asking the file system itself.
  TempDir t;
  mkdirs(t / "a/b");
  const std::string src = t / "a/s.c";
  testing::write_text(src, "int x;\n");
  struct utimbuf times {1000000, 2000000};
  ASSERT_EQ(::utime(src.c_str(), &times), 0);
  const std::vector<std::string> spellings = {t / "a/b/../s.c", t / "a/./s.c", t / "a/nx/../s.c", src,
                                              "/nonexistent/covkit/x.c"};
  SourceNameFacts facts;
  for (int session = 0; session < 2; ++session) {
    SourceTable own, shared("", &facts);
    std::vector<std::string> own_newer, shared_newer;
    for (const std::string& s : spellings) {
      EXPECT_EQ(own.find(s, 1999999, [&](const std::string& n) { own_newer.push_back(n); }),
                shared.find(s, 1999999, [&](const std::string& n) { shared_newer.push_back(n); }))
          << s;
    }
    ASSERT_EQ(own.entries().size(), shared.entries().size());
    ASSERT_EQ(own.entries().size(), 3u);  // a/s.c, a/nx/../s.c, x.c
    for (size_t i = 0; i < own.entries().size(); ++i) {
      EXPECT_EQ(own.entries()[i].name, shared.entries()[i].name);
      EXPECT_EQ(own.entries()[i].file_time, shared.entries()[i].file_time);
    }
    EXPECT_EQ(own_newer, shared_newer);
    EXPECT_EQ(shared_newer, (std::vector<std::string>{t / "a/b/../s.c"}));
  }
  EXPECT_EQ(facts.of(t / "a/b/../s.c").canonical, src);
  EXPECT_EQ(facts.of(t / "a/b/../s.c").mtime, std::optional<int64_t>(2000000));
  EXPECT_EQ(facts.of("/nonexistent/covkit/x.c").mtime, std::nullopt);
}

}  // namespace
}  // namespace covkit::model
