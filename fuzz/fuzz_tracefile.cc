// Fuzzes the lcov tracefile and covkit JSON readers with their writers; no
// input may crash, hang or trip a sanitizer. covkit JSON escapes everything,
// so what its reader accepts must render to a fixed point after one round.
// lcov has no escaping (a function named "2,f" or a path ending in CR cannot
// be written back unchanged), so for lcov the property is: our output reads
// back without error and with the same line and branch numbers.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "format/covkit_json_reader.h"
#include "format/lcov_tracefile_reader.h"
#include "model/load_coverage_file.h"
#include "model/project_coverage.h"
#include "report/covkit_json_writer.h"
#include "report/lcov_writer.h"

using namespace covkit;

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_tracefile: %s\n", what);
  std::abort();
}

void lcov_round_trip(std::string_view text) {
  auto first = format::read_lcov_tracefile(text);
  if (!first) return;
  const model::ProjectCov first_model = model::to_model(std::move(*first));
  std::string once = report::render_lcov(first_model);
  auto second = format::read_lcov_tracefile(once);
  if (!second) fail("lcov: own output rejected");
  const model::Totals a = model::totals(first_model), b = model::totals(model::to_model(std::move(*second)));
  // Function names may change (see above) and two may then merge; lines and
  // branches are keyed by number and must survive exactly.
  if (a.lines != b.lines || a.lines_covered != b.lines_covered || a.branches != b.branches ||
      a.branches_covered != b.branches_covered)
    fail("lcov: numbers changed on reading our own output");
}

void json_round_trip(std::string_view text) {
  auto first = format::read_covkit_json(text);
  if (!first) return;
  std::string once = report::render_covkit_json(model::to_model(std::move(*first)));
  auto second = format::read_covkit_json(once);
  if (!second) fail("json: own output rejected");
  if (report::render_covkit_json(model::to_model(std::move(*second))) != once) fail("json: output is not a fixed point");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  lcov_round_trip(text);
  json_round_trip(text);
  return 0;
}
