#include "trace/stream_shares.h"

#include <filesystem>
#include <system_error>

namespace covkit::trace {

std::vector<uint8_t> streams_read_in_parts(const std::vector<const format::TraceThread*>& threads, unsigned cores) {
  std::vector<uint64_t> sizes(threads.size(), 0);
  uint64_t total = 0;
  for (size_t i = 0; i < threads.size(); ++i) {
    if (threads[i]->file.empty()) continue;  // events in memory (tests): read as they are
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(threads[i]->file, ec);
    sizes[i] = ec ? 0 : size;
    total += sizes[i];
  }
  std::vector<uint8_t> parts(threads.size(), 0);
  if (cores < 2) return parts;
  for (size_t i = 0; i < threads.size(); ++i) parts[i] = sizes[i] > total / cores;
  return parts;
}

}  // namespace covkit::trace
