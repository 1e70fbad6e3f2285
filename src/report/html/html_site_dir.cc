#include "report/html/html_site_dir.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "report/html/html_site_marker.h"
#include "util/file_io.h"
#include "util/printable.h"

namespace covkit::report::html {

namespace {

std::string shown(const std::string& path) { return util::printable(path); }

}  // namespace

Expected<StagedSite> StagedSite::begin(const std::string& out_dir) {
  const std::string target = out_dir.empty() ? "." : out_dir;
  // The directory is found and opened first (util::StagedTree: never
  // through another user's link) and looked at through that descriptor;
  // nothing is staged before it is known to be covkit's to replace.
  auto tree = util::StagedTree::open(target);
  if (!tree) return Error("cannot create directory " + tree.error().message);
  std::unordered_set<std::string> previous;
  if (tree->old_exists()) {
    auto empty = tree->old_is_empty();
    if (!empty) return empty.error();
    auto marker = tree->read_old(kMarkerFileName);
    if (marker && *marker) previous = marker_names(**marker);
    if (!*empty && previous.empty())
      return Error(fmt::format(
          "{} is not empty and holds no covkit HTML report ({} is missing): give --html a new or empty directory",
          shown(target), kMarkerFileName));
  }
  if (auto s = tree->stage(); !s) return Error("cannot create directory " + s.error().message);
  return StagedSite(std::move(*tree), std::move(previous));
}

Expected<void> StagedSite::write(const std::string& name, std::string_view content) {
  // A user's file of that name (not one covkit wrote) is not replaced silently.
  if (!previous_.count(name) && tree_.old_has(name))
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
    if (auto w = tree_.write_in_target(kMarkerFileName, marker_text(both)); !w)
      return Error(fmt::format("cannot write {}/{}: {}", shown(target()), kMarkerFileName, w.error().message));
  }
  if (auto w = tree_.write(std::string(kMarkerFileName), marker_text(written)); !w)
    return Error("cannot write " + w.error().message);
  if (auto c = tree_.commit(); !c)
    return Error(fmt::format("cannot move the HTML report into {}: {}", shown(target()), c.error().message));
  return {};
}

}  // namespace covkit::report::html
