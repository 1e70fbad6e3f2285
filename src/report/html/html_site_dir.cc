#include "report/html/html_site_dir.h"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "report/html/html_site_marker.h"
#include "util/file_io.h"
#include "util/printable.h"

namespace covkit::report::html {

namespace {

std::string shown(const std::string& path) { return util::printable(path); }

// Whether `dir` holds anything ("." and ".." aside); an error when it cannot
// be read.
Expected<bool> has_entries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return Error(fmt::format("cannot read directory {}: {}", shown(dir), std::strerror(errno)));
  bool any = false;
  while (dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n != "." && n != "..") {
      any = true;
      break;
    }
  }
  ::closedir(d);
  return any;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace

Expected<StagedSite> StagedSite::begin(const std::string& out_dir) {
  const std::string target = out_dir.empty() ? "." : out_dir;
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return Error(fmt::format("cannot create directory {}: not a directory", shown(target)));
    auto any = has_entries(target);
    if (!any) return any.error();
    if (*any && marker_names(target).empty())
      return Error(fmt::format(
          "{} is not empty and holds no covkit HTML report ({} is missing): give --html a new or empty directory",
          shown(target), kMarkerFileName));
  }
  auto tree = util::StagedTree::begin(target);
  if (!tree) return Error("cannot create directory " + tree.error().message);
  std::unordered_set<std::string> previous = marker_names(tree->absolute_target());
  return StagedSite(std::move(*tree), std::move(previous));
}

Expected<void> StagedSite::write(const std::string& name, std::string_view content) {
  // A user's file of that name (not one covkit wrote) is not replaced silently.
  if (!previous_.count(name) && exists(tree_.absolute_target() + "/" + name))
    return Error(fmt::format(
        "{}/{} was not written by covkit but the new report has a file of that name: move it away and run again",
        shown(target()), shown(name)));
  auto w = tree_.write(name, content);
  if (!w) return Error("cannot write " + w.error().message);
  return {};
}

Expected<void> StagedSite::commit(std::span<const std::string> written) {
  const std::unordered_set<std::string> now(written.begin(), written.end());
  for (const std::string& n : previous_)
    if (!now.count(n) && n != kMarkerFileName)
      if (auto r = tree_.remove(n); !r) return r;
  if (tree_.in_place()) {
    // Files move in one by one: meanwhile the marker lists the old and the
    // new ones, so that a run killed half way leaves nothing the next run
    // would take for a user's file.
    std::vector<std::string> both(previous_.begin(), previous_.end());
    both.insert(both.end(), written.begin(), written.end());
    const std::string marker = tree_.absolute_target() + "/" + std::string(kMarkerFileName);
    if (auto w = util::write_file_atomic(marker, marker_text(both)); !w)
      return Error(fmt::format("cannot write {}/{}: {}", shown(target()), kMarkerFileName, w.error().message));
  }
  if (auto w = tree_.write(std::string(kMarkerFileName), marker_text(written)); !w)
    return Error("cannot write " + w.error().message);
  if (auto c = tree_.commit(); !c)
    return Error(fmt::format("cannot move the HTML report into {}: {}", shown(target()), c.error().message));
  return {};
}

}  // namespace covkit::report::html
