// model/path_filter: --filter/--exclude regular expressions against the
// displayed and the absolute path, and system headers.
#include "model/path_filter.h"

#include <gtest/gtest.h>

#include <regex>

namespace covkit::model {
namespace path_filter_test {

SourcePaths sp(std::string display, std::string absolute) { return {std::move(absolute), std::move(display)}; }

TEST(PathFilter, NoPatternsKeepsProjectFiles) {
  PathFilter f({}, {}, false);
  EXPECT_TRUE(f.keep(sp("src/a.c", "/p/src/a.c")));
  EXPECT_TRUE(f.keep(sp("/elsewhere/b.c", "/elsewhere/b.c")));
}

TEST(PathFilter, IncludeMatchesDisplayOrAbsolute) {
  PathFilter f({"^src/"}, {}, false);
  EXPECT_TRUE(f.keep(sp("src/a.c", "/p/src/a.c")));    // display matches
  EXPECT_FALSE(f.keep(sp("lib/b.c", "/p/lib/b.c")));   // neither matches
  EXPECT_FALSE(f.keep(sp("lib/src.c", "/p/lib/src.c")));  // "^" anchors at the start
  PathFilter abs({"^/p/lib/"}, {}, false);
  EXPECT_TRUE(abs.keep(sp("lib/b.c", "/p/lib/b.c")));  // absolute matches
  EXPECT_FALSE(abs.keep(sp("src/a.c", "/p/src/a.c")));
}

TEST(PathFilter, RegexesSearchAnywhere) {
  PathFilter f({R"(\.c$)"}, {}, false);
  EXPECT_TRUE(f.keep(sp("src/a.c", "/p/src/a.c")));
  EXPECT_FALSE(f.keep(sp("src/a.cc", "/p/src/a.cc")));
  EXPECT_FALSE(f.keep(sp("src/a.h", "/p/src/a.h")));
}

TEST(PathFilter, AnyIncludeSuffices) {
  PathFilter f({"^src/", "^include/"}, {}, false);
  EXPECT_TRUE(f.keep(sp("src/a.c", "/p/src/a.c")));
  EXPECT_TRUE(f.keep(sp("include/a.h", "/p/include/a.h")));
  EXPECT_FALSE(f.keep(sp("test/t.c", "/p/test/t.c")));
}

TEST(PathFilter, ExcludeWinsOverInclude) {
  PathFilter f({"^src/"}, {"_test\\.c$", "^/p/src/gen/"}, false);
  EXPECT_TRUE(f.keep(sp("src/a.c", "/p/src/a.c")));
  EXPECT_FALSE(f.keep(sp("src/a_test.c", "/p/src/a_test.c")));  // display
  EXPECT_FALSE(f.keep(sp("src/gen/x.c", "/p/src/gen/x.c")));    // absolute
}

TEST(PathFilter, ExcludeAlone) {
  PathFilter f({}, {"third_party"}, false);
  EXPECT_TRUE(f.keep(sp("src/a.c", "/p/src/a.c")));
  EXPECT_FALSE(f.keep(sp("third_party/z.c", "/p/third_party/z.c")));
  EXPECT_FALSE(f.keep(sp("/opt/third_party/z.c", "/opt/third_party/z.c")));
}

TEST(PathFilter, SystemHeadersDroppedUnlessKept) {
  PathFilter drop({}, {}, false);
  PathFilter keep({}, {}, true);
  for (const char* h : {"/usr/include/stdio.h", "/usr/include/c++/12/bits/stl_vector.h",
                        "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h", "/usr/local/include/z.h"}) {
    EXPECT_FALSE(drop.keep(sp(h, h))) << h;
    EXPECT_TRUE(keep.keep(sp(h, h))) << h;
  }
  // A system header stays dropped even when an include pattern matches it.
  PathFilter inc({"vector"}, {}, false);
  EXPECT_FALSE(inc.keep(sp("/usr/include/c++/12/vector", "/usr/include/c++/12/vector")));
  PathFilter inc_keep({"vector"}, {}, true);
  EXPECT_TRUE(inc_keep.keep(sp("/usr/include/c++/12/vector", "/usr/include/c++/12/vector")));
  // Exclusion still applies to kept system headers.
  PathFilter ex_keep({}, {"^/usr/"}, true);
  EXPECT_FALSE(ex_keep.keep(sp("/usr/include/stdio.h", "/usr/include/stdio.h")));
}

TEST(PathFilter, SystemHeaderTestUsesTheAbsolutePath) {
  PathFilter drop({}, {}, false);
  // Displayed relative to a root of "/usr": still a system header.
  EXPECT_FALSE(drop.keep(sp("include/stdio.h", "/usr/include/stdio.h")));
  // A project file whose display looks like a system path is kept.
  EXPECT_TRUE(drop.keep(sp("/usr/include/x.h", "/home/me/usr/include/x.h")));
}

TEST(IsSystemHeader, Directories) {
  EXPECT_TRUE(is_system_header("/usr/include/stdio.h"));
  EXPECT_TRUE(is_system_header("/usr/local/include/boost/any.hpp"));
  EXPECT_TRUE(is_system_header("/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h"));
  EXPECT_TRUE(is_system_header("/usr/lib/llvm-15/lib/clang/15/include/stddef.h"));
  EXPECT_TRUE(is_system_header("/usr/lib/clang/15/include/stddef.h"));
  EXPECT_TRUE(is_system_header("/opt/homebrew/include/fmt/core.h"));
  EXPECT_FALSE(is_system_header("/usr/includes/x.h"));
  EXPECT_FALSE(is_system_header("/usr/include"));
  EXPECT_FALSE(is_system_header("/home/u/usr/include/x.h"));
  EXPECT_FALSE(is_system_header("/usr/lib/x.h"));
  EXPECT_FALSE(is_system_header("src/a.c"));
  EXPECT_FALSE(is_system_header(""));
}

TEST(IsCMakeProbe, CompilerIdentificationAndTryCompile) {
  EXPECT_TRUE(is_cmake_probe("/p/build/CMakeFiles/3.25.1/CompilerIdC/CMakeCCompilerId.c"));
  EXPECT_TRUE(is_cmake_probe("/p/build/CMakeFiles/3.25.1/CompilerIdCXX/CMakeCXXCompilerId.cpp"));
  EXPECT_TRUE(is_cmake_probe("/b/CMakeFiles/3.28.0-rc1/CompilerIdCUDA/CMakeCUDACompilerId.cu"));
  EXPECT_TRUE(is_cmake_probe("/b/CMakeFiles/CMakeScratch/TryCompile-abc/src.c"));
  EXPECT_TRUE(is_cmake_probe("/b/CMakeFiles/CMakeTmp/CheckSymbolExists.c"));
  EXPECT_FALSE(is_cmake_probe("/p/build/CMakeFiles/app.dir/main.c"));
  EXPECT_FALSE(is_cmake_probe("/p/src/CompilerIdC/CMakeCCompilerId.c"));  // not under CMakeFiles/<version>
  EXPECT_FALSE(is_cmake_probe("/b/CMakeFiles/3.25.1/CompilerIdC/CMakeCXXCompilerId.c"));  // languages differ
  EXPECT_FALSE(is_cmake_probe("/b/CMakeFiles/3.25.1/CompilerIdC/x/CMakeCCompilerId.c"));
  EXPECT_FALSE(is_cmake_probe("/b/CMakeFiles/3.25.1/CompilerId/CMakeCompilerId.c"));
  EXPECT_FALSE(is_cmake_probe("src/a.c"));
  EXPECT_FALSE(is_cmake_probe(""));
}

TEST(PathFilter, CMakeProbesDroppedUnlessKept) {
  const std::string probe = "/p/build/CMakeFiles/3.25.1/CompilerIdCXX/CMakeCXXCompilerId.cpp";
  EXPECT_FALSE(PathFilter({}, {}, false).keep(sp("build/CMakeFiles/3.25.1/CompilerIdCXX/CMakeCXXCompilerId.cpp", probe)));
  EXPECT_TRUE(PathFilter({}, {}, false, /*keep_cmake_probes=*/true).keep(sp(probe, probe)));
  EXPECT_TRUE(PathFilter({}, {}, false).keep(sp("build/CMakeFiles/app.dir/x.cpp", "/p/build/CMakeFiles/app.dir/x.cpp")));
}

TEST(PathFilter, BadPatternThrows) {
  EXPECT_THROW(PathFilter({"("}, {}, false), std::regex_error);
  EXPECT_THROW(PathFilter({}, {"[a-"}, false), std::regex_error);
}

}  // namespace
}  // namespace covkit::model
