#include "report/coveralls_writer.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>

#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/md5.h"

namespace covkit::report {

namespace {

using Json = nlohmann::ordered_json;

// Lines as an editor counts them: a last line without '\n' still counts.
size_t count_lines(std::string_view text) {
  size_t n = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  if (!text.empty() && text.back() != '\n') ++n;
  return n;
}

Json source_file(const model::FileCov& f) {
  std::string digest;
  size_t source_lines = 0;
  if (auto data = util::read_source_file(f.absolute_path)) {
    const std::string_view text = data->text();
    digest = util::md5_hex(text);
    source_lines = count_lines(text);
  }
  // Coveralls indexes lines from 1 at array position 0, so line 0 has no slot;
  // lines not in the model (or excluded) are null. Lines are sorted by number.
  Json coverage = Json::array();
  Json branches = Json::array();
  for (const model::LineCov& l : f.lines) {
    if (l.excluded || l.no_count || l.number == 0) continue;
    while (coverage.size() + 1 < l.number) coverage.push_back(nullptr);
    coverage.push_back(l.count);
    // [line, block, branch, hits] flattened; gcov's branches are per line, so block is 0.
    for (size_t i = 0; i < l.branches.size(); ++i)
      for (int64_t v : {int64_t(l.number), int64_t(0), int64_t(i), l.branches[i].count}) branches.push_back(v);
  }
  while (coverage.size() < source_lines) coverage.push_back(nullptr);
  Json j = Json::object();
  j["name"] = f.path;
  j["source_digest"] = digest;
  j["coverage"] = std::move(coverage);
  j["branches"] = std::move(branches);
  return j;
}

}  // namespace

std::string render_coveralls(const model::ProjectCov& project, const CoverallsOptions& options) {
  Json doc = Json::object();
  doc["service_name"] = options.service_name;
  if (!options.service_job_id.empty()) doc["service_job_id"] = options.service_job_id;
  if (!options.repo_token.empty()) doc["repo_token"] = options.repo_token;
  Json files = Json::array();
  for (const model::FileCov& f : project.files) files.push_back(source_file(f));
  doc["source_files"] = std::move(files);
  // JSON must be UTF-8: bytes of non-UTF-8 names become U+FFFD instead of throwing.
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace covkit::report
