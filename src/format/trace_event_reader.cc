#include "format/trace_event_reader.h"

#include <fmt/format.h>

#include "util/printable.h"

namespace covkit::format {

namespace {

// Events per block: large enough that the per-block work vanishes, small
// enough (32 KiB) to stay in the first-level cache between decoding and use.
constexpr size_t kBlock = 1024;

}  // namespace

TraceEventReader::TraceEventReader(const TraceThread& thread, std::vector<std::string>& warnings)
    : thread_(thread), warnings_(warnings) {
  if (thread.file.empty()) {  // built in memory: everything is known
    summary_.initial_stack = thread.initial_stack;
    summary_.lost = thread.lost;
    summary_.ended = thread.ended;
    summary_.truncated = thread.truncated;
    summary_.bytes = thread.bytes;
    summary_.last_time = thread.last_time;
    summary_.events = thread.events.size();
    for (const TraceEvent& e : thread.events) summary_.calls += e.kind == TraceEvent::Kind::kEnter;
    return;
  }
  summary_.last_time = thread.start;
  summary_.ended = thread.ended;
  auto opened = StreamBytes::open(thread.file);
  if (!opened) {
    warnings_.push_back(fmt::format("{}: {}", util::printable(thread.file), opened.error().describe()));
    return;
  }
  bytes_.emplace(std::move(*opened));
  decoder_.emplace(*bytes_, thread.file, thread.start, thread.ended, warnings_);
  block_.reserve(kBlock);
}

std::span<const TraceEvent> TraceEventReader::next() {
  if (thread_.file.empty()) {
    if (memory_done_) return {};
    memory_done_ = true;
    return thread_.events;
  }
  if (!decoder_) return {};
  block_.clear();
  if (!decoder_->next(block_, kBlock)) {
    summary_ = decoder_->summary();
    summary_.ended = summary_.ended || thread_.ended;
    return {};
  }
  if (summary_.initial_stack.empty() && !decoder_->summary().initial_stack.empty())
    summary_.initial_stack = decoder_->summary().initial_stack;
  return block_;
}

}  // namespace covkit::format
