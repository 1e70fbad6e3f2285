#pragma once
// The source files that notes files mention, identified the way gcov does:
// by canonical name ('.' elided, 'dir/..' resolved unless dir is a symlink),
// with every spelling seen mapped to the same entry.
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace covkit::model {

// gcov's canonicalize_name: consults the file system for symlinks at '..'.
std::string canonicalize_name(std::string_view name);

// What the file system says of a source's spelling: its canonical name and
// that file's modification time. Kept for the sessions of one report, which
// each name the same headers (zstd's 200 objects asked ~2,000 times about a
// few hundred names), the file system taken as unchanged meanwhile; one
// table may be shared by threads.
class SourceNameFacts {
 public:
  struct Facts {
    std::string canonical;
    std::optional<int64_t> mtime;
  };
  Facts of(const std::string& spelling);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, Facts> by_spelling_;
};

struct SourceEntry {
  std::string name;          // canonical
  std::string display_name;  // canonical, with the -s prefix removed
  int64_t file_time = 0;     // mtime when found; 0 once reported newer than the notes
};

class SourceTable {
 public:
  // `newer_than_notes(spelling, idx)` is called the first time a source turns
  // out newer than the notes file being read.
  using NewerCallback = std::function<void(const std::string& spelling)>;

  // `facts`, when given, answers for the file system (and outlives the table).
  explicit SourceTable(std::string source_prefix = {}, SourceNameFacts* facts = nullptr)
      : prefix_(std::move(source_prefix)), facts_(facts) {}

  // Returns the index for `spelling`, creating an entry on first sight.
  uint32_t find(const std::string& spelling, int64_t notes_time, const NewerCallback& newer);
  // Index of a spelling already seen, or -1.
  int64_t lookup(const std::string& spelling) const;

  std::vector<SourceEntry>& entries() { return entries_; }
  const std::vector<SourceEntry>& entries() const { return entries_; }
  void clear() {
    entries_.clear();
    by_name_.clear();
  }

 private:
  std::string prefix_;
  SourceNameFacts* facts_;
  std::vector<SourceEntry> entries_;
  std::unordered_map<std::string, uint32_t> by_name_;  // every spelling and canonical name
};

}  // namespace covkit::model
