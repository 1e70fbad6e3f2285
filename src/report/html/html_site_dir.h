#pragma once
// The directory an HTML report goes into, replaced as a whole: the site is
// written as a util::StagedTree (staged beside the directory and swapped in
// with one rename; a mount point gets its files one by one, the index last),
// so a failed or killed run leaves the previous site or the new one, never a
// mix, and stale pages of an earlier report disappear with it.
//
// The marker (html_site_marker.h) lists the files covkit wrote. A directory
// that exists, is not empty and has no marker is someone else's (a build
// tree, a home directory) and is refused before anything is written. Other
// files a user put into a covkit site are carried over to the new one; only
// the files the marker lists are removed.
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>

#include "util/expected.h"
#include "util/staged_tree.h"

namespace covkit::report::html {

class StagedSite {
 public:
  // Checks `out_dir` (missing, empty, or a covkit site) and stages.
  static Expected<StagedSite> begin(const std::string& out_dir);

  // Writes one file of the site (a plain name). Safe from several threads.
  Expected<void> write(const std::string& name, std::string_view content);
  // Writes the marker listing `written` (the index last), drops the previous
  // site's other pages and puts the new site in place.
  Expected<void> commit(std::span<const std::string> written);

  // The output directory as given, for messages.
  const std::string& target() const { return tree_.target(); }

 private:
  StagedSite(util::StagedTree tree, std::unordered_set<std::string> previous)
      : tree_(std::move(tree)), previous_(std::move(previous)) {}

  util::StagedTree tree_;
  std::unordered_set<std::string> previous_;  // what the old marker lists
};

}  // namespace covkit::report::html
