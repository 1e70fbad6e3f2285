#include "report/html/html_site.h"

#include <filesystem>
#include <optional>
#include <unordered_set>
#include <vector>

#include "report/html/html_assets.h"
#include "report/html/html_index_page.h"
#include "report/html/html_names.h"
#include "report/html/html_source_page.h"
#include "util/file_io.h"
#include "util/md5.h"
#include "util/printable.h"
#include "util/thread_pool.h"

namespace covkit::report::html {

namespace {

bool make_directories(const std::string& dir, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec && util::is_directory(dir)) return true;
  if (error)
    *error = "cannot create directory " + util::printable(dir) + ": " + (ec ? ec.message() : "not a directory");
  return false;
}

bool write_one(const std::string& path, std::string_view content, std::string* error) {
  auto written = util::write_file_atomic(path, content);
  if (written) return true;
  if (error) *error = "cannot write " + util::printable(path) + ": " + written.error().message;
  return false;
}

// page_file_name() already differs for different paths unless 40 bits of MD5
// collide; should they, the later file gets the full hash and its index.
std::vector<std::string> unique_page_names(const model::ProjectCov& project) {
  std::vector<std::string> names;
  names.reserve(project.files.size());
  std::unordered_set<std::string> used;
  for (size_t i = 0; i < project.files.size(); ++i) {
    std::string name = page_file_name(project.files[i].path);
    if (used.count(name))
      name = name.substr(0, name.size() - 5) + '-' + util::md5_hex(project.files[i].path) + '-' + std::to_string(i) +
             ".html";
    used.insert(name);
    names.push_back(std::move(name));
  }
  return names;
}

// Reads, renders and writes one file's page; returns the error, if any.
std::string write_source_page(const model::FileCov& file, const std::string& page_path, const HtmlOptions& opts) {
  const std::string& where = file.absolute_path.empty() ? file.path : file.absolute_path;
  auto data = util::read_file(where);
  std::string page;
  if (data) {
    std::string text(data->text());
    data = util::FileData();  // halve the peak for large sources
    page = render_source_page(file, &text, "", opts);
  } else {
    page = render_source_page(file, nullptr, data.error().message, opts);
  }
  std::string error;
  write_one(page_path, page, &error);
  return error;
}

}  // namespace

bool write_html_site(const model::ProjectCov& project, const HtmlOptions& opts, const std::string& out_dir_arg,
                     std::string* error) {
  const std::string out_dir = out_dir_arg.empty() ? "." : out_dir_arg;
  if (!make_directories(out_dir, error)) return false;
  std::string base = out_dir.back() == '/' ? out_dir : out_dir + '/';
  if (!write_one(base + std::string(kStyleFileName), style_css(), error)) return false;
  if (!write_one(base + std::string(kScriptFileName), sort_js(), error)) return false;

  std::vector<std::string> pages = unique_page_names(project);
  // Pages are independent: render them on worker threads, then report the
  // first failure in file order so the message does not depend on timing.
  std::vector<std::string> errors(project.files.size());
  util::parallel_for(project.files.size(), util::default_threads(),
                     [&](size_t i) { errors[i] = write_source_page(project.files[i], base + pages[i], opts); });
  for (const std::string& e : errors) {
    if (!e.empty()) {
      if (error) *error = e;
      return false;
    }
  }
  // The index last: a site with an index.html is complete.
  return write_one(base + "index.html", render_index_page(project, pages, opts), error);
}

}  // namespace covkit::report::html
