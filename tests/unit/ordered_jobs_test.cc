#include "util/ordered_jobs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace covkit::util {
namespace {

// Jobs that square their input, with the bookkeeping the tests check.
struct Squares {
  size_t count;
  size_t window;
  std::vector<size_t> input, output;  // by slot
  std::vector<size_t> used;           // squares in the order used
  std::atomic<size_t> runs{0};
  size_t prepared = 0, max_pending = 0;

  OrderedJobs jobs() {
    input.assign(window, 0);
    output.assign(window, 0);
    OrderedJobs j;
    j.prepare = [this](size_t i) {
      if (i >= count) return false;
      EXPECT_EQ(i, prepared) << "prepared out of order";
      ++prepared;
      max_pending = std::max(max_pending, prepared - used.size());
      input[i % window] = i;
      return true;
    };
    j.run = [this](size_t i) {
      output[i % window] = input[i % window] * input[i % window];
      ++runs;
    };
    j.use = [this](size_t i) {
      EXPECT_EQ(i, used.size()) << "used out of order";
      used.push_back(output[i % window]);
      return true;
    };
    return j;
  }
};

TEST(OrderedJobs, EveryJobRunsOnceAndIsUsedInOrderWithinTheWindow) {
  for (unsigned threads : {1u, 2u, 4u})
    for (size_t window : {1u, 3u, 8u})
      for (size_t count : {0u, 1u, 5u, 200u}) {
        Squares s{count, window, {}, {}, {}};
        EXPECT_TRUE(run_ordered(s.jobs(), threads, window));
        ASSERT_EQ(s.used.size(), count) << threads << " threads, window " << window;
        for (size_t i = 0; i < count; ++i) EXPECT_EQ(s.used[i], i * i);
        EXPECT_EQ(s.runs.load(), count);
        EXPECT_LE(s.max_pending, window);
      }
}

TEST(OrderedJobs, UseReturningFalseStopsTheRest) {
  for (unsigned threads : {1u, 3u}) {
    Squares s{100, 4, {}, {}, {}};
    OrderedJobs j = s.jobs();
    auto use = j.use;
    j.use = [&](size_t i) { return use(i) && i < 9; };
    EXPECT_FALSE(run_ordered(j, threads, 4));
    EXPECT_EQ(s.used.size(), 10u);
    EXPECT_LE(s.prepared, 10u + 4u);  // nothing prepared beyond the window
  }
}

TEST(OrderedJobs, AnExceptionOfAJobIsRethrownAfterTheThreadsStop) {
  for (unsigned threads : {1u, 2u}) {
    Squares s{50, 4, {}, {}, {}};
    OrderedJobs j = s.jobs();
    auto run = j.run;
    j.run = [&](size_t i) {
      if (i == 7) throw std::runtime_error("job 7");
      run(i);
    };
    EXPECT_THROW(run_ordered(j, threads, 4), std::runtime_error);
    EXPECT_LE(s.used.size(), 7u);
  }
  Squares s{50, 4, {}, {}, {}};
  OrderedJobs j = s.jobs();
  j.prepare = [](size_t i) -> bool {
    if (i == 3) throw std::runtime_error("prepare 3");
    return true;
  };
  j.run = [](size_t) {};
  j.use = [](size_t) { return true; };
  EXPECT_THROW(run_ordered(j, 2, 4), std::runtime_error);
}

// Job 0 waits until another job has started on another thread: it can only
// return if the jobs really run side by side.
TEST(OrderedJobs, JobsRunSideBySide) {
  std::mutex m;
  std::condition_variable cv;
  std::set<std::thread::id> threads_seen;
  bool other_started = false;
  OrderedJobs j;
  j.prepare = [](size_t i) { return i < 6; };
  j.run = [&](size_t i) {
    std::unique_lock lock(m);
    threads_seen.insert(std::this_thread::get_id());
    if (i == 0) {
      cv.wait_for(lock, std::chrono::seconds(20), [&] { return other_started; });
    } else {
      other_started = true;
      cv.notify_all();
    }
  };
  size_t used = 0;
  j.use = [&](size_t) { return ++used > 0; };
  EXPECT_TRUE(run_ordered(j, 2, 4));
  EXPECT_TRUE(other_started);
  EXPECT_EQ(threads_seen.size(), 2u);
  EXPECT_EQ(used, 6u);
}

}  // namespace
}  // namespace covkit::util
