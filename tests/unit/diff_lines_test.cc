// model/diff_lines: the new-side lines of `git diff -U0` output, and running
// git itself (skipped when git is not installed).
#include "model/diff_lines.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace covkit::model {
namespace diff_lines_test {

using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;

ChangedLines must_parse(std::string_view diff) {
  auto r = parse_unified_diff(diff);
  EXPECT_TRUE(r) << r.error().message;
  return r ? *r : ChangedLines{};
}

std::string parse_error(std::string_view diff) {
  auto r = parse_unified_diff(diff);
  EXPECT_FALSE(r);
  return r ? "" : r.error().message;
}

// What git 2.39 prints for a commit against a working tree with an added,
// a binary, a deleted, a renamed-and-edited, a quoted and a spaced file.
constexpr std::string_view kGitDiff =
    "diff --git a/added.c b/added.c\n"
    "new file mode 100644\n"
    "index 0000000..2fe4df4\n"
    "--- /dev/null\n"
    "+++ b/added.c\n"
    "@@ -0,0 +1,2 @@\n"
    "+n1\n"
    "+n2\n"
    "diff --git a/bin.dat b/bin.dat\n"
    "index 8352675..1592e5c 100644\n"
    "Binary files a/bin.dat and b/bin.dat differ\n"
    "diff --git a/del.c b/del.c\n"
    "deleted file mode 100644\n"
    "index 286c5f5..0000000\n"
    "--- a/del.c\n"
    "+++ /dev/null\n"
    "@@ -1 +0,0 @@\n"
    "-gone\n"
    "diff --git a/old.c b/new.c\n"
    "similarity index 83%\n"
    "rename from old.c\n"
    "rename to new.c\n"
    "index edb6c6a..62c226b 100644\n"
    "--- a/old.c\n"
    "+++ b/new.c\n"
    "@@ -3 +3 @@ r2\n"
    "-r3\n"
    "+R3\n"
    "diff --git \"a/q\\\"uo\\\\te.c\" \"b/q\\\"uo\\\\te.c\"\n"
    "index 01e79c3..2b2f2e1 100644\n"
    "--- \"a/q\\\"uo\\\\te.c\"\n"
    "+++ \"b/q\\\"uo\\\\te.c\"\n"
    "@@ -2 +1,0 @@\n"
    "-2\n"
    "diff --git a/sp ace.c b/sp ace.c\n"
    "index d68dd40..6fe8acc 100644\n"
    "--- a/sp ace.c\t\n"
    "+++ b/sp ace.c\t\n"
    "@@ -2 +2 @@ a\n"
    "-b\n"
    "+B\n"
    "@@ -4,0 +5 @@ d\n"
    "+e\n"
    "diff --git \"a/\\303\\251.c\" \"b/\\303\\251.c\"\n"
    "index b77b4eb..7061c57 100644\n"
    "--- \"a/\\303\\251.c\"\n"
    "+++ \"b/\\303\\251.c\"\n"
    "@@ -2 +2 @@ x\n"
    "-y\n"
    "+Y\n";

TEST(DiffLines, ParsesWhatGitWrites) {
  ChangedLines c = must_parse(kGitDiff);
  EXPECT_EQ(c.ranges.size(), 5u);
  EXPECT_EQ(c.ranges["added.c"], (Ranges{{1, 2}}));
  EXPECT_EQ(c.ranges.count("bin.dat"), 0u);
  EXPECT_EQ(c.ranges.count("del.c"), 0u);
  EXPECT_EQ(c.ranges.count("old.c"), 0u);
  EXPECT_EQ(c.ranges["new.c"], (Ranges{{3, 3}}));
  ASSERT_EQ(c.ranges.count("q\"uo\\te.c"), 1u);  // only lines removed: present, empty
  EXPECT_TRUE(c.ranges["q\"uo\\te.c"].empty());
  EXPECT_EQ(c.ranges["sp ace.c"], (Ranges{{2, 2}, {5, 5}}));
  EXPECT_EQ(c.ranges["\xc3\xa9.c"], (Ranges{{2, 2}}));
  EXPECT_TRUE(c.contains("new.c", 3));
  EXPECT_FALSE(c.contains("new.c", 2));
  EXPECT_FALSE(c.contains("new.c", 4));
  EXPECT_TRUE(c.contains("sp ace.c", 5));
  EXPECT_FALSE(c.contains("sp ace.c", 3));
  EXPECT_FALSE(c.contains("nothing.c", 1));
}

TEST(DiffLines, HunkCountsAndAdjacentHunks) {
  ChangedLines c = must_parse(
      "diff --git a/f b/f\n--- a/f\n+++ b/f\n"
      "@@ -1,0 +2,3 @@\n+a\n+b\n+c\n"
      "@@ -3 +5 @@\n-x\n+y\n"          // joins 2..4 into 2..5
      "@@ -10,2 +13,0 @@\n-p\n-q\n"    // "+c,0": no new lines
      "@@ -20 +20,2 @@\n-o\n+n1\n+n2\n"
      "\\ No newline at end of file\n");
  EXPECT_EQ(c.ranges["f"], (Ranges{{2, 5}, {20, 21}}));
}

TEST(DiffLines, ContextLinesAndHeaderLookalikesInsideHunks) {
  // With context (not what covkit runs, but any diff) only '+' lines count;
  // a body line that looks like a header is still body.
  ChangedLines c = must_parse(
      "diff --git a/f b/f\n--- a/f\n+++ b/f\n"
      "@@ -1,4 +1,5 @@\n"
      " keep\n"
      "-+++ b/evil\n"
      "++++ b/evil2\n"
      "+--- a/x\n"
      "\n"  // a blank context line some tools strip to nothing
      " end\n");
  EXPECT_EQ(c.ranges.size(), 1u);
  EXPECT_EQ(c.ranges["f"], (Ranges{{2, 3}}));
}

TEST(DiffLines, EmptyDiffAndPureRenames) {
  EXPECT_TRUE(must_parse("").ranges.empty());
  ChangedLines c = must_parse(
      "diff --git a/x.c b/y.c\nsimilarity index 100%\nrename from x.c\nrename to y.c\n"
      "diff --git a/m.sh b/m.sh\nold mode 100644\nnew mode 100755\n");
  EXPECT_TRUE(c.ranges.empty());
}

TEST(DiffLines, GitBinaryPatchDataIsSkipped) {
  ChangedLines c = must_parse(
      "diff --git a/b.bin b/b.bin\nindex 1..2 100644\nGIT binary patch\nliteral 3\n"
      "@@ -1 +1 @@ not a hunk\n+++ b/fake\n\nliteral 0\n"
      "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n");
  EXPECT_EQ(c.ranges.size(), 1u);
  EXPECT_EQ(c.ranges["f"], (Ranges{{1, 1}}));
}

TEST(DiffLines, MalformedDiffsAreErrors) {
  EXPECT_EQ(parse_error("@@ -1 +1 @@\n+x\n"), "diff line 1: hunk before any '+++' file header");
  EXPECT_EQ(parse_error("+++ b/f\n@@ -1 +x @@\n"), "diff line 2: malformed hunk header '@@ -1 +x @@'");
  EXPECT_EQ(parse_error("+++ b/f\n@@ -1 +4294967295,2 @@\n"),
            "diff line 2: malformed hunk header '@@ -1 +4294967295,2 @@'");
  EXPECT_EQ(parse_error("+++ b/f\n@@ -1,2 +1,2 @@\n+a\n"), "diff line 3: the diff ends inside a hunk");
  EXPECT_EQ(parse_error("+++ b/f\n@@ -1 +1 @@\n+a\n+b\n"), "diff line 4: hunk body does not match its header: '+b'");
  EXPECT_EQ(parse_error("+++ b/f\n@@ -1 +1 @@\nxyz\n"), "diff line 3: hunk body does not match its header: 'xyz'");
  EXPECT_EQ(parse_error("+++ \"b/bad\\q\"\n"), "diff line 1: cannot read the file name in '+++ \"b/bad\\q\"'");
  EXPECT_EQ(parse_error("+++ \"b/\\40\"\n"), "diff line 1: cannot read the file name in '+++ \"b/\\40\"'");
  EXPECT_EQ(parse_error("+++ b/\n"), "diff line 1: cannot read the file name in '+++ b/'");
  EXPECT_EQ(parse_error("diff --cc f\n+++ b/f\n@@@ -1 -1 +1 @@@\n"),
            "diff line 3: combined diffs (of a merge in progress) are not supported");
  // A header claiming billions of lines costs nothing until lines arrive.
  EXPECT_EQ(parse_error("+++ b/f\n@@ -1 +1,4000000000 @@\n+a\n"), "diff line 3: the diff ends inside a hunk");
}

TEST(DiffLines, QuotedEscapes) {
  ChangedLines c = must_parse("+++ \"b/t\\tn\\nq\\\"s\\\\o\\101\"\n@@ -0,0 +1 @@\n+x\n");
  EXPECT_EQ(c.ranges.count("t\tn\nq\"s\\oA"), 1u);
  // A quoted name holding a space gets git's trailing tab too.
  ChangedLines t = must_parse("+++ \"b/a b\\303\\251.c\"\t\n@@ -0,0 +1 @@\n+x\n");
  EXPECT_EQ(t.ranges.count("a b\xc3\xa9.c"), 1u);
}

// ---- running git ----------------------------------------------------------

class GitRepo : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::have_program("git")) GTEST_SKIP() << "git is not installed";
    std::string out;
    ASSERT_EQ(testing::run_command("cd '" + dir_.path() +
                                       "' && git init -q . && git config user.email t@t && git config user.name t"
                                       " && mkdir sub && printf '1\\n2\\n3\\n' > sub/a.c && git add -A"
                                       " && git commit -qm one",
                                   &out),
              0)
        << out;
  }
  testing::TempDir dir_;
};

