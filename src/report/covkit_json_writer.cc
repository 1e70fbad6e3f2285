#include "report/covkit_json_writer.h"

#include <nlohmann/json.hpp>

#include "format/covkit_json_reader.h"  // the format tag and version

namespace covkit::report {

namespace {

using Json = nlohmann::ordered_json;

// Optional members are left out when they hold their default, which keeps
// the common line to {"line": N, "count": C}.
Json line_json(const model::LineCov& l) {
  Json j = Json::object();
  j["line"] = l.number;
  j["count"] = l.count;
  if (l.unexecuted_block) j["unexecuted_block"] = true;
  if (l.inferred) j["inferred"] = true;
  if (l.no_count) j["no_count"] = true;
  if (!l.branches.empty()) {
    Json bs = Json::array();
    for (const model::BranchCov& b : l.branches) {
      Json bj{{"count", b.count},
              {"executed", b.executed},
              {"throw", b.is_throw},
              {"fallthrough", b.fallthrough},
              {"unreachable", b.unreachable}};
      if (b.block != 0) bj["block"] = b.block;
      bs.push_back(std::move(bj));
    }
    j["branches"] = std::move(bs);
  }
  if (!l.instances.empty()) {
    Json is = Json::array();
    for (const model::LineInstance& i : l.instances) is.push_back(Json{{"function", i.function}, {"count", i.count}});
    j["instances"] = std::move(is);
  }
  return j;
}

Json function_json(const model::FunctionCov& f) {
  Json j{{"name", f.name},
              {"demangled", f.demangled},
              {"start_line", f.start_line},
              {"start_column", f.start_column},
              {"end_line", f.end_line},
              {"end_column", f.end_column},
              {"execution_count", f.execution_count},
              {"blocks", f.blocks},
              {"blocks_executed", f.blocks_executed}};
  if (f.regions != 0) {
    j["regions"] = f.regions;
    j["regions_covered"] = f.regions_covered;
  }
  return j;
}

}  // namespace

std::string render_covkit_json(const model::ProjectCov& project) {
  Json files = Json::array();
  for (const model::FileCov& f : project.files) {
    Json lines = Json::array();
    for (const model::LineCov& l : f.lines)
      if (!l.excluded) lines.push_back(line_json(l));
    Json functions = Json::array();
    for (const model::FunctionCov& fn : f.functions)
      if (!fn.excluded) functions.push_back(function_json(fn));
    Json fj = Json::object();
    fj["path"] = f.path;
    fj["absolute_path"] = f.absolute_path;
    fj["lines"] = std::move(lines);
    fj["functions"] = std::move(functions);
    if (!f.regions.empty()) {
      Json regions = Json::array();
      for (const model::RegionCov& r : f.regions)
        regions.push_back(Json::array({r.line_start, r.column_start, r.line_end, r.column_end, r.count}));
      fj["regions"] = std::move(regions);
    }
    files.push_back(std::move(fj));
  }
  Json doc = Json::object();
  doc["format"] = format::kCovkitJsonFormat;
  doc["format_version"] = format::kCovkitJsonVersion;
  doc["files"] = std::move(files);
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace covkit::report
