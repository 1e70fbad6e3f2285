// covkit's own JSON: exact output, lossless round trips, and hostile input
// rejected with one clear line.
#include <gtest/gtest.h>

#include <optional>

#include "model/load_coverage_file.h"

#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "format/covkit_json_reader.h"
#include "model/project_coverage.h"
#include "report/covkit_json_writer.h"

namespace covkit {
namespace covkit_json_test {

// The reader's records as the model sees them, or its error.
struct JsonRead {
  model::ProjectCov project;
  std::optional<Error> error;
};
JsonRead read_covkit_json(std::string_view text) {
  auto r = format::read_covkit_json(text);
  if (!r) return {{}, r.error()};
  return {model::to_model(std::move(*r)), std::nullopt};
}

using report::render_covkit_json;

model::LineCov line(uint32_t n, int64_t count, bool excluded = false) {
  model::LineCov l;
  l.number = n;
  l.count = count;
  l.excluded = excluded;
  return l;
}

model::FunctionCov function(std::string name, uint32_t start, int64_t count, bool excluded = false) {
  model::FunctionCov f;
  f.name = std::move(name);
  f.demangled = f.name + "()";
  f.start_line = start;
  f.start_column = 5;
  f.end_line = start + 2;
  f.end_column = 1;
  f.execution_count = count;
  f.blocks = 4;
  f.blocks_executed = count > 0 ? 3 : 0;
  f.excluded = excluded;
  return f;
}

// Every field set to something other than its default somewhere.
model::ProjectCov sample() {
  model::ProjectCov p;
  model::FileCov a;
  a.path = "src/a.cc";
  a.absolute_path = "/abs/src/a.cc";
  a.lines = {line(1, 2), line(2, 0), line(3, 7), line(4, 0, true), line(8388608, std::numeric_limits<int64_t>::max())};
  a.lines[1].unexecuted_block = true;
  a.lines[0].inferred = true;  // covkit sample --show-inferred
  a.lines[2].branches = {{.count = 7, .executed = true, .is_throw = false, .fallthrough = true, .unreachable = false},
                         {.count = 0, .executed = true, .is_throw = true, .fallthrough = false, .unreachable = true}};
  a.lines[2].instances = {{"_Z1tIiEvv", 4}, {"_Z1tIlEvv", 3}};
  a.lines[3].branches = {{.count = 0}};  // on the excluded line
  a.functions = {function("_Z1fv", 1, 2), function("_Z1gv", 4, 0, true)};
  model::FileCov b;
  b.path = "z/\xC3\xA9t\xC3\xA9 \"q\"\\\n.c";  // UTF-8, quote, backslash, newline
  b.absolute_path = "";
  b.lines = {line(10, 0)};
  p.files = {a, b};
  return p;
}

auto fields(const model::BranchCov& b) { return std::tie(b.count, b.executed, b.is_throw, b.fallthrough, b.unreachable); }
auto fields(const model::LineInstance& i) { return std::tie(i.function, i.count); }
auto fields(const model::FunctionCov& f) {
  return std::tie(f.name, f.demangled, f.start_line, f.start_column, f.end_line, f.end_column, f.execution_count,
                  f.blocks, f.blocks_executed, f.excluded);
}

template <typename T>
bool same_list(const T& x, const T& y) {  // vectors, and a line's instances
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (fields(x[i]) != fields(y[i])) return false;
  return true;
}

// Field by field, so a field the writer or reader forgets fails here.
void expect_same(const model::ProjectCov& x, const model::ProjectCov& y) {
  ASSERT_EQ(x.files.size(), y.files.size());
  for (size_t i = 0; i < x.files.size(); ++i) {
    const model::FileCov& f = x.files[i];
    const model::FileCov& g = y.files[i];
    EXPECT_EQ(f.path, g.path);
    EXPECT_EQ(f.absolute_path, g.absolute_path);
    ASSERT_EQ(f.lines.size(), g.lines.size()) << f.path;
    for (size_t k = 0; k < f.lines.size(); ++k) {
      const model::LineCov& l = f.lines[k];
      const model::LineCov& m = g.lines[k];
      EXPECT_EQ(std::tie(l.number, l.count, l.unexecuted_block, l.excluded, l.inferred),
                std::tie(m.number, m.count, m.unexecuted_block, m.excluded, m.inferred))
          << f.path << ":" << l.number;
      EXPECT_TRUE(same_list(l.branches, m.branches)) << f.path << ":" << l.number;
      EXPECT_TRUE(same_list(l.instances, m.instances)) << f.path << ":" << l.number;
    }
    EXPECT_TRUE(same_list(f.functions, g.functions)) << f.path;
  }
}

model::ProjectCov without_excluded(model::ProjectCov p) {
  for (model::FileCov& f : p.files) {
    std::erase_if(f.lines, [](const model::LineCov& l) { return l.excluded; });
    std::erase_if(f.functions, [](const model::FunctionCov& fn) { return fn.excluded; });
  }
  return p;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CovkitJsonWriter, ExactFragments) {
  const std::string j = render_covkit_json(sample());
  EXPECT_EQ(j.rfind(R"J({"format":"covkit-coverage","format_version":1,"files":[{"path":"src/a.cc",)J"
                    R"J("absolute_path":"/abs/src/a.cc","lines":[{"line":1,"count":2,"inferred":true},)J"
                    R"J({"line":2,"count":0,"unexecuted_block":true},)J"
                    R"J({"line":3,"count":7,"branches":[)J"
                    R"J({"count":7,"executed":true,"throw":false,"fallthrough":true,"unreachable":false},)J"
                    R"J({"count":0,"executed":true,"throw":true,"fallthrough":false,"unreachable":true}],)J"
                    R"J("instances":[{"function":"_Z1tIiEvv","count":4},{"function":"_Z1tIlEvv","count":3}]},)J"
                    R"J({"line":8388608,"count":9223372036854775807}],)J"
                    R"J("functions":[{"name":"_Z1fv","demangled":"_Z1fv()","start_line":1,"start_column":5,)J"
                    R"J("end_line":3,"end_column":1,"execution_count":2,"blocks":4,"blocks_executed":3}]},)J",
                    0),
            0u)
      << j;
  // Excluded line 4 and function g are not written.
  EXPECT_FALSE(contains(j, R"("line":4,)"));
  EXPECT_FALSE(contains(j, "_Z1gv"));
  // UTF-8 passes through; quote, backslash and newline are escaped.
  EXPECT_TRUE(contains(j, "\"path\":\"z/\xC3\xA9t\xC3\xA9 \\\"q\\\"\\\\\\n.c\"")) << j;
  EXPECT_EQ(j.back(), '\n');
  EXPECT_EQ(j.find('\n'), j.size() - 1);
}

TEST(CovkitJsonWriter, EmptyProject) {
  EXPECT_EQ(render_covkit_json({}), "{\"format\":\"covkit-coverage\",\"format_version\":1,\"files\":[]}\n");
  const JsonRead r = read_covkit_json(render_covkit_json({}));
  EXPECT_FALSE(r.error);
  EXPECT_TRUE(r.project.files.empty());
}

TEST(CovkitJsonRoundTrip, ReadBackEqualsTheModelWithoutExcluded) {
  const model::ProjectCov p = sample();
  const std::string text = render_covkit_json(p);
  const JsonRead r = read_covkit_json(text);
  ASSERT_FALSE(r.error) << r.error->message;
  expect_same(r.project, without_excluded(p));
  EXPECT_EQ(render_covkit_json(r.project), text);
  const model::Totals t = model::totals(r.project), u = model::totals(p);
  EXPECT_EQ(std::tie(t.lines, t.lines_covered, t.functions, t.functions_covered, t.branches, t.branches_covered),
            std::tie(u.lines, u.lines_covered, u.functions, u.functions_covered, u.branches, u.branches_covered));
}

TEST(CovkitJsonReader, DefaultsUnknownMembersAndNormalizing) {
  // Optional members may be left out, unknown ones are ignored, and lines,
  // functions and files are sorted with duplicates merged (lcov's rules).
  const JsonRead r = read_covkit_json(R"({
    "format": "covkit-coverage", "format_version": 1, "producer": "someone else",
    "files": [
      {"path": "b.c", "lines": [{"line": 5, "count": 1, "extra": [1, 2]}, {"line": 2, "count": 3}]},
      {"path": "a.c", "functions": [{"name": "f"}]},
      {"path": "b.c", "lines": [{"line": 5, "count": 10, "branches": [{"count": 2}]}]}
    ]})");
  ASSERT_FALSE(r.error) << r.error->message;
  ASSERT_EQ(r.project.files.size(), 2u);
  const model::FileCov& a = r.project.files[0];
  EXPECT_EQ(a.path, "a.c");
  EXPECT_EQ(a.absolute_path, "");
  EXPECT_TRUE(a.lines.empty());
  ASSERT_EQ(a.functions.size(), 1u);
  model::FunctionCov f;
  f.name = "f";
  EXPECT_EQ(fields(a.functions[0]), fields(f));
  const model::FileCov& b = r.project.files[1];
  ASSERT_EQ(b.lines.size(), 2u);
  EXPECT_EQ(b.lines[0].number, 2u);
  EXPECT_EQ(b.lines[0].count, 3);
  EXPECT_EQ(b.lines[1].number, 5u);
  EXPECT_EQ(b.lines[1].count, 11);
  ASSERT_EQ(b.lines[1].branches.size(), 1u);
  EXPECT_EQ(b.lines[1].branches[0].count, 2);
  EXPECT_FALSE(b.lines[1].branches[0].executed);
}

struct BadCase {
  std::string text;
  std::string message;  // expected part of the message
};

TEST(CovkitJsonReader, RejectsHostileInputWithOneClearLine) {
  const std::string head = R"({"format":"covkit-coverage","format_version":1,"files":)";
  const std::string file = head + R"([{"path":"a.c","lines":[)";
  const std::vector<BadCase> cases = {
      {"", "invalid JSON"},
      {"{\"format\": ", "invalid JSON"},
      {"{} trailing", "invalid JSON"},
      {"[]", "not a covkit coverage file: the document is an array, not an object"},
      {R"({"format_version":1,"files":[]})", "not a covkit coverage file: no \"format\": \"covkit-coverage\" member"},
      {R"({"format":"lcov\n","format_version":1,"files":[]})",
       "not a covkit coverage file: format is \"lcov\\n\", expected \"covkit-coverage\""},
      {R"({"format":"covkit-coverage","format_version":2,"files":[]})",
       "unsupported format_version 2 (this covkit reads version 1)"},
      {R"({"format":"covkit-coverage","format_version":"1","files":[]})",
       "format_version: must be an integer, not a string"},
      {R"({"format":"covkit-coverage","format_version":1})", "missing \"files\""},
      {head + "{}}", "files: must be an array, not an object"},
      {head + "[1]}", "files[0]: must be an object, not a number"},
      {head + R"([{"lines":[]}]})", "files[0]: missing \"path\""},
      {head + R"([{"path":""}]})", "files[0].path: is empty"},
      {head + R"([{"path":"a\u0000b"}]})", "files[0].path: contains a NUL character"},
      {head + R"([{"path":"a.c","lines":{}}]})", "files[0].lines: must be an array, not an object"},
      {file + R"({"line":-1,"count":0}]}]})", "files[0].lines[0].line: -1 is out of range (1..8388608)"},
      {file + R"({"line":0,"count":0}]}]})", "files[0].lines[0].line: 0 is out of range (1..8388608)"},
      {file + R"({"line":1,"count":0},{"line":8388609,"count":0}]}]})",
       "files[0].lines[1].line: 8388609 is out of range (1..8388608)"},
      {file + R"({"line":1.5,"count":0}]}]})", "files[0].lines[0].line: must be an integer, not a floating-point number"},
      {file + R"({"line":1e300,"count":0}]}]})", "must be an integer, not a floating-point number"},
      {file + R"({"line":1}]}]})", "files[0].lines[0]: missing \"count\""},
      {file + R"({"line":1,"count":"3"}]}]})", "files[0].lines[0].count: must be an integer, not a string"},
      {file + R"({"line":1,"count":-1}]}]})", "files[0].lines[0].count: -1 is out of range"},
      {file + R"({"line":1,"count":18446744073709551615}]}]})", "files[0].lines[0].count: 18446744073709551615 is out of range"},
      {file + R"({"line":1,"count":1,"unexecuted_block":1}]}]})",
       "files[0].lines[0].unexecuted_block: must be a boolean, not a number"},
      {file + R"({"line":1,"count":1,"branches":[{"count":1,"executed":"yes"}]}]}]})",
       "files[0].lines[0].branches[0].executed: must be a boolean, not a string"},
      {file + R"({"line":1,"count":1,"branches":[null]}]}]})", "files[0].lines[0].branches[0]: must be an object, not null"},
      {file + R"({"line":1,"count":1,"instances":[{"count":1}]}]}]})",
       "files[0].lines[0].instances[0]: missing \"function\""},
      {head + R"([{"path":"a.c","functions":[{"name":5}]}]})", "files[0].functions[0].name: must be a string, not a number"},
      {head + R"([{"path":"a.c","functions":[{"name":"f","start_line":-2}]}]})",
       "files[0].functions[0].start_line: -2 is out of range (0..8388608)"},
      {head + R"([{"path":"a.c","functions":[{"name":"f","blocks":4294967296}]}]})",
       "files[0].functions[0].blocks: 4294967296 is out of range (0..4294967295)"},
      {std::string(100000, '['), "nested deeper than 16 levels"},
  };
  for (const BadCase& c : cases) {
    const JsonRead r = read_covkit_json(c.text);
    ASSERT_TRUE(r.error) << c.text;
    EXPECT_TRUE(contains(r.error->message, c.message)) << "input: " << c.text << "\nmessage: " << r.error->message;
    EXPECT_EQ(r.error->message.find('\n'), std::string::npos) << r.error->message;
    EXPECT_TRUE(r.project.files.empty()) << c.text;
  }
}

TEST(CovkitJsonReader, OffsetsOfMalformedJson) {
  // The byte where the JSON goes wrong; 0 for well-formed JSON with wrong contents.
  EXPECT_EQ(read_covkit_json(R"({"format": x})").error->offset, 11u);
  EXPECT_EQ(read_covkit_json(std::string(20, '[')).error->offset, 16u);
  // A well-formed document with wrong contents names the member instead.
  EXPECT_FALSE(read_covkit_json(R"({"format":"covkit-coverage","format_version":3,"files":[]})").error->offset);
}

TEST(CovkitJsonReader, ControlBytesInMessagesArePrintable) {
  const JsonRead r = read_covkit_json("{\"format\": \"\x1b[31m\"}");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message.find('\x1b'), std::string::npos) << r.error->message;
}

}  // namespace
}  // namespace covkit
