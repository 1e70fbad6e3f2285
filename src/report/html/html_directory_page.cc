#include "report/html/html_directory_page.h"

#include <fmt/format.h>

#include <iterator>

#include "report/html/html_escape.h"
#include "report/html/html_file_table.h"
#include "report/html/html_layout.h"
#include "report/html/html_metrics.h"
#include "report/html/html_names.h"

namespace covkit::report::html {

namespace {

// "src/core/io" under "src/core" is "io"; under "/" "/usr" is "usr".
std::string_view relative_to(std::string_view path, std::string_view dir) {
  if (dir == "/") return path.substr(1);
  return path.substr(dir.size() + 1);
}

}  // namespace

std::string render_directory_page(const model::ProjectCov& project, const SiteMap& site, const SiteDirectory& dir,
                                  const HtmlOptions& opts) {
  std::string out;
  out.reserve(4096 + (dir.files.size() + dir.subdirectories.size()) * 700);
  std::string crumb;
  site.append_linked_path(crumb, dir.path);
  append_page_begin(out, opts, dir.path, crumb);
  out += "<h2 class=\"path\">";
  append_escaped(out, dir.path);
  out += "</h2>\n";
  append_totals_cards(out, dir.subtree);
  fmt::format_to(std::back_inserter(out), "<h2>{} file{}", dir.files.size(), dir.files.size() == 1 ? "" : "s");
  if (!dir.subdirectories.empty())
    fmt::format_to(std::back_inserter(out), " and {} director{}", dir.subdirectories.size(),
                   dir.subdirectories.size() == 1 ? "y" : "ies");
  out += "</h2>\n";
  append_legend(out, LegendKind::kIndex);
  append_files_table_head(out, "Directory / file");
  if (!dir.subdirectories.empty()) {
    out += "<tbody class=\"subdirs\">\n";
    for (size_t k : dir.subdirectories) {
      const SiteDirectory& sub = site.directories()[k];
      append_linked_row(out, "subdir", std::string(relative_to(sub.path, dir.path)) + '/', sub.page, sub.path,
                        sub.subtree);
    }
    out += "</tbody>\n";
  }
  out += "<tbody class=\"files\">\n";
  for (size_t i : dir.files)
    append_linked_row(out, "file", base_name_of(project.files[i].path), site.file_page(i), project.files[i].path,
                      site.file_totals(i));
  out += "</tbody>\n</table>\n";
  append_page_end(out);
  return out;
}

}  // namespace covkit::report::html
