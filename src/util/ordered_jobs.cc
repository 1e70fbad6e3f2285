#include "util/ordered_jobs.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace covkit::util {

namespace {

// What the threads share, under `mutex`.
class Queue {
 public:
  Queue(const OrderedJobs& jobs, size_t window) : jobs_(jobs), window_(window), done_(window, 0) {}

  // A worker: runs the prepared jobs in the order they were prepared.
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return stop_ || claimed_ < prepared_ || no_more_; });
      if (stop_ || claimed_ == prepared_) return;
      run_one(lock);
    }
  }

  // The caller: prepares, helps run and uses every job in order.
  bool lead() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      fill(lock);
      if (stop_) break;
      if (used_ == prepared_ && no_more_) return true;
      if (done_[used_ % window_]) {
        const size_t i = used_;
        lock.unlock();
        bool go = guarded([&] { return jobs_.use(i); });
        lock.lock();
        done_[i % window_] = 0;
        ++used_;
        if (!go) stop_ = true;
        continue;
      }
      if (claimed_ < prepared_) {
        run_one(lock);
        continue;
      }
      changed_.wait(lock, [&] { return stop_ || done_[used_ % window_]; });
    }
    return false;
  }

  void finish() {
    std::lock_guard lock(mutex_);
    stop_ = true;
    changed_.notify_all();
  }

  std::exception_ptr failure() const { return failure_; }

 private:
  // Prepares jobs until the window is full or there are no more.
  void fill(std::unique_lock<std::mutex>& lock) {
    bool added = false;
    while (!no_more_ && !stop_ && prepared_ < used_ + window_) {
      const size_t i = prepared_;
      lock.unlock();
      const bool more = guarded([&] { return jobs_.prepare(i); });
      lock.lock();
      if (!more) no_more_ = true;
      else ++prepared_;
      added = true;
    }
    if (added) changed_.notify_all();
  }

  // Claims the next prepared job and runs it without the lock.
  void run_one(std::unique_lock<std::mutex>& lock) {
    const size_t i = claimed_++;
    lock.unlock();
    guarded([&] {
      jobs_.run(i);
      return true;
    });
    lock.lock();
    done_[i % window_] = 1;
    changed_.notify_all();
  }

  // Runs f; an exception is kept (the first one) and stops everything.
  template <class F>
  bool guarded(F&& f) {
    try {
      return f();
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!failure_) failure_ = std::current_exception();
      stop_ = true;
      changed_.notify_all();
      return false;
    }
  }

  const OrderedJobs& jobs_;
  const size_t window_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<char> done_;  // by slot: its job has run
  size_t prepared_ = 0, claimed_ = 0, used_ = 0;
  bool no_more_ = false, stop_ = false;
  std::exception_ptr failure_;
};

}  // namespace

bool run_ordered(const OrderedJobs& jobs, unsigned threads, size_t window) {
  if (window == 0) window = 1;
  Queue queue(jobs, window);
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t) workers.emplace_back([&] { queue.work(); });
  const bool all = queue.lead();
  queue.finish();
  for (auto& w : workers) w.join();
  if (queue.failure()) std::rethrow_exception(queue.failure());
  return all;
}

}  // namespace covkit::util
