#pragma once
// Runs independent jobs on N threads. Results go into caller-owned slots, so
// the output order never depends on the thread count.
#include <cstddef>
#include <functional>

namespace covkit::util {

// Calls job(i) for i in [0, count) on up to `threads` threads (1 = inline).
// The first exception a job throws is rethrown here once every thread has
// stopped; jobs not yet started then never start.
void parallel_for(size_t count, unsigned threads, const std::function<void(size_t)>& job);

unsigned default_threads();

}  // namespace covkit::util
