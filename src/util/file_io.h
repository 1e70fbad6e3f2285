#pragma once
// Whole-file reads and all-or-nothing writes: an output file is either the
// complete new content or untouched, never half written (full disk included).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace covkit::util {

struct FileData {
  std::vector<uint8_t> bytes;
  int64_t mtime = 0;  // seconds, as stat reports
};

// nullopt when the file cannot be opened or is not a regular file (devices
// and FIFOs never end or block); `error` receives the reason.
std::optional<FileData> read_file(const std::string& path, std::string* error = nullptr);

// Writes to a temporary file beside `path`, then renames it over `path`.
// Returns false (and strerror text in `error`) when any step fails.
enum class WriteFailure { kNone, kOpen, kWrite };
bool write_file_atomic(const std::string& path, std::string_view content, std::string* error = nullptr,
                       WriteFailure* failure = nullptr);

// The two halves of write_file_atomic, for writing several files all or
// nothing: stage_file writes the content to a temporary file beside `path`
// (or straight into a device/FIFO, returning ""), commit_staged renames it
// over `path`, discard_staged removes it.
std::optional<std::string> stage_file(const std::string& path, std::string_view content, std::string* error = nullptr,
                                      WriteFailure* failure = nullptr);
bool commit_staged(const std::string& staged, const std::string& path, std::string* error = nullptr);
void discard_staged(const std::string& staged);

std::optional<int64_t> file_mtime(const std::string& path);
bool is_directory(const std::string& path);

}  // namespace covkit::util
