#pragma once
// The texts of a report's sources, each read once (as the data's owners:
// util/foreign_data.h) and kept for every pass that needs it: the exclusion
// markers, then the HTML pages. A report read each source twice.
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "model/project_coverage.h"
#include "util/file_io.h"

namespace covkit::model {

class SourceTexts {
 public:
  // One source as read: its bytes, or why it could not be read.
  struct Text {
    std::optional<util::FileData> data;  // none: not readable, for `error`
    std::string error;
  };

  // Where a file's text is read from: its absolute path, or its path when it
  // has none.
  static const std::string& where(const FileCov& file) {
    return file.absolute_path.empty() ? file.path : file.absolute_path;
  }
  // Keeps what was read of `path` (the first text kept for a path stays).
  void keep(const std::string& path, Text text) { texts_.try_emplace(path, std::move(text)); }
  // What was read of `path`, or null when it was not read.
  const Text* find(const std::string& path) const {
    auto it = texts_.find(path);
    return it == texts_.end() ? nullptr : &it->second;
  }

 private:
  std::unordered_map<std::string, Text> texts_;
};

}  // namespace covkit::model
