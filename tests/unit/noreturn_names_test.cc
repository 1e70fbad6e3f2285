// sample/noreturn_names: calls that never return end a block without a
// fall-through; a name missed here lets the inference run on into the code
// after the call (covkit blocks on Lua: luaD_throw's `_longjmp` made the
// `else` after it look run).
#include "sample/noreturn_names.h"

#include <gtest/gtest.h>

namespace covkit::sample {
namespace noreturn_names_test {

TEST(NoreturnNames, LibraryCallsThatNeverReturn) {
  for (const char* name : {"exit", "_exit", "abort", "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk",
                           "pthread_exit", "__assert_fail", "__assert_perror_fail", "exit@GLIBC_2.2.5",
                           "_ZSt20__throw_length_errorPKc"})
    EXPECT_TRUE(is_known_noreturn(name)) << name;
  for (const char* name : {"setjmp", "_setjmp", "printf", "longjmp_wrapper", "", "exiting"})
    EXPECT_FALSE(is_known_noreturn(name)) << name;
}

}  // namespace noreturn_names_test
}  // namespace covkit::sample
