#include "report/html/html_site_map.h"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "report/file_order.h"
#include "report/html/html_escape.h"
#include "report/html/html_names.h"
#include "util/md5.h"

namespace covkit::report::html {

namespace {

// "src/core" -> "src", "/usr" -> "/", "src" and "/" -> "" (none).
std::string_view parent_of(std::string_view dir) {
  if (dir == "/" || dir == ".") return {};
  size_t slash = dir.rfind('/');
  if (slash == std::string_view::npos) return {};
  return slash == 0 ? dir.substr(0, 1) : dir.substr(0, slash);
}

size_t depth(std::string_view dir) { return size_t(std::count(dir.begin(), dir.end(), '/')); }

// page_file_name() and directory_page_name() differ for different paths
// unless 40 bits of MD5 collide; should they, the later page gets the full
// hash and a number.
class UniqueNames {
 public:
  std::string make(std::string name, std::string_view key) {
    if (used_.count(name))
      name = name.substr(0, name.size() - 5) + '-' + util::md5_hex(key) + '-' + std::to_string(used_.size()) + ".html";
    used_.insert(name);
    return name;
  }

 private:
  std::unordered_set<std::string> used_;
};

}  // namespace

SiteMap::SiteMap(const model::ProjectCov& project) {
  UniqueNames names;
  // Project directories first, then by name; "." (top level) leads.
  auto order = [](const std::string& a, const std::string& b) {
    const bool pa = is_project_path(a), pb = is_project_path(b);
    if (pa != pb) return pa;
    if ((a == ".") != (b == ".")) return a == ".";
    return a < b;
  };
  std::map<std::string, std::vector<size_t>, decltype(order)> grouped(order);
  file_pages_.reserve(project.files.size());
  file_totals_.reserve(project.files.size());
  for (size_t i = 0; i < project.files.size(); ++i) {
    const model::FileCov& f = project.files[i];
    file_pages_.push_back(names.make(page_file_name(f.path), f.path));
    file_totals_.push_back(model::totals(f));
    grouped[directory_of(f.path)].push_back(i);
  }
  for (auto& [path, files] : grouped) {
    SiteDirectory d;
    d.path = path;
    if (path != ".") d.page = names.make(directory_page_name(path), path + '/');
    d.files = std::move(files);
    for (size_t i : d.files) d.subtree += file_totals_[i];
    d.subtree_files = d.files.size();
    by_path_.emplace(d.path, directories_.size());
    directories_.push_back(std::move(d));
  }
  // Each directory under its nearest listed ancestor; subtree totals added
  // up from the deepest directories first.
  std::vector<size_t> parent(directories_.size(), SIZE_MAX);
  for (size_t i = 0; i < directories_.size(); ++i) {
    if (directories_[i].path == ".") continue;
    for (std::string_view up = parent_of(directories_[i].path); !up.empty(); up = parent_of(up)) {
      auto it = by_path_.find(std::string(up));
      if (it != by_path_.end()) {
        parent[i] = it->second;
        directories_[it->second].subdirectories.push_back(i);
        break;
      }
    }
  }
  std::vector<size_t> deepest_first(directories_.size());
  for (size_t i = 0; i < deepest_first.size(); ++i) deepest_first[i] = i;
  std::stable_sort(deepest_first.begin(), deepest_first.end(),
                   [&](size_t a, size_t b) { return depth(directories_[a].path) > depth(directories_[b].path); });
  for (size_t i : deepest_first)
    if (parent[i] != SIZE_MAX) {
      directories_[parent[i]].subtree += directories_[i].subtree;
      directories_[parent[i]].subtree_files += directories_[i].subtree_files;
    }
}

std::vector<std::string> SiteMap::page_names() const {
  std::vector<std::string> pages;
  pages.reserve(directories_.size() + file_pages_.size());
  for (const SiteDirectory& d : directories_)
    if (!d.page.empty()) pages.push_back(d.page);
  pages.insert(pages.end(), file_pages_.begin(), file_pages_.end());
  return pages;
}

void SiteMap::append_linked_path(std::string& out, std::string_view path) const {
  size_t start = 0;
  for (size_t slash = path.find('/'); slash != std::string_view::npos; slash = path.find('/', start)) {
    std::string_view name = path.substr(start, slash - start);
    auto it = by_path_.find(std::string(path.substr(0, slash == 0 ? 1 : slash)));
    if (!name.empty() && it != by_path_.end()) {
      out += "<a href=\"";
      append_escaped(out, directories_[it->second].page);
      out += "\">";
      append_escaped(out, name);
      out += "</a>";
    } else {
      append_escaped(out, name);
    }
    out += '/';
    start = slash + 1;
  }
  append_escaped(out, path.substr(start));
}

}  // namespace covkit::report::html
