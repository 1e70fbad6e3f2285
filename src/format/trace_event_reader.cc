#include "format/trace_event_reader.h"

#include <fmt/format.h>

#include <system_error>

#include "util/printable.h"

namespace covkit::format {

namespace {

// Events per block: large enough that the per-block work vanishes, small
// enough (32 KiB) to stay in the first-level cache between decoding and use.
constexpr size_t kBlock = 1024;

}  // namespace

TraceEventReader::TraceEventReader(const TraceThread& thread, std::vector<std::string>& warnings,
                                   const EventReadOptions& options)
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
  if (options.background && !options.lost_events) {
    try {
      pipe_ = std::make_unique<EventPipe>(*bytes_, thread);
      return;
    } catch (const std::system_error&) {
      // No thread to be had (a process or memory limit): decoded here.
    }
  }
  decoder_.emplace(*bytes_, thread.file, thread.start, thread.ended, warnings_, options.window);
  decoder_->report_lost(options.lost_events);
  block_.resize(kBlock);
}

TraceEventReader::~TraceEventReader() = default;  // the pipe (if any) stops before the bytes close

std::span<const TraceEvent> TraceEventReader::next() {
  if (thread_.file.empty()) {
    if (memory_done_) return {};
    memory_done_ = true;
    return thread_.events;
  }
  if (pipe_) {
    auto block = pipe_->next();
    if (summary_.initial_stack.empty()) summary_.initial_stack = pipe_->initial_stack();
    if (block.empty() && !pipe_done_) {
      pipe_done_ = true;
      summary_ = pipe_->summary();
      summary_.ended = summary_.ended || thread_.ended;
      warnings_.insert(warnings_.end(), pipe_->warnings().begin(), pipe_->warnings().end());
    }
    return block;
  }
  if (!decoder_) return {};
  const size_t n = decoder_->next(block_);
  if (n == 0) {
    summary_ = decoder_->summary();
    summary_.ended = summary_.ended || thread_.ended;
    return {};
  }
  if (summary_.initial_stack.empty() && !decoder_->summary().initial_stack.empty())
    summary_.initial_stack = decoder_->summary().initial_stack;
  return std::span<const TraceEvent>(block_.data(), n);
}

}  // namespace covkit::format
