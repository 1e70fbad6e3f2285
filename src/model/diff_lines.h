#pragma once
// The lines a change touched, for `--diff REV`: coverage of only what a
// branch or a working tree changed since REV. Read from git's unified diff.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "util/expected.h"

namespace covkit::model {

struct ChangedLines {
  // Path relative to the git top level -> sorted, disjoint [first, last]
  // line ranges on the new side. Deleted files do not appear; a file whose
  // change only removed lines appears with no ranges.
  std::unordered_map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> ranges;
  std::string toplevel;  // changed_lines_since: the repository's top level

  bool contains(const std::string& path, uint32_t line) const;
};

// Parses `git diff` output (any context size; -U0 is what covkit runs):
// "+++ b/path" headers (quoted C-style when git quotes them, a trailing tab
// after names with spaces), "@@ -a,b +c,d @@" hunks, renames, new and deleted
// files, binary files. A one-line reason ("diff line N: ...") when the text
// is not a diff git could have written.
Expected<ChangedLines> parse_unified_diff(std::string_view diff);

// Runs git in `repo_dir` (no shell: REV goes to git as one argument and may not
// start with '-'): the top level, then `git diff -U0 --no-color --no-ext-diff
// REV --` parsed. A one-line reason when git is missing, `repo_dir` is not in
// a repository, or git rejects REV (its first error line is quoted).
Expected<ChangedLines> changed_lines_since(const std::string& rev, const std::string& repo_dir);

}  // namespace covkit::model
