#include "util/thread_pool.h"

#include <atomic>
#include <thread>
#include <vector>

namespace covkit::util {

void parallel_for(size_t count, unsigned threads, const std::function<void(size_t)>& job) {
  if (threads <= 1 || count <= 1) {
    for (size_t i = 0; i < count; ++i) job(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < count;) job(i);
  };
  std::vector<std::thread> pool;
  unsigned n = threads < count ? threads : unsigned(count);
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

unsigned default_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

}  // namespace covkit::util
