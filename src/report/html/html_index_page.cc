#include "report/html/html_index_page.h"

#include <fmt/format.h>

#include <iterator>
#include <map>

#include "report/html/html_escape.h"
#include "report/html/html_layout.h"
#include "report/html/html_metrics.h"
#include "report/html/html_names.h"

namespace covkit::report::html {

namespace {

// The data-* values sort.js reads; one per sortable column.
void append_sort_attributes(std::string& out, std::string_view name, const model::Totals& t) {
  out += " data-name=\"";
  append_escaped(out, name);
  fmt::format_to(std::back_inserter(out), "\" data-line=\"{}\" data-func=\"{}\" data-branch=\"{}\"",
                 sort_value(t.lines_covered, t.lines), sort_value(t.functions_covered, t.functions),
                 sort_value(t.branches_covered, t.branches));
}

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

void append_metric_cells(std::string& out, const model::Totals& t) {
  append_metric_cell(out, t.lines_covered, t.lines);
  append_metric_cell(out, t.functions_covered, t.functions);
  append_metric_cell(out, t.branches_covered, t.branches);
}

}  // namespace

std::string render_index_page(const model::ProjectCov& project, const std::vector<std::string>& page_names,
                              const HtmlOptions& opts) {
  std::vector<model::Totals> file_totals;
  file_totals.reserve(project.files.size());
  for (const model::FileCov& f : project.files) file_totals.push_back(model::totals(f));
  // Directories in name order; files keep the model's path order within each.
  std::map<std::string, std::vector<size_t>> dirs;
  for (size_t i = 0; i < project.files.size(); ++i) dirs[directory_of(project.files[i].path)].push_back(i);

  std::string out;
  out.reserve(4096 + project.files.size() * 900);
  append_page_begin(out, opts, "", "");
  model::Totals all;
  for (const model::Totals& t : file_totals) all += t;
  append_totals_cards(out, all);
  fmt::format_to(std::back_inserter(out), "<h2>{} file{} in {} director{}</h2>\n", project.files.size(),
                 project.files.size() == 1 ? "" : "s", dirs.size(), dirs.size() == 1 ? "y" : "ies");
  append_legend(out, LegendKind::kIndex);
  if (project.files.empty()) {
    out += "<p class=\"empty\">No source files have coverage data.</p>\n";
    append_page_end(out);
    return out;
  }
  out +=
      "<table class=\"files sortable\" id=\"files\">\n<thead><tr>"
      "<th scope=\"col\" data-sort=\"name\" data-type=\"text\">Directory / file</th>"
      "<th scope=\"col\" data-sort=\"line\" data-type=\"number\">Lines</th>"
      "<th scope=\"col\" data-sort=\"func\" data-type=\"number\">Functions</th>"
      "<th scope=\"col\" data-sort=\"branch\" data-type=\"number\">Branches</th>"
      "</tr></thead>\n";
  for (const auto& [dir, members] : dirs) {
    model::Totals dir_totals;
    for (size_t i : members) dir_totals += file_totals[i];
    out += "<tbody class=\"dir\">\n<tr class=\"group\"";
    append_sort_attributes(out, dir, dir_totals);
    out +=
        "><th scope=\"rowgroup\"><button class=\"toggle\" type=\"button\" aria-expanded=\"true\" "
        "title=\"show or hide the files\">\u25be</button>";
    append_path_with_breaks(out, dir == "." ? std::string_view("(top level)") : std::string_view(dir));
    fmt::format_to(std::back_inserter(out), " <span class=\"nfiles\">{} file{}</span></th>", members.size(),
                   members.size() == 1 ? "" : "s");
    append_metric_cells(out, dir_totals);
    out += "</tr>\n";
    for (size_t i : members) {
      std::string base = base_name_of(project.files[i].path);
      out += "<tr class=\"file\"";
      append_sort_attributes(out, base, file_totals[i]);
      out += "><td class=\"name\"><a href=\"";
      append_escaped(out, page_names[i]);
      out += "\" title=\"";
      append_escaped(out, project.files[i].path);
      out += "\">";
      append_escaped(out, base);
      out += "</a></td>";
      append_metric_cells(out, file_totals[i]);
      out += "</tr>\n";
    }
    out += "</tbody>\n";
  }
  out += "</table>\n";
  append_page_end(out);
  return out;
}

}  // namespace covkit::report::html
