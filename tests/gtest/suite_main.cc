// main() of covkit's GoogleTest programs. CTest runs one whole suite per
// process (see suites.cmake), so a skipped test must not hide behind the
// suite's passing ones: a run in which tests were skipped and none failed
// exits 77, which CTest reports as "Skipped" (and CI counts as a failure,
// scripts/test.sh). Failures still exit 1.
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  if (status == 0 && testing::UnitTest::GetInstance()->skipped_test_count() > 0) return 77;
  return status;
}
