#pragma once
// Jobs that run in parallel and are used in order: job i is prepared, run
// on any of N threads, and handed back to the caller's thread in the order
// of i, as soon as it and every job before it are done, while the jobs
// after it run on. Unlike batches of parallel_for, no core waits for the
// slowest job of a batch or for the caller's use of the results: the caller
// helps run the jobs while it has none to use.
#include <cstddef>
#include <functional>

namespace covkit::util {

struct OrderedJobs {
  // Called on the caller's thread for i = 0, 1, ... before job i may run:
  // it prepares the job's input (in a slot of the caller's, i % window) and
  // returns false when there is no job i (nor any later).
  std::function<bool(size_t)> prepare;
  // Runs job i, on any thread (the caller's too).
  std::function<void(size_t)> run;
  // Called on the caller's thread for i = 0, 1, ... once job i is done;
  // false stops: no job starts any more, those running finish.
  std::function<bool(size_t)> use;
};

// At most `window` jobs are prepared and not yet used, so job i's slot
// (i % window) is free again once job i - window was used. Returns false
// when `use` stopped. The first exception of a job (or of prepare/use) is
// rethrown here once every thread has stopped.
bool run_ordered(const OrderedJobs& jobs, unsigned threads, size_t window);

}  // namespace covkit::util
