#include "report/cobertura_writer.h"
#include "report/line_builder.h"
#include "report/xml_escape.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <vector>

namespace covkit::report {

namespace {

using Out = std::back_insert_iterator<std::string>;

// Lines and branches of [first, last] only: a method's own rates.
model::Totals range_totals(const model::FileCov& f, uint32_t first, uint32_t last) {
  auto lo = std::lower_bound(f.lines.begin(), f.lines.end(), first,
                             [](const model::LineCov& l, uint32_t n) { return l.number < n; });
  auto hi = std::upper_bound(lo, f.lines.end(), last,
                             [](uint32_t n, const model::LineCov& l) { return n < l.number; });
  // Counted in place: a copy of the lines (branch lists and all) per method
  // was most of this writer's time.
  return model::totals(std::span<const model::LineCov>(lo, hi));
}

// A line's condition coverage in whole percent, as gcovr 5.2 writes it:
// the ratio rounded to one decimal first (Python's round(), on the double
// covered / total * 100), then truncated, and never 100 unless every branch
// was taken: 25 of 228 (10.96%) is 11%, not 10%. Only a tenths digit of 9
// can round up into the next whole percent, so the others skip the double.
int64_t condition_percent(int64_t covered, int64_t total) {
  if (covered == total) return 100;
  const int64_t truncated = covered * 100 / total;
  if ((covered * 1000 / total) % 10 != 9) return truncated;
  char buf[32];
  const double pct = static_cast<double>(covered) / static_cast<double>(total) * 100.0;
  const auto end = fmt::format_to_n(buf, sizeof buf - 1, FMT_COMPILE("{:.1f}"), pct).out;
  *end = '\0';
  return std::min<int64_t>(99, std::strtoll(buf, nullptr, 10));
}

// The indent a literal, so that its copies are moves of a known size (a
// memcpy call each otherwise, up to five a line).
template <size_t N>
void write_line(std::string& text, const model::LineCov& l, const char (&indent_text)[N]) {
  const std::string_view indent(indent_text, N - 1);
  LineBuilder line(text);
  if (l.branches.empty()) {  // most lines
    line.add(indent).add("<line number=\"").add(l.number).add("\" hits=\"").add(l.count).add("\" branch=\"false\"/>\n");
    line.flush();
    return;
  }
  const int64_t total = static_cast<int64_t>(l.branches.size());
  const int64_t covered = std::count_if(l.branches.begin(), l.branches.end(),
                                        [](const model::BranchCov& b) { return b.count > 0; });
  const int64_t pct = condition_percent(covered, total);
  line.add(indent).add("<line number=\"").add(l.number).add("\" hits=\"").add(l.count);
  line.add("\" branch=\"true\" condition-coverage=\"").add(pct).add("% (").add(covered).add('/').add(total).add(")\">\n");
  line.add(indent).add("  <conditions>\n");
  line.add(indent).add("    <condition number=\"0\" type=\"jump\" coverage=\"").add(pct).add("%\"/>\n");
  line.add(indent).add("  </conditions>\n");
  line.add(indent).add("</line>\n");
  line.flush();
}

void write_method(std::string& text, const model::FileCov& f, const model::FunctionCov& fn) {
  Out out(text);
  const uint32_t last = std::max(fn.start_line, fn.end_line);
  const model::Totals t = range_totals(f, fn.start_line, last);
  const std::string& name = fn.demangled.empty() ? fn.name : fn.demangled;
  fmt::format_to(out,
                 FMT_COMPILE("            <method name=\"{}\" signature=\"\" line-rate=\"{}\" branch-rate=\"{}\" "
                             "complexity=\"0\">\n"
                             "              <lines>\n"),
                 xml_escape(name), cobertura_rate(t.lines_covered, t.lines),
                 cobertura_rate(t.branches_covered, t.branches));
  // The method lists its first line only; the class lists every line.
  const model::LineCov* first = f.find_line(fn.start_line);
  if (first && !first->excluded)
    write_line(text, *first, "                ");
  else
    fmt::format_to(out, FMT_COMPILE("                <line number=\"{}\" hits=\"{}\" branch=\"false\"/>\n"),
                   fn.start_line, fn.execution_count);
  fmt::format_to(out, FMT_COMPILE("              </lines>\n"
                                  "            </method>\n"));
}

void write_class(std::string& text, const model::FileCov& f, std::string_view base_name, const model::Totals& t) {
  Out out(text);
  // gcovr's class name: the file name with '.' -> '_' (Jenkins shows it).
  std::string class_name(base_name);
  std::replace(class_name.begin(), class_name.end(), '.', '_');
  fmt::format_to(
      out,
      FMT_COMPILE("        <class name=\"{}\" filename=\"{}\" line-rate=\"{}\" branch-rate=\"{}\" complexity=\"0\">\n"
                  "          <methods>\n"),
      xml_escape(class_name), xml_escape(f.path), cobertura_rate(t.lines_covered, t.lines),
      cobertura_rate(t.branches_covered, t.branches));
  for (const model::FunctionCov& fn : f.functions)
    if (!fn.excluded) write_method(text, f, fn);
  fmt::format_to(out, FMT_COMPILE("          </methods>\n"
                                  "          <lines>\n"));
  for (const model::LineCov& l : f.lines)
    if (!l.excluded && !l.no_count) write_line(text, l, "            ");  // a <line> needs hits
  fmt::format_to(out, FMT_COMPILE("          </lines>\n"
                                  "        </class>\n"));
}

struct Package {
  std::vector<const model::FileCov*> files;
  std::vector<model::Totals> file_totals;
  model::Totals totals;
};

}  // namespace


std::string cobertura_rate(int64_t covered, int64_t total) {
  if (total <= 0) return "1.0";
  std::string s = fmt::format("{:.4f}", double(covered) / double(total));
  if (covered < total && s == "1.0000") s = "0.9999";
  if (covered > 0 && s == "0.0000") s = "0.0001";
  while (s.size() > 3 && s.back() == '0') s.pop_back();  // keep one decimal: "1.0"
  return s;
}

void stream_cobertura(const model::ProjectCov& project, const CoberturaOptions& options, const TextPieces& emit) {
  // One package per directory, named like gcovr ("src/util" -> "src.util",
  // top-level files -> ""), in directory order; files keep path order.
  std::map<std::string, Package> packages;
  model::Totals all;
  for (const model::FileCov& f : project.files) {
    const size_t slash = f.path.rfind('/');
    std::string dir = slash == std::string::npos ? std::string() : f.path.substr(0, slash);
    Package& p = packages[std::move(dir)];
    const model::Totals t = model::totals(f);
    p.files.push_back(&f);
    p.file_totals.push_back(t);
    p.totals += t;
    all += t;
  }

  std::string text;
  text.reserve(2 * kTextPiece);
  Out out(text);
  fmt::format_to(
      out,
      FMT_COMPILE("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<!DOCTYPE coverage SYSTEM 'http://cobertura.sourceforge.net/xml/coverage-04.dtd'>\n"
                  "<coverage line-rate=\"{}\" branch-rate=\"{}\" lines-covered=\"{}\" lines-valid=\"{}\" "
                  "branches-covered=\"{}\" branches-valid=\"{}\" complexity=\"0\" timestamp=\"{}\" version=\"{}\">\n"
                  "  <sources>\n"),
      cobertura_rate(all.lines_covered, all.lines), cobertura_rate(all.branches_covered, all.branches),
      all.lines_covered, all.lines, all.branches_covered, all.branches, options.timestamp, xml_escape(options.version));
  if (!options.source_root.empty())
    fmt::format_to(out, FMT_COMPILE("    <source>{}</source>\n"), xml_escape(options.source_root));
  if (!options.source_prefix.empty() && options.source_prefix != options.source_root)
    fmt::format_to(out, FMT_COMPILE("    <source>{}</source>\n"), xml_escape(options.source_prefix));
  fmt::format_to(out, FMT_COMPILE("  </sources>\n"
                                  "  <packages>\n"));
  for (const auto& [dir, p] : packages) {
    std::string name = dir;
    std::replace(name.begin(), name.end(), '/', '.');
    fmt::format_to(out,
                   FMT_COMPILE("    <package name=\"{}\" line-rate=\"{}\" branch-rate=\"{}\" complexity=\"0\">\n"
                               "      <classes>\n"),
                   xml_escape(name), cobertura_rate(p.totals.lines_covered, p.totals.lines),
                   cobertura_rate(p.totals.branches_covered, p.totals.branches));
    for (size_t i = 0; i < p.files.size(); ++i) {
      const std::string& path = p.files[i]->path;
      // npos + 1 == 0: a path without '/' is its own base name.
      write_class(text, *p.files[i], std::string_view(path).substr(path.rfind('/') + 1), p.file_totals[i]);
      if (text.size() >= kTextPiece) {
        emit(text);
        text.clear();
      }
    }
    fmt::format_to(out, FMT_COMPILE("      </classes>\n"
                                    "    </package>\n"));
  }
  fmt::format_to(out, FMT_COMPILE("  </packages>\n"
                                  "</coverage>\n"));
  emit(text);
}

std::string render_cobertura(const model::ProjectCov& project, const CoberturaOptions& options) {
  std::string text;
  stream_cobertura(project, options, [&](std::string_view piece) { text += piece; });
  return text;
}

}  // namespace covkit::report
