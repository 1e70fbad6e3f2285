#pragma once
// The sortable table of files (id "files") that the index and the directory
// pages share: the header sort.js reads, and rows carrying data-* sort
// values and the three metric cells.
#include <string>
#include <string_view>

#include "model/project_coverage.h"

namespace covkit::report::html {

// <table ...><thead>...</thead>; the caller adds tbodies and closes it.
void append_files_table_head(std::string& out, std::string_view first_column);

// One row: class `row_class` ("file" or "subdir"), `name` linking to `page`
// (with `title` as tooltip), and its line, function and branch cells.
void append_linked_row(std::string& out, std::string_view row_class, std::string_view name, std::string_view page,
                       std::string_view title, const model::Totals& t);

// The data-name / data-line / data-func / data-branch attributes.
void append_sort_attributes(std::string& out, std::string_view name, const model::Totals& t);
void append_metric_cells(std::string& out, const model::Totals& t);

}  // namespace covkit::report::html
