#include "util/thread_pool.h"

#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace covkit::util {

namespace {

// The workers of parallel_for, started when first needed and kept: a gcov
// run calls parallel_for four times, and a thread started anew each time
// cost its stack, and with mimalloc a heap whose first allocations of each
// size touch fresh pages (1,300 of covkit gcov's page faults on jsoncpp's
// tests, a third more CPU than one thread).
class WorkerPool {
 public:
  // Runs job(i) for i < count on the caller and up to `helpers` workers.
  void run(size_t count, unsigned helpers, const std::function<void(size_t)>& job) {
    std::unique_lock<std::mutex> lock(mutex_);
    while (workers_ < helpers) {
      std::thread(&WorkerPool::serve, this).detach();
      ++workers_;
    }
    job_ = &job;
    count_ = count;
    next_.store(0);
    failure_ = nullptr;
    seats_ = helpers;  // workers that may join this round
    busy_ = 0;
    ++round_;
    lock.unlock();
    wake_.notify_all();
    work();  // the caller works too
    lock.lock();
    seats_ = 0;  // late workers stay out
    done_.wait(lock, [&] { return busy_ == 0; });
    job_ = nullptr;
    if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
  }

 private:
  void serve() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return round_ != seen && seats_ > 0; });
      seen = round_;
      --seats_;
      ++busy_;
      lock.unlock();
      work();
      lock.lock();
      if (--busy_ == 0) done_.notify_all();
    }
  }

  void work() {
    in_job = true;
    try {
      for (size_t i; (i = next_.fetch_add(1)) < count_;) (*job_)(i);
    } catch (...) {
      next_.store(count_);
      std::lock_guard<std::mutex> lock(failure_mutex_);
      if (!failure_) failure_ = std::current_exception();
    }
    in_job = false;
  }

  std::mutex mutex_;
  std::condition_variable wake_, done_;
  unsigned workers_ = 0, seats_ = 0, busy_ = 0;
  uint64_t round_ = 0;
  const std::function<void(size_t)>* job_ = nullptr;
  size_t count_ = 0;
  std::atomic<size_t> next_{0};
  std::mutex failure_mutex_;
  std::exception_ptr failure_;

 public:
  static thread_local bool in_job;  // a job's own parallel_for runs inline
};

thread_local bool WorkerPool::in_job = false;

// One round at a time; another caller meanwhile runs its jobs itself.
std::mutex pool_use;

WorkerPool& pool() {
  // Never destroyed: its workers wait on it until the process ends.
  static WorkerPool* const p = new WorkerPool;
  return *p;
}

}  // namespace

void parallel_for(size_t count, unsigned threads, const std::function<void(size_t)>& job) {
  std::unique_lock<std::mutex> using_pool(pool_use, std::defer_lock);
  if (threads <= 1 || count <= 1 || WorkerPool::in_job || !using_pool.try_lock()) {
    for (size_t i = 0; i < count; ++i) job(i);
    return;
  }
  // An exception in a job (allocation failure on a huge input) would end the
  // process; the first one is carried to the caller instead, and the jobs
  // not yet started then never start.
  const unsigned n = threads < count ? threads : unsigned(count);
  pool().run(count, n - 1, job);
}

unsigned default_threads() {
  // The CPUs this process may run on, in one system call: the C++
  // library's count reads /sys/devices/system/cpu/online (an open, a read
  // and a close, ~10 us of every `covkit gcov` run here), and counts CPUs
  // that taskset or a container's cpuset leave out.
  cpu_set_t cpus;
  if (::sched_getaffinity(0, sizeof cpus, &cpus) == 0)
    if (const int n = CPU_COUNT(&cpus); n > 0) return unsigned(n);
  const unsigned n = std::thread::hardware_concurrency();  // more than CPU_SETSIZE CPUs
  return n ? n : 1;
}

}  // namespace covkit::util
