#include "report/html/html_layout.h"

#include <ctime>

#include "report/html/html_assets.h"
#include "report/html/html_escape.h"

namespace covkit::report::html {

void append_page_begin(std::string& out, const HtmlOptions& opts, std::string_view page_title,
                       std::string_view crumb_html) {
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"color-scheme\" content=\"light dark\">\n";
  out += "<meta name=\"generator\" content=\"covkit\">\n<title>";
  append_escaped(out, page_title);
  if (!page_title.empty()) out += " \u2014 ";
  append_escaped(out, opts.title);
  out += "</title>\n<link rel=\"stylesheet\" href=\"";
  out += kStyleFileName;
  out += "\">\n</head>\n<body>\n<header class=\"top\">\n<h1><a href=\"index.html\">";
  append_escaped(out, opts.title);
  out += "</a>";
  if (!crumb_html.empty()) {
    out += "<span class=\"crumb\"> / ";
    out += crumb_html;
    out += "</span>";
  }
  out += "</h1>\n<p class=\"meta\">";
  if (opts.timestamp != 0) {
    out += "<span class=\"date\">Generated ";
    out += format_utc(opts.timestamp);
    out += "</span>";
  }
  if (!opts.version.empty()) {
    out += "<span class=\"version\">";
    append_escaped(out, opts.version);
    out += "</span>";
  }
  out += "</p>\n</header>\n<main>\n";
  if (opts.counts_are_lower_bounds)
    out +=
        "<p class=\"notice\" id=\"lower-bounds\">Sampled coverage: a count is how many samples or breakpoint hits "
        "saw the line or function, so the real number of runs or calls is at least that (\u2265).</p>\n";
}

void append_page_end(std::string& out) {
  out += "</main>\n<script src=\"";
  out += kScriptFileName;
  out += "\"></script>\n</body>\n</html>\n";
}

std::string format_utc(int64_t timestamp) {
  std::time_t t = std::time_t(timestamp);
  std::tm tm{};
  if (!::gmtime_r(&t, &tm)) return std::to_string(timestamp);
  char buf[64];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return n ? std::string(buf, n) : std::to_string(timestamp);
}

}  // namespace covkit::report::html
