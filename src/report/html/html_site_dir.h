#pragma once
// The directory an HTML report goes into, replaced as a whole. A site is
// staged in a new hidden sibling directory (".NAME.covkit-tmp.XXXXXXXX") and
// swapped in with one rename (renameat2 RENAME_EXCHANGE), so a failed or
// killed run leaves the previous site or the new one, never a mix, and stale
// pages of an earlier report disappear with it.
//
// A marker file (kMarkerFileName) lists the files covkit wrote. A directory
// that exists, is not empty and has no marker is someone else's (a build
// tree, a home directory) and is refused before anything is written. Other
// files a user put into a covkit site are carried over to the new one; only
// the files the marker lists are removed.
#include <span>
#include <string>
#include <string_view>

#include "util/expected.h"

namespace covkit::report::html {

inline constexpr std::string_view kMarkerFileName = ".covkit-html";

class StagedSite {
 public:
  // Checks `out_dir` (missing, empty, or a covkit site) and creates the empty
  // staging directory beside it (and `out_dir`'s missing parents).
  static Expected<StagedSite> begin(const std::string& out_dir);

  StagedSite(StagedSite&& other) noexcept;
  StagedSite& operator=(StagedSite&&) = delete;
  StagedSite(const StagedSite&) = delete;
  // Removes the staging directory with everything in it, unless committed.
  ~StagedSite();

  // Where the pages go: the staging directory, ending in '/'.
  const std::string& dir() const { return staging_; }
  // The output directory as given, for messages.
  const std::string& target() const { return target_; }

  // Writes the marker listing `written` (plain names inside dir()), swaps
  // the staging directory in and removes the previous site's files.
  Expected<void> commit(std::span<const std::string> written);

 private:
  StagedSite(std::string target, std::string absolute, std::string staging, bool replaces);

  std::string target_;     // as given
  std::string absolute_;   // absolute, symbolic links resolved, no trailing '/'
  std::string staging_;    // sibling of absolute_, with a trailing '/'
  bool replaces_ = false;  // absolute_ exists (empty or a covkit site)
  bool committed_ = false;
};

}  // namespace covkit::report::html
