#pragma once
// A directory tree written all or nothing. The new tree is built beside the
// target (a hidden sibling: same file system), holding hard links to every
// file of the existing target that is not rewritten, and then swapped in with
// one rename (renameat2 RENAME_EXCHANGE). Whatever kills the writer, the
// target is the old tree or the new one, never a mix; a reader of the old
// tree (an input that is also the target) keeps its files until the swap.
// Leftovers of a killed run are hidden siblings that the next run removes.
#include <string>
#include <string_view>

#include "util/expected.h"

namespace covkit::util {

class StagedTree {
 public:
  // Prepares the staging directory beside `target` (which may not exist);
  // mirrors the existing target into it. Removes stale staging directories
  // of earlier runs that were killed.
  static Expected<StagedTree> begin(const std::string& target);

  StagedTree(StagedTree&& o) noexcept;
  StagedTree& operator=(StagedTree&&) = delete;
  StagedTree(const StagedTree&) = delete;
  ~StagedTree();  // removes the staging directory unless committed

  // Writes `relative` (with '/', no "..") in the new tree, replacing the
  // mirrored file if any; parent directories are created.
  Expected<void> write(std::string_view relative, std::string_view content);

  // Swaps the new tree in; the old one is removed afterwards.
  Expected<void> commit();

  const std::string& staging_path() const { return staging_; }

 private:
  StagedTree(std::string target, std::string staging) : target_(std::move(target)), staging_(std::move(staging)) {}

  std::string target_;
  std::string staging_;
  bool done_ = false;
};

// The prefix of staging directories in the target's parent: ".NAME.covkit-staging-".
std::string staging_prefix(const std::string& target);

}  // namespace covkit::util
