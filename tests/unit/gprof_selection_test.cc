// trace/gprof_selection: gprof's symbol specifications on a symbol table
// built by hand (addresses, files and lines known by construction).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gprof/gprof_selection.h"

namespace gprof_selection_test {

using namespace covkit::trace;
using T = GprofTable;

GprofSymbol sym(const char* name, uint64_t addr, const char* file, int line, bool is_static = false) {
  GprofSymbol s;
  s.name = name;
  s.addr = addr;
  s.file = file;
  s.line = line;
  s.is_static = is_static;
  return s;
}

// main, f, g in /src/a.c; h in /src/b.c; mcount (the profiler's) without
// a file; a second a.c in another directory met last.
GprofSymbolTable table() {
  GprofSymbolTable t;
  t.symbols = {sym("main", 0x1000, "/src/a.c", 10), sym("f", 0x1010, "/src/a.c", 20, true),
               sym("g", 0x1020, "/src/a.c", 30), sym("h", 0x1030, "/src/b.c", 5),
               sym("k", 0x1040, "/other/a.c", 7), sym("mcount", 0x1050, "", 0)};
  finalize_gprof_symbols(t.symbols, 0x1060);
  t.source_files = {"/src/a.c", "/src/b.c", "/other/a.c"};
  return t;
}

TEST(GprofSelection, DefaultsExcludeOnlyTheProfilersFunctions) {
  auto t = table();
  GprofSelection s(t);
  for (const GprofSymbol& f : t.symbols) EXPECT_EQ(s.flat(f.addr), f.name != "mcount") << f.name;
  EXPECT_TRUE(s.empty(T::kInclFlat));
  EXPECT_TRUE(s.holds(T::kExclGraph, 0x1050));
  EXPECT_TRUE(s.holds(T::kExclTime, 0x1055));  // anywhere inside it
  EXPECT_TRUE(s.arc_kept(t.symbols[0], t.symbols[1]));
}

TEST(GprofSelection, FunctionNameLineAndFile) {
  auto t = table();
  GprofSelection by_name(t, {{"g", T::kInclFlat}});
  EXPECT_TRUE(by_name.flat(0x1020));
  EXPECT_FALSE(by_name.flat(0x1000));
  EXPECT_FALSE(by_name.flat(0x1050));  // an inclusion leaves the exclusions no say

  GprofSelection by_line(t, {{"20", T::kExclGraph}});
  EXPECT_TRUE(by_line.holds(T::kExclGraph, 0x1010));
  EXPECT_FALSE(by_line.holds(T::kExclGraph, 0x1000));

  // "a.c" is the last a.c met (/other/a.c), as gprof's newest-first list
  // of files finds it; FILE:FUNCTION and FILE:LINE narrow it.
  GprofSelection by_file(t, {{"a.c", T::kInclGraph}});
  EXPECT_TRUE(by_file.holds(T::kInclGraph, 0x1040));
  EXPECT_FALSE(by_file.holds(T::kInclGraph, 0x1000));
  GprofSelection by_file_line(t, {{"b.c:5", T::kInclTime}, {"b.c:main", T::kExclTime}});
  EXPECT_TRUE(by_file_line.holds(T::kInclTime, 0x1030));
  EXPECT_FALSE(by_file_line.holds(T::kExclTime, 0x1000));  // main is not in b.c

  GprofSelection nothing(t, {{"nosuch.c", T::kInclFlat}, {"nosuch", T::kExclFlat}});
  EXPECT_TRUE(nothing.empty(T::kInclFlat));  // a file of that name does not exist: no range
  EXPECT_TRUE(nothing.flat(0x1000));
}

TEST(GprofSelection, ConsecutiveMatchesBecomeOneRange) {
  auto t = table();
  // Two functions named alike only by file: main, f and g are one range of
  // /src/a.c... once /src/a.c is the last a.c met.
  t.source_files = {"/other/a.c", "/src/a.c", "/src/b.c"};
  GprofSelection s(t, {{"a.c", T::kInclFlat}});
  for (uint64_t a : {0x1000, 0x1010, 0x1020, 0x102f}) EXPECT_TRUE(s.flat(a)) << std::hex << a;
  EXPECT_FALSE(s.flat(0x1030));
  EXPECT_FALSE(s.flat(0x1040));
}

TEST(GprofSelection, ArcsFromTo) {
  auto t = table();
  const auto& main = t.symbols[0];
  const auto& f = t.symbols[1];
  const auto& g = t.symbols[2];
  GprofSelection cut(t, {{"main/f", T::kExclArcs}});
  EXPECT_FALSE(cut.arc_kept(main, f));
  EXPECT_TRUE(cut.arc_kept(main, g));
  EXPECT_TRUE(cut.arc_kept(f, f));
  GprofSelection only(t, {{"main/g", T::kInclArcs}, {"f/g", T::kInclArcs}});
  EXPECT_TRUE(only.arc_kept(main, g));
  EXPECT_TRUE(only.arc_kept(f, g));
  EXPECT_FALSE(only.arc_kept(main, f));
  // A file on either side: every function of /src/b.c to everything in a.c (the last one met).
  GprofSelection files(t, {{"b.c/a.c", T::kExclArcs}});
  EXPECT_FALSE(files.arc_kept(t.symbols[3], t.symbols[4]));
  EXPECT_TRUE(files.arc_kept(t.symbols[3], main));
}

}  // namespace
