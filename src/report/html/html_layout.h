#pragma once
// The frame every page shares: document head, the header (title, date,
// version) and the closing script tag.
#include <string>
#include <string_view>

#include "report/html/html_options.h"

namespace covkit::report::html {

// `page_title` is plain text (escaped here); `crumb_html` is markup, already
// escaped (SiteMap::append_linked_path), that follows the report title in the
// header ("covkit coverage / src/a.c").
void append_page_begin(std::string& out, const HtmlOptions& opts, std::string_view page_title,
                       std::string_view crumb_html);
void append_page_end(std::string& out);

// "2024-05-01 12:00:00 UTC"; UTC so the page does not depend on where it was
// generated.
std::string format_utc(int64_t timestamp);

}  // namespace covkit::report::html
