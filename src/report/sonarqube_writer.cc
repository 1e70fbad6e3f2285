#include "report/sonarqube_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "report/xml_escape.h"

namespace covkit::report {

std::string render_sonarqube(const model::ProjectCov& project) {
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<coverage version=\"1\">\n");
  for (const model::FileCov& f : project.files) {
    fmt::format_to(out, "  <file path=\"{}\">\n", xml_escape(f.path));
    for (const model::LineCov& l : f.lines) {
      if (l.excluded || l.no_count || l.number == 0) continue;  // lineToCover needs covered
      fmt::format_to(out, "    <lineToCover lineNumber=\"{}\" covered=\"{}\"", l.number, l.covered());
      if (!l.branches.empty()) {
        const auto covered = std::count_if(l.branches.begin(), l.branches.end(),
                                           [](const model::BranchCov& b) { return b.count > 0; });
        fmt::format_to(out, " branchesToCover=\"{}\" coveredBranches=\"{}\"", l.branches.size(), covered);
      }
      text += "/>\n";
    }
    text += "  </file>\n";
  }
  text += "</coverage>\n";
  return text;
}

}  // namespace covkit::report
