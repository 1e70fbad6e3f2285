#pragma once
// A directory tree written all or nothing. The new tree is built beside the
// target (a hidden sibling: same file system), holding hard links to every
// file of the existing target that is not rewritten or removed, and then
// swapped in with one rename (renameat2 RENAME_EXCHANGE). Whatever kills the
// writer, the target is the old tree or the new one, never a mix; a reader
// of the old tree (an input that is also the target) keeps its files until
// the swap. Leftovers of a killed run are hidden directories that the next
// run removes.
//
// Safe in a directory another user can write (their home, /tmp): the
// target's directory is found as util/output_path.h finds it (no link of
// another user followed, not even as the target itself) and held by
// descriptor, and so is the staging directory, from its creation (mode
// 0700, so no one else can enter it) to the swap: every file is created
// relative to it, never through its name, and nothing below it is ever
// reached through a symbolic link. Its final mode (the old target's, or the
// umask's for a new one, less util::output_mode_mask()) is set just before
// the swap. The swap itself can only name the two directories: just before
// it covkit checks that both names still hold the directories it holds,
// and after it that the target's name holds the new tree (renaming them
// meanwhile can misplace that user's own directories, never make covkit
// write elsewhere).
//
// A mount point (a container's volume) cannot be renamed: there the new
// files are staged inside it and moved in one by one, in the order they
// were written (each file atomic, the tree not), then the removed ones go.
#include <sys/stat.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"
#include "util/unique_fd.h"

namespace covkit::util {

class StagedTree {
 public:
  // Finds the target (which may not exist; missing parents are created)
  // and opens the existing one; nothing is staged yet, so a caller may look
  // at the old tree first (old_*) and give up.
  static Expected<StagedTree> open(const std::string& target);
  // open() then stage().
  static Expected<StagedTree> begin(const std::string& target);

  StagedTree(StagedTree&& o) noexcept;
  StagedTree& operator=(StagedTree&&) = delete;
  StagedTree(const StagedTree&) = delete;
  ~StagedTree();  // removes the staging directory unless committed

  // Creates the staging directory and mirrors the existing target into it.
  // Removes the staging directories of earlier runs that were killed.
  Expected<void> stage();

  // The existing target, before the commit, never through a link: whether
  // there is one, whether it is empty, and a file's bytes (nullopt: none).
  bool old_exists() const { return old_.valid(); }
  Expected<bool> old_is_empty() const;
  Expected<std::optional<std::string>> read_old(std::string_view relative) const;
  // Whether the old tree has an entry of that name (of any kind).
  bool old_has(std::string_view relative) const;

  // Writes `relative` (with '/', no "..") in the new tree, replacing the
  // old tree's file of that name if any; parent directories are created.
  // Safe to call from several threads.
  Expected<void> write(std::string_view relative, std::string_view content);
  // Leaves the old tree's file `relative` out of the new tree.
  Expected<void> remove(std::string_view relative);
  // In place only (a mount point): writes `relative` into the target at once
  // (a temporary file renamed over it).
  Expected<void> write_in_target(std::string_view relative, std::string_view content);

  // Puts the new tree in place; the old one is removed afterwards.
  Expected<void> commit();

  // The target as given (for messages) and where the walk found it.
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
  StagedTree() = default;
  int staging_home() const { return placement_ == Placement::kInPlace ? old_.get() : parent_.get(); }
  bool staging_still_named() const;
  Expected<void> write_file_at(int dir, const std::string& name, const std::string& shown,
                               std::string_view content) const;
  Expected<void> move_in();
  Expected<void> exchange();

  std::string target_;    // as given, without a trailing '/'
  std::string absolute_;  // where the walk found it
  UniqueFd parent_;       // the directory holding the target (O_PATH)
  std::string name_;      // the target's name in it
  UniqueFd old_;          // the existing target, open; invalid when there is none
  struct stat old_stat_ {};
  std::string staging_name_;  // in staging_home()
  UniqueFd staging_;          // the staging directory, open from its creation
  struct stat staging_stat_ {};
  mode_t final_mode_ = 0755;
  Placement placement_ = Placement::kRename;
  std::vector<std::string> written_, removed_;  // kInPlace: what commit() does, in order
  std::unique_ptr<std::mutex> order_mutex_ = std::make_unique<std::mutex>();
  bool done_ = false;
};

// The prefix of the staging directories of `target`: ".NAME.covkit-staging-".
std::string staging_prefix(const std::string& target);

}  // namespace covkit::util
