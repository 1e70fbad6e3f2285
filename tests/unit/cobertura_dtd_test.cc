// The Cobertura output validates against coverage-04.dtd (what GitLab and
// Jenkins expect), checked with xmllint on a project that exercises every
// element and the awkward names.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "model/project_coverage.h"
#include "report/cobertura_writer.h"
#include "report/sonarqube_writer.h"
#include "test_support.h"

namespace covkit::report {
namespace cobertura_dtd_test {

// Cobertura's DTD ships with the tests (tests/data/).
// (Not found through __FILE__, which is relative under ccache's base_dir.)
std::string dtd_path() { return std::string(COVKIT_TEST_DATA_DIR) + "/cobertura-coverage-04.dtd"; }

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Runs xmllint on `xml` (with the DTD unless `dtd` is empty); "" when it
// accepts the document, else what xmllint said.
std::string xmllint_complaints(const std::string& xml, const std::string& dtd) {
  testing::TempDir dir;
  const std::string file = dir / "coverage.xml", log = dir / "xmllint.log";
  if (!testing::write_text(file, xml)) return "cannot write " + file;
  const std::string cmd = "xmllint --noout --nonet " + (dtd.empty() ? "" : "--dtdvalid '" + dtd + "' ") + "'" +
                          file + "' >'" + log + "' 2>&1";
  const int status = std::system(cmd.c_str());
  if (status == 0) return "";
  const std::string said = slurp(log);
  return said.empty() ? "xmllint failed with status " + std::to_string(status) : said;
}

model::LineCov line(uint32_t n, int64_t count, std::vector<int64_t> branches = {}) {
  model::LineCov l;
  l.number = n;
  l.count = count;
  for (int64_t b : branches) l.branches.push_back({.count = b, .executed = count > 0});
  return l;
}

model::FileCov file(std::string path, std::vector<model::LineCov> lines, std::vector<model::FunctionCov> functions) {
  model::FileCov f;
  f.path = std::move(path);
  f.absolute_path = "/src/" + f.path;
  f.lines = std::move(lines);
  f.functions = std::move(functions);
  return f;
}

model::FunctionCov function(std::string demangled, uint32_t start, uint32_t end, int64_t count) {
  model::FunctionCov f;
  f.name = "_Z" + std::to_string(start);
  f.demangled = std::move(demangled);
  f.start_line = start;
  f.end_line = end;
  f.execution_count = count;
  return f;
}

// Several directories, top-level files, branches, excluded parts, and names
// with markup characters, control characters and bytes that are not UTF-8.
model::ProjectCov nontrivial() {
  model::ProjectCov p;
  p.files.push_back(file("main.cc", {line(1, 1), line(2, 1, {1, 0})}, {function("main", 1, 3, 1)}));
  p.files.push_back(file("src/a&b/<x>.h", {line(3, 0, {0, 0, 0, 0}), line(4, 0)},
                         {function("std::map<K, V>::operator<(\"'&)", 3, 4, 0)}));
  p.files.push_back(file("src/util/md5.cc", {line(10, 5, {5, 0}), line(11, 5), line(12, 0)},
                         {function("md5(std::string_view)", 10, 12, 5)}));
  p.files.push_back(file("src/util/tab\tnl\nctl\x01 bad\xFF\xC0.cc", {line(1, 2)}, {function("f\x02()", 1, 1, 2)}));
  p.files.push_back(file("/usr/include/c++/12/bits/vector.tcc", {line(100, 3, {3, 3})}, {}));
  p.files[2].lines[2].excluded = true;
  p.files.push_back(file("src/empty.cc", {}, {}));  // a file with nothing to cover
  return p;
}

// GTEST_SKIP only leaves the function it is in: this is a macro so that it
// leaves the test.
#define REQUIRE_XMLLINT(dtd)                                                                    \
  do {                                                                                          \
    if (!testing::have_program("xmllint")) GTEST_SKIP() << "xmllint is not installed (libxml2-utils)"; \
    ASSERT_TRUE(exists(dtd)) << "Cobertura DTD missing: " << (dtd);                             \
  } while (0)

TEST(CoberturaDtd, NontrivialProjectValidates) {
  const std::string dtd = dtd_path();
  REQUIRE_XMLLINT(dtd);
  const std::string xml =
      render_cobertura(nontrivial(), {.source_root = "/work/<root> & 'co'", .source_prefix = {},
                                      .timestamp = 1700000000, .version = "covkit \"0.1.0\""});
  EXPECT_EQ(xmllint_complaints(xml, dtd), "") << xml;
}

TEST(CoberturaDtd, EmptyProjectValidates) {
  const std::string dtd = dtd_path();
  REQUIRE_XMLLINT(dtd);
  EXPECT_EQ(xmllint_complaints(render_cobertura({}, {}), dtd), "");
}

TEST(CoberturaDtd, InvalidDocumentIsRejected) {
  // Guards the check itself: xmllint must complain about a broken document.
  const std::string dtd = dtd_path();
  REQUIRE_XMLLINT(dtd);
  EXPECT_NE(xmllint_complaints("<?xml version=\"1.0\"?>\n<coverage/>\n", dtd), "");
}

TEST(SonarqubeDtd, NontrivialProjectIsWellFormedXml) {
  if (!testing::have_program("xmllint")) GTEST_SKIP() << "xmllint is not installed (apt-get install libxml2-utils)";
  EXPECT_EQ(xmllint_complaints(render_sonarqube(nontrivial()), ""), "");
}

}  // namespace
}  // namespace covkit::report
