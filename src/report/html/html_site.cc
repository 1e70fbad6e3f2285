#include "report/html/html_site.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "model/source_texts.h"
#include "report/html/html_assets.h"
#include "report/html/html_directory_page.h"
#include "report/html/html_index_page.h"
#include "report/html/html_out.h"
#include "report/html/html_site_dir.h"
#include "report/html/html_site_map.h"
#include "report/html/html_source_page.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/printable.h"
#include "util/thread_pool.h"

namespace covkit::report::html {

namespace {

// Renders and writes one file's page, its source as the exclusion markers
// read it, or read now.
Expected<void> write_file_page(const model::FileCov& file, size_t index, const SiteMap& map, StagedSite& site,
                               const HtmlOptions& opts) {
  const model::Totals& totals = map.file_totals(index);
  std::string crumb;
  map.append_linked_path(crumb, file.path);
  const std::string& where = model::SourceTexts::where(file);
  const model::SourceTexts::Text* kept = opts.sources ? opts.sources->find(where) : nullptr;
  // One buffer per thread, its pages' memory reused from page to page.
  thread_local HtmlOut html;
  html.clear();
  if (kept) {
    if (kept->data)
      write_source_page(html, file, totals, kept->data->text(), "", crumb, opts);
    else
      write_source_page(html, file, totals, std::nullopt, kept->error, crumb, opts);
  } else if (auto data = util::read_source_file(where)) {  // named by the data: its owners' rights
    write_source_page(html, file, totals, data->text(), "", crumb, opts);
  } else {
    write_source_page(html, file, totals, std::nullopt, data.error().message, crumb, opts);
  }
  return site.write(map.file_page(index), html.text());
}

}  // namespace

Expected<void> write_html_site(const model::ProjectCov& project, const HtmlOptions& opts, const std::string& out_dir,
                               const std::function<void()>& alongside) {
  Expected<StagedSite> site = StagedSite::begin(out_dir);
  if (!site) return site.error();
  std::vector<std::string> written = {std::string(kStyleFileName), std::string(kScriptFileName)};
  if (auto r = site->write(written[0], style_css()); !r) return r;
  if (auto r = site->write(written[1], sort_js()); !r) return r;

  const SiteMap map(project);
  // Every page is independent: all are rendered on the threads, the
  // sources' largest first (a large page started last kept one core busy
  // long after the other had finished), with the text outputs (alongside)
  // and the directory and index pages. The first failure is reported in
  // the order of a serial run (directories, files, index), so the message
  // does not depend on timing.
  const std::vector<SiteDirectory>& dirs = map.directories();
  std::vector<size_t> largest_first(project.files.size());
  for (size_t i = 0; i < largest_first.size(); ++i) largest_first[i] = i;
  auto last_line = [&](size_t i) {
    const model::FileCov& f = project.files[i];
    return f.lines.empty() ? 0u : f.lines.back().number;
  };
  std::stable_sort(largest_first.begin(), largest_first.end(),
                   [&](size_t a, size_t b) { return last_line(a) > last_line(b); });
  std::vector<Expected<void>> dir_results(dirs.size()), results(project.files.size());
  Expected<void> index_result;
  const size_t first = alongside ? 1 : 0;
  const unsigned threads = opts.threads ? opts.threads : util::default_threads();
  util::parallel_for(first + dirs.size() + 1 + project.files.size(), threads, [&](size_t job) {
    if (job < first) {
      alongside();
      return;
    }
    job -= first;
    if (job < dirs.size()) {
      if (!dirs[job].page.empty())
        dir_results[job] = site->write(dirs[job].page, render_directory_page(project, map, dirs[job], opts));
      return;
    }
    job -= dirs.size();
    if (job == 0) {
      index_result = site->write("index.html", render_index_page(project, map, opts));
      return;
    }
    const size_t i = largest_first[job - 1];
    results[i] = write_file_page(project.files[i], i, map, *site, opts);
  });
  for (const Expected<void>& r : dir_results)
    if (!r) return r;
  for (const Expected<void>& r : results)
    if (!r) return r;
  if (!index_result) return index_result;
  std::vector<std::string> pages = map.page_names();
  written.insert(written.end(), pages.begin(), pages.end());
  written.push_back("index.html");
  return site->commit(written);
}

}  // namespace covkit::report::html
