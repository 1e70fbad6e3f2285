#pragma once
// A slowdown for one test only (tests/live, scenario kill_at_random): with
// COVKIT_TEST_LIVE_STEP_US=N in the environment, covkit sleeps a random 0 to
// N microseconds between the steps of a dump, so that kills at random
// instants land in every one of them. Unset, it costs one load.
namespace covkit::live {

void test_step_pause();

}  // namespace covkit::live
