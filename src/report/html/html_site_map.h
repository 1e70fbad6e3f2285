#pragma once
// A site's pages and how they link: one page per source file and one per
// directory that holds files (the nested view of genhtml and gcovr), each
// directory under its nearest ancestor that has a page. The index lists
// every directory; a directory's page lists its subdirectories and files.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/project_coverage.h"

namespace covkit::report::html {

struct SiteDirectory {
  std::string path;                    // directory_of() of its files; "." for the top level
  std::string page;                    // "" for "." (the index stands for it)
  std::vector<size_t> files;           // indices into project.files, in path order
  std::vector<size_t> subdirectories;  // indices into SiteMap::directories(), by name
  // Its files and those of every directory below it: what its page's
  // totals, its row in the index and its row on its parent's page count.
  model::Totals subtree;
  size_t subtree_files = 0;
};

class SiteMap {
 public:
  explicit SiteMap(const model::ProjectCov& project);

  const std::string& file_page(size_t file) const { return file_pages_[file]; }
  const model::Totals& file_totals(size_t file) const { return file_totals_[file]; }
  // The project's directories first (file_order.h), then the others; each
  // part by name.
  const std::vector<SiteDirectory>& directories() const { return directories_; }
  // Every page but the index: the directories' and the files'.
  std::vector<std::string> page_names() const;

  // `path` as escaped markup in which each leading directory that has a
  // page links to it ("<a href=..>src</a>/<a href=..>core</a>/a.c").
  void append_linked_path(std::string& out, std::string_view path) const;

 private:
  std::vector<std::string> file_pages_;
  std::vector<model::Totals> file_totals_;
  std::vector<SiteDirectory> directories_;
  std::unordered_map<std::string, size_t> by_path_;  // into directories_
};

}  // namespace covkit::report::html
