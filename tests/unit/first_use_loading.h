#pragma once
// For the tests of libraries opened with dlopen at their first use
// (util/bzip2_on_demand, util/lzma_on_demand): in a program of its own (the
// test binary run again for this check alone, as a death test runs it),
// since any test before it in this process, in whatever order, may have
// opened the library already.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace covkit::test {

// `soname` is not loaded before `first_use` runs, `first_use` succeeds
// (returns true), and the library is loaded after it.
template <typename FirstUse>
void expect_loaded_at_first_use(const char* soname, FirstUse first_use) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const bool before = ::dlopen(soname, RTLD_NOW | RTLD_NOLOAD) == nullptr;
        const bool used = first_use();
        const bool after = ::dlopen(soname, RTLD_NOW | RTLD_NOLOAD) != nullptr;
        std::fprintf(stderr, "%s: unloaded before %d, used %d, loaded after %d\n", soname, before, used, after);
        std::_Exit(before && used && after ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace covkit::test
