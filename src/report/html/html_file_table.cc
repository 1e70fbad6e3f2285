#include "report/html/html_file_table.h"

#include <fmt/format.h>

#include <iterator>

#include "report/html/html_escape.h"
#include "report/html/html_metrics.h"

namespace covkit::report::html {

void append_files_table_head(std::string& out, std::string_view first_column) {
  out +=
      "<table class=\"files sortable\" id=\"files\">\n<thead><tr><th scope=\"col\" data-sort=\"name\" "
      "data-type=\"text\">";
  append_escaped(out, first_column);
  out +=
      "</th><th scope=\"col\" data-sort=\"line\" data-type=\"number\">Lines</th>"
      "<th scope=\"col\" data-sort=\"func\" data-type=\"number\">Functions</th>"
      "<th scope=\"col\" data-sort=\"branch\" data-type=\"number\">Branches</th>"
      "</tr></thead>\n";
}

void append_sort_attributes(std::string& out, std::string_view name, const model::Totals& t) {
  out += " data-name=\"";
  append_escaped(out, name);
  fmt::format_to(std::back_inserter(out), "\" data-line=\"{}\" data-func=\"{}\" data-branch=\"{}\"",
                 sort_value(t.lines_covered, t.lines), sort_value(t.functions_covered, t.functions),
                 sort_value(t.branches_covered, t.branches));
}

void append_metric_cells(std::string& out, const model::Totals& t) {
  append_metric_cell(out, t.lines_covered, t.lines);
  append_metric_cell(out, t.functions_covered, t.functions);
  append_metric_cell(out, t.branches_covered, t.branches);
}

void append_linked_row(std::string& out, std::string_view row_class, std::string_view name, std::string_view page,
                       std::string_view title, const model::Totals& t) {
  out += "<tr class=\"";
  out += row_class;
  out += '"';
  append_sort_attributes(out, name, t);
  out += "><td class=\"name\"><a href=\"";
  append_escaped(out, page);
  out += "\" title=\"";
  append_escaped(out, title);
  out += "\">";
  append_escaped(out, name);
  out += "</a></td>";
  append_metric_cells(out, t);
  out += "</tr>\n";
}

}  // namespace covkit::report::html
