#pragma once
// The directory an HTML report goes into, replaced as a whole. A site is
// staged in a new hidden sibling directory (".NAME.covkit-tmp.XXXXXXXX") and
// swapped in with one rename (renameat2 RENAME_EXCHANGE), so a failed or
// killed run leaves the previous site or the new one, never a mix, and stale
// pages of an earlier report disappear with it.
//
// The marker (html_site_marker.h) lists the files covkit wrote. A directory
// that exists, is not empty and has no marker is someone else's (a build
// tree, a home directory) and is refused before anything is written. Other
// files a user put into a covkit site are carried over to the new one; only
// the files the marker lists are removed.
//
// A mount point (a container's volume) cannot be renamed: there the site is
// staged inside the directory and its files are moved in one by one, the
// index last, and then the previous site's other pages are removed.
#include <span>
#include <string>

#include "util/expected.h"

namespace covkit::report::html {

class StagedSite {
 public:
  // Checks `out_dir` (missing, empty, or a covkit site) and creates the empty
  // staging directory (and `out_dir`'s missing parents).
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

  // Writes the marker listing `written` (plain names inside dir(), the
  // index last), puts the new site in place and removes the previous one.
  Expected<void> commit(std::span<const std::string> written);

 private:
  enum class Placement {
    kRename,    // out_dir did not exist: the staging directory becomes it
    kExchange,  // the two directories swap; the previous site is then removed
    kInPlace,   // out_dir is a mount point: files move in one by one
  };

  StagedSite(std::string target, std::string absolute, std::string staging, Placement placement);
  Expected<void> exchange_in(std::span<const std::string> written);
  Expected<void> move_in(std::span<const std::string> written);

  std::string target_;    // as given
  std::string absolute_;  // absolute, symbolic links resolved, no trailing '/'
  std::string staging_;   // with a trailing '/'
  Placement placement_;
  bool committed_ = false;
};

}  // namespace covkit::report::html
