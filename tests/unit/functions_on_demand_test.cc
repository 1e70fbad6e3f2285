// util/functions_on_demand.h: a library's functions resolved all or none.
// libc serves as the library: it is loaded in every process, so dlopen
// answers with it without loading anything new.
#include "util/functions_on_demand.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace covkit::util {
namespace functions_on_demand_test {

TEST(FunctionsOnDemand, AllFoundAreFilledAndCallable) {
  decltype(&std::strlen) length = nullptr;
  int (*absolute)(int) = nullptr;
  ASSERT_TRUE(resolve_functions_on_demand("libc.so.6", std::pair{&length, "strlen"}, std::pair{&absolute, "abs"}));
  ASSERT_NE(length, nullptr);
  ASSERT_NE(absolute, nullptr);
  EXPECT_EQ(length("four"), 4u);
  EXPECT_EQ(absolute(-7), 7);
}

TEST(FunctionsOnDemand, OneMissingFillsNone) {
  decltype(&std::strlen) length = nullptr;
  int (*absolute)(int) = nullptr;
  EXPECT_FALSE(resolve_functions_on_demand("libc.so.6", std::pair{&length, "strlen"},
                                           std::pair{&absolute, "covkit_no_such_function"}));
  EXPECT_EQ(length, nullptr);
  EXPECT_EQ(absolute, nullptr);
}

TEST(FunctionsOnDemand, AMissingLibraryFillsNone) {
  decltype(&std::strlen) length = nullptr;
  EXPECT_FALSE(resolve_functions_on_demand("libcovkit-no-such-library.so.0", std::pair{&length, "strlen"}));
  EXPECT_EQ(length, nullptr);
}

}  // namespace functions_on_demand_test
}  // namespace covkit::util