TEST_F(GitRepo, ChangedLinesSinceHead) {
  ASSERT_TRUE(testing::write_text(dir_ / "sub/a.c", "1\nTWO\n3\n4\n"));
  ASSERT_TRUE(testing::write_text(dir_ / "new file.c", "x\n"));
  ASSERT_EQ(testing::run_command("cd '" + dir_.path() + "' && git add -N 'new file.c'"), 0);
  // From a subdirectory, paths are still relative to the top level.
  auto c = changed_lines_since("HEAD", dir_ / "sub");
  ASSERT_TRUE(c) << c.error().message;
  char real[4096];
  ASSERT_TRUE(::realpath(dir_.path().c_str(), real));
  EXPECT_EQ(c->toplevel, real);
  EXPECT_EQ(c->ranges["sub/a.c"], (Ranges{{2, 2}, {4, 4}}));
  EXPECT_EQ(c->ranges["new file.c"], (Ranges{{1, 1}}));
}

TEST_F(GitRepo, UnknownRevisionQuotesGit) {
  auto c = changed_lines_since("no-such-rev", dir_.path());
  ASSERT_FALSE(c);
  const std::string& error = c.error().message;
  EXPECT_NE(error.find("git diff no-such-rev: fatal:"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST_F(GitRepo, RevisionsThatLookLikeOptionsAreRefused) {
  std::string evil = dir_ / "pwned";
  auto c = changed_lines_since("--output=" + evil, dir_.path());
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "'--output=" + evil + "' is not a revision");
  EXPECT_FALSE(changed_lines_since("HEAD; touch " + evil, dir_.path()));  // one argv word, no shell
  EXPECT_NE(::access(evil.c_str(), F_OK), 0);
}

TEST(DiffLinesGit, NotARepository) {
  if (!testing::have_program("git")) GTEST_SKIP() << "git is not installed";
  testing::TempDir dir;
  auto c = changed_lines_since("HEAD", dir.path());
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("not a git repository"), std::string::npos) << c.error().message;
}

TEST(DiffLinesGit, GitMissing) {
  const char* old = std::getenv("PATH");
  std::string saved = old ? old : "";
  ::setenv("PATH", "/nonexistent-covkit", 1);
  auto c = changed_lines_since("HEAD", ".");
  ::setenv("PATH", saved.c_str(), 1);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "git is not installed (or not on PATH)");
}

}  // namespace
}  // namespace covkit::model
