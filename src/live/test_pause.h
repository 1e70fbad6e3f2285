#pragma once
// Hooks for tests only (tests/live, scenarios kill_at_random and
// exec_during_dump), between the steps of a dump:
//   COVKIT_TEST_LIVE_STEP_US=N  covkit sleeps a random 0 to N microseconds,
//                               so that kills at random instants land in
//                               every step;
//   COVKIT_TEST_LIVE_STOP_AT=K  at the K-th step boundary (from 1) covkit
//                               stops itself (SIGSTOP), so that a test acts
//                               at that very point (kills covkit, execs the
//                               target) instead of at a time it guesses.
// Unset, each costs one load.
namespace covkit::live {

void test_step_pause();

}  // namespace covkit::live
