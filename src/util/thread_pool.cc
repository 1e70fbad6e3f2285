#include "util/thread_pool.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace covkit::util {

void parallel_for(size_t count, unsigned threads, const std::function<void(size_t)>& job) {
  if (threads <= 1 || count <= 1) {
    for (size_t i = 0; i < count; ++i) job(i);
    return;
  }
  // An exception in a worker (allocation failure on a huge input) would end
  // the process; the first one is carried to the caller instead, and the
  // remaining jobs are not started.
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    try {
      for (size_t i; (i = next.fetch_add(1)) < count;) job(i);
    } catch (...) {
      next.store(count);
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  unsigned n = threads < count ? threads : unsigned(count);
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

unsigned default_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

}  // namespace covkit::util
