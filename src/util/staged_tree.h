#pragma once
// A directory tree written all or nothing. The new tree is built beside the
// target (a hidden sibling: same file system), holding hard links to every
// file of the existing target that is not rewritten or removed, and then
// swapped in with one rename (renameat2 RENAME_EXCHANGE). Whatever kills the
// writer, the target is the old tree or the new one, never a mix; a reader
// of the old tree (an input that is also the target) keeps its files until
// the swap. Leftovers of a killed run are hidden directories that the next
// run removes. Nothing is ever written through a symbolic link inside the
// tree; a target that is itself a link to a directory stands for that
// directory.
//
// A mount point (a container's volume) cannot be renamed: there the new
// files are staged inside it and moved in one by one, in the order they
// were written (each file atomic, the tree not), then the removed ones go.
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace covkit::util {

class StagedTree {
 public:
  // Prepares the staging directory for `target` (which may not exist;
  // missing parents are created); mirrors the existing target into it.
  // Removes the staging directories of earlier runs that were killed.
  static Expected<StagedTree> begin(const std::string& target);

  StagedTree(StagedTree&& o) noexcept;
  StagedTree& operator=(StagedTree&&) = delete;
  StagedTree(const StagedTree&) = delete;
  ~StagedTree();  // removes the staging directory unless committed

  // Writes `relative` (with '/', no "..") in the new tree, replacing the
  // old tree's file of that name if any; parent directories are created.
  // Safe to call from several threads.
  Expected<void> write(std::string_view relative, std::string_view content);
  // Leaves the old tree's file `relative` out of the new tree.
  Expected<void> remove(std::string_view relative);

  // Puts the new tree in place; the old one is removed afterwards.
  Expected<void> commit();

  // The target as given (for messages) and where it really is.
  const std::string& target() const { return target_; }
  const std::string& absolute_target() const { return absolute_; }
  // Whether commit() moves files in one by one (the target is a mount point).
  bool in_place() const { return placement_ == Placement::kInPlace; }

 private:
  enum class Placement {
    kRename,    // the target did not exist: the staging directory becomes it
    kExchange,  // the two directories swap; the old tree is then removed
    kInPlace,   // the target is a mount point: files move in one by one
  };
  StagedTree(std::string target, std::string absolute, std::string staging, Placement placement)
      : target_(std::move(target)), absolute_(std::move(absolute)), staging_(std::move(staging)),
        placement_(placement) {}
  Expected<void> move_in();

  std::string target_;    // as given, without a trailing '/'
  std::string absolute_;  // absolute, a link to a directory resolved
  std::string staging_;
  Placement placement_;
  std::vector<std::string> written_, removed_;  // kInPlace: what commit() does, in order
  std::unique_ptr<std::mutex> order_mutex_ = std::make_unique<std::mutex>();
  bool done_ = false;
};

// The prefix of the staging directories of `target`: ".NAME.covkit-staging-".
std::string staging_prefix(const std::string& target);

}  // namespace covkit::util
