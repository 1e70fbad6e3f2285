#include "format/trace_event_pipe.h"

namespace covkit::format {

EventPipe::EventPipe(const StreamBytes& bytes, const TraceThread& thread) {
  for (auto& slot : slots_) slot.resize(kEvents);
  worker_ = std::thread([this, &bytes, &thread] { decode(bytes, thread); });
}

EventPipe::~EventPipe() {
  {
    std::lock_guard<std::mutex> hold(lock_);
    stop_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

void EventPipe::decode(const StreamBytes& bytes, const TraceThread& thread) {
  try {
    StreamDecoder decoder(bytes, thread.file, thread.start, thread.ended, warnings_);
    for (size_t filled = 0;; ++filled) {
      {
        std::unique_lock<std::mutex> hold(lock_);
        changed_.wait(hold, [&] { return stop_ || tail_ - head_ < kSlots; });
        if (stop_) return;
      }
      // Block `filled` is the reader's to see only once tail_ passes it.
      const size_t n = decoder.next(std::span<TraceEvent>(slots_[filled % kSlots]));
      {
        std::lock_guard<std::mutex> hold(lock_);
        if (!stack_known_) {  // known after the first call, whatever it returned
          initial_stack_ = decoder.summary().initial_stack;
          stack_known_ = true;
        }
        if (n == 0) {
          summary_ = decoder.summary();
          finished_ = true;
        } else {
          counts_[filled % kSlots] = n;
          ++tail_;
        }
      }
      changed_.notify_all();
      if (n == 0) return;
    }
  } catch (...) {
    {
      std::lock_guard<std::mutex> hold(lock_);
      failure_ = std::current_exception();
      finished_ = true;
    }
    changed_.notify_all();
  }
}

std::span<const TraceEvent> EventPipe::next() {
  std::unique_lock<std::mutex> hold(lock_);
  if (holding_) {
    ++head_;
    holding_ = false;
    changed_.notify_all();
  }
  changed_.wait(hold, [&] { return head_ < tail_ || finished_; });
  if (head_ < tail_) {
    holding_ = true;
    return std::span<const TraceEvent>(slots_[head_ % kSlots].data(), counts_[head_ % kSlots]);
  }
  if (failure_) std::rethrow_exception(failure_);
  return {};
}

}  // namespace covkit::format
