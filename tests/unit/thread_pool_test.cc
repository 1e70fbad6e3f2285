// util/thread_pool: every job runs exactly once, whatever the thread count,
// on a pool of workers kept between calls; a job's exception reaches the
// caller; a parallel_for inside a job runs inline instead of waiting for
// workers that are busy with the outer one.
#include "util/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace covkit::util {
namespace thread_pool_test {

TEST(ParallelFor, EveryJobOnceAcrossManyRounds) {
  for (unsigned threads : {1u, 2u, 4u}) {
    for (int round = 0; round < 50; ++round) {
      const size_t n = size_t(round * 7 % 40);
      std::vector<std::atomic<int>> runs(n);
      parallel_for(n, threads, [&](size_t i) { runs[i].fetch_add(1); });
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(runs[i].load(), 1) << "job " << i << " of " << n << ", " << threads << " threads";
    }
  }
}

TEST(ParallelFor, FirstExceptionReachesTheCallerAndThePoolStaysUsable) {
  EXPECT_THROW(parallel_for(1000, 2,
                            [&](size_t i) {
                              if (i == 3) throw std::runtime_error("job 3");
                            }),
               std::runtime_error);
  std::atomic<size_t> sum{0};
  parallel_for(100, 2, [&](size_t i) { sum.fetch_add(i); });
  EXPECT_EQ(sum.load(), 4950u);
}

TEST(ParallelFor, NestedCallsRunInline) {
  std::vector<std::atomic<int>> runs(16 * 16);
  parallel_for(16, 2, [&](size_t i) { parallel_for(16, 2, [&](size_t j) { runs[i * 16 + j].fetch_add(1); }); });
  for (auto& r : runs) EXPECT_EQ(r.load(), 1);
}

}  // namespace thread_pool_test
}  // namespace covkit::util
