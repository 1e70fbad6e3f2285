// report/gcov_file_names: output file names as gcov 12 chooses them
// (checked against gcov-12 -p/-l/-x/-j output).
#include "report/gcov/gcov_file_names.h"

#include <gtest/gtest.h>

namespace covkit::report {
namespace gcov_file_names_test {

TEST(MangledPath, SlashesAndDotDot) {
  EXPECT_EQ(mangle_path("../a/./b.c"), "^#a#.#b.c");
  EXPECT_EQ(mangle_path("a/b.c"), "a#b.c");
  EXPECT_EQ(mangle_path("/usr/include/stdio.h"), "#usr#include#stdio.h");
  EXPECT_EQ(mangle_path("../../x.c"), "^#^#x.c");
  EXPECT_EQ(mangle_path("a//b"), "a##b");
  EXPECT_EQ(mangle_path("a/b/"), "a#b#");
  EXPECT_EQ(mangle_path("x.c"), "x.c");
  EXPECT_EQ(mangle_path(""), "");
  // Only a whole ".." component becomes '^'.
  EXPECT_EQ(mangle_path("..a/b..c/..."), "..a#b..c#...");
  EXPECT_EQ(mangle_path(".."), "^");
}

NameOptions opts(bool l, bool p, bool x) { return NameOptions{l, p, x}; }

TEST(GcovFileName, Basename) {
  EXPECT_EQ(gcov_file_name("src/main.c", "src/main.c", opts(false, false, false)), "main.c.gcov");
  EXPECT_EQ(gcov_file_name("src/main.c", "/usr/include/stdio.h", opts(false, false, false)), "stdio.h.gcov");
  EXPECT_EQ(gcov_file_name("main.c", "../lib/u.h", opts(false, false, false)), "u.h.gcov");
}

TEST(GcovFileName, PreservePaths) {
  EXPECT_EQ(gcov_file_name("src/main.c", "src/main.c", opts(false, true, false)), "src#main.c.gcov");
  EXPECT_EQ(gcov_file_name("main.c", "../lib/u.h", opts(false, true, false)), "^#lib#u.h.gcov");
  EXPECT_EQ(gcov_file_name("main.c", "/usr/include/stdio.h", opts(false, true, false)), "#usr#include#stdio.h.gcov");
}

TEST(GcovFileName, LongNames) {
  // -l prefixes the input's name unless the source is the input itself.
  EXPECT_EQ(gcov_file_name("src/main.c", "src/h.h", opts(true, false, false)), "main.c##h.h.gcov");
  EXPECT_EQ(gcov_file_name("src/main.c", "src/main.c", opts(true, false, false)), "main.c.gcov");
  EXPECT_EQ(gcov_file_name("sub/p12-p.gcda", "p.c", opts(true, true, false)), "sub#p12-p.gcda##p.c.gcov");
  EXPECT_EQ(gcov_file_name("src/main.c", "../h.h", opts(true, true, false)), "src#main.c##^#h.h.gcov");
}

TEST(GcovFileName, HashNames) {
  // md5("src/h.h") = 709c808481a0d4660463b60b4b900174; -x wins over -l.
  EXPECT_EQ(gcov_file_name("src/main.c", "src/h.h", opts(false, false, true)),
            "h.h##709c808481a0d4660463b60b4b900174.gcov");
  EXPECT_EQ(gcov_file_name("src/main.c", "src/h.h", opts(true, false, true)),
            "h.h##709c808481a0d4660463b60b4b900174.gcov");
  EXPECT_EQ(gcov_file_name("src/main.c", "src/h.h", opts(false, true, true)),
            "src#h.h##709c808481a0d4660463b60b4b900174.gcov");
  // gcov-12 -x on p.c: p.c##7f45c2725970c4b18daba913a3adc2ea.gcov
  EXPECT_EQ(gcov_file_name("p12-p.gcda", "p.c", opts(false, false, true)), "p.c##7f45c2725970c4b18daba913a3adc2ea.gcov");
}

TEST(JsonFileName, Plain) {
  EXPECT_EQ(json_file_name("src/main.c", opts(false, false, false)), "main.gcov.json.gz");
  EXPECT_EQ(json_file_name("p12-p.gcda", opts(false, false, false)), "p12-p.gcov.json.gz");
  EXPECT_EQ(json_file_name("noext", opts(false, false, false)), "noext.gcov.json.gz");
  EXPECT_EQ(json_file_name("a.b.c", opts(false, false, false)), "a.b.gcov.json.gz");
}

TEST(JsonFileName, PreservePaths) {
  EXPECT_EQ(json_file_name("sub/p12-p.gcda", opts(false, true, false)), "p12-p##sub#p12-p.gcov.json.gz");
  EXPECT_EQ(json_file_name("main.c", opts(false, true, false)), "main.gcov.json.gz");  // no directory part
  EXPECT_EQ(json_file_name("../src/main.c", opts(false, true, false)), "main##^#src#main.gcov.json.gz");
  // gcov strips the last '.' of the mangled whole, even inside a directory name.
  EXPECT_EQ(json_file_name("../a.b/c", opts(false, true, false)), "c##^#a.gcov.json.gz");
}

TEST(JsonFileName, HashNames) {
  // gcov-12 -x -j p12-p.gcda: p12-p##81229286701a6bc3e0100e30e0861056.gcov.json.gz
  EXPECT_EQ(json_file_name("p12-p.gcda", opts(false, false, true)),
            "p12-p##81229286701a6bc3e0100e30e0861056.gcov.json.gz");
  EXPECT_EQ(json_file_name("src/main.c", opts(false, true, true)),
            "main##803c5170888b8642f2a97e5e9423d399.gcov.json.gz");
}

TEST(JsonFileName, LongNamesDoNotMatter) {
  EXPECT_EQ(json_file_name("src/main.c", opts(true, false, false)), "main.gcov.json.gz");
}

}  // namespace
}  // namespace covkit::report
