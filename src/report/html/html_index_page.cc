#include "report/html/html_index_page.h"

#include <fmt/format.h>

#include <iterator>

#include "report/html/html_escape.h"
#include "report/html/html_file_table.h"
#include "report/html/html_layout.h"
#include "report/html/html_metrics.h"
#include "report/html/html_names.h"

namespace covkit::report::html {

namespace {

// Long directory names wrap at their slashes rather than mid-name.
void append_path_with_breaks(std::string& out, std::string_view path) {
  size_t start = 0;
  for (size_t slash = path.find('/'); slash != std::string_view::npos; slash = path.find('/', start)) {
    append_escaped(out, path.substr(start, slash + 1 - start));
    out += "<wbr>";
    start = slash + 1;
  }
  append_escaped(out, path.substr(start));
}

// A directory's row counts what its page counts: its files and those of the
// directories below it, which follow as groups of their own ("src 1 file (3
// with its subdirectories)"), as genhtml's and gcovr's nested views count a
// directory.
void append_directory_group(std::string& out, const model::ProjectCov& project, const SiteMap& site,
                            const SiteDirectory& dir) {
  out += "<tbody class=\"dir\">\n<tr class=\"group\"";
  append_sort_attributes(out, dir.path, dir.subtree);
  out +=
      "><th scope=\"rowgroup\"><button class=\"toggle\" type=\"button\" aria-expanded=\"true\" "
      "title=\"show or hide the files\">\u25be</button>";
  if (dir.page.empty()) {
    out += "(top level)";
  } else {
    out += "<a href=\"";
    append_escaped(out, dir.page);
    out += "\">";
    append_path_with_breaks(out, dir.path);
    out += "</a>";
  }
  fmt::format_to(std::back_inserter(out), " <span class=\"nfiles\">{} file{}", dir.files.size(),
                 dir.files.size() == 1 ? "" : "s");
  if (dir.subtree_files > dir.files.size())
    fmt::format_to(std::back_inserter(out), " ({} with its subdirectories)", dir.subtree_files);
  out += "</span></th>";
  append_metric_cells(out, dir.subtree);
  out += "</tr>\n";
  for (size_t i : dir.files)
    append_linked_row(out, "file", base_name_of(project.files[i].path), site.file_page(i), project.files[i].path,
                      site.file_totals(i));
  out += "</tbody>\n";
}

}  // namespace

std::string render_index_page(const model::ProjectCov& project, const SiteMap& site, const HtmlOptions& opts) {
  std::string out;
  out.reserve(4096 + project.files.size() * 900);
  append_page_begin(out, opts, "", "");
  // The project's totals from its files' (counted once, by the site map).
  model::Totals all;
  for (size_t i = 0; i < project.files.size(); ++i) all += site.file_totals(i);
  append_totals_cards(out, all);
  const size_t ndirs = site.directories().size();
  fmt::format_to(std::back_inserter(out), "<h2>{} file{} in {} director{}</h2>\n", project.files.size(),
                 project.files.size() == 1 ? "" : "s", ndirs, ndirs == 1 ? "y" : "ies");
  append_legend(out, LegendKind::kIndex);
  if (project.files.empty()) {
    out += "<p class=\"empty\">No source files have coverage data.</p>\n";
    append_page_end(out);
    return out;
  }
  append_files_table_head(out, "Directory / file");
  for (const SiteDirectory& dir : site.directories()) append_directory_group(out, project, site, dir);
  out += "</table>\n";
  append_page_end(out);
  return out;
}

}  // namespace covkit::report::html
