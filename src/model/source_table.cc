#include "model/source_table.h"

#include <sys/stat.h>

#include "util/file_io.h"

namespace covkit::model {

std::string canonicalize_name(std::string_view name) {
  std::string result;
  result.reserve(name.size());
  size_t dd_base = 0;  // '..' may not climb above this point of `result`
  bool slash = false;
  size_t pos = 0;
  while (pos < name.size()) {
    size_t probe = name.find('/', pos);
    if (probe == std::string_view::npos) probe = name.size();
    std::string_view part = name.substr(pos, probe - pos);
    bool regular = true;
    if (part == ".") {
      regular = false;  // elide
    } else if (part == "..") {
      struct stat buf {};
      // Only resolve 'dir/..' when dir exists and is not a symlink.
      if (result.size() == dd_base || ::stat(result.c_str(), &buf) != 0 || S_ISLNK(buf.st_mode)) {
        dd_base = result.size() + 2 + (slash ? 1 : 0);
      } else {
        size_t p = result.size();
        while (p != dd_base && result[p] != '/') p--;
        result.resize(p);
        slash = p != 0;
        regular = false;
      }
    }
    if (regular) {
      if (slash) result += '/';
      result.append(part);
      slash = true;
    }
    pos = probe;
    while (pos < name.size() && name[pos] == '/') pos++;
  }
  return result;
}

SourceNameFacts::Facts SourceNameFacts::of(const std::string& spelling) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = by_spelling_.find(spelling); it != by_spelling_.end()) return it->second;
  }
  Facts facts;
  facts.canonical = canonicalize_name(spelling);
  facts.mtime = util::file_mtime(facts.canonical);
  std::lock_guard<std::mutex> lock(mutex_);
  return by_spelling_.try_emplace(spelling, std::move(facts)).first->second;
}

uint32_t SourceTable::find(const std::string& spelling, int64_t notes_time, const NewerCallback& newer) {
  uint32_t idx;
  if (auto it = by_name_.find(spelling); it != by_name_.end()) {
    idx = it->second;
  } else {
    std::optional<SourceNameFacts::Facts> facts;
    if (facts_) facts = facts_->of(spelling);
    std::string canon = facts ? std::move(facts->canonical) : canonicalize_name(spelling);
    if (auto c = by_name_.find(canon); c != by_name_.end()) {
      idx = c->second;
    } else {
      idx = uint32_t(entries_.size());
      SourceEntry e;
      e.name = canon;
      e.display_name = canon;
      if (!prefix_.empty() && canon.size() > prefix_.size() && canon.compare(0, prefix_.size(), prefix_) == 0 &&
          canon[prefix_.size()] == '/')
        e.display_name = canon.substr(prefix_.size() + 1);
      if (auto t = facts ? facts->mtime : util::file_mtime(e.name)) e.file_time = *t;
      entries_.push_back(std::move(e));
      by_name_.emplace(canon, idx);
    }
    by_name_.emplace(spelling, idx);
  }
  SourceEntry& e = entries_[idx];
  if (e.file_time > notes_time) {
    if (newer) newer(spelling);
    e.file_time = 0;
  }
  return idx;
}

int64_t SourceTable::lookup(const std::string& spelling) const {
  auto it = by_name_.find(spelling);
  return it == by_name_.end() ? -1 : int64_t(it->second);
}

}  // namespace covkit::model
