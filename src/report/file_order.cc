#include "report/file_order.h"

#include <algorithm>

namespace covkit::report {

bool is_project_path(std::string_view shown_path) { return !shown_path.starts_with('/'); }

std::vector<const model::FileCov*> project_files_first(const model::ProjectCov& project) {
  std::vector<const model::FileCov*> files;
  files.reserve(project.files.size());
  for (const model::FileCov& f : project.files) files.push_back(&f);
  // The model is in path order already; a stable partition keeps it.
  std::stable_partition(files.begin(), files.end(), [](const model::FileCov* f) { return is_project_path(f->path); });
  return files;
}

}  // namespace covkit::report
