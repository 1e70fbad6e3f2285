#include "report/lcov_writer.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <iterator>
#include <string_view>

#include "report/line_builder.h"

namespace covkit::report {

namespace {

// lcov keys records by the SF path and expects absolute names.
const std::string& record_path(const model::FileCov& f) {
  return f.absolute_path.empty() ? f.path : f.absolute_path;
}

// The format is line based with no escaping: a line break inside a name
// (from a hostile notes or JSON file) would forge records, so it becomes '?'.
std::string one_line(std::string_view s) {
  std::string r(s);
  for (char& c : r)
    if (c == '\n' || c == '\r' || c == '\0') c = '?';
  return r;
}

// FN:start,name - or, for a (hostile) name that starts with "digits,",
// lcov 2's FN:start,end,name, which readers (ours among them) would
// otherwise take for one: "5,x" reads back as itself, and "3333333330,x"
// not as an end line too big for a line.
template <typename Out>
void write_fn(Out it, const model::FunctionCov& fn) {
  const std::string name = one_line(fn.name);
  const size_t digits = name.find_first_not_of("0123456789");
  const bool looks_like_end = digits > 0 && digits != std::string::npos && name[digits] == ',' &&
                              digits + 1 < name.size();
  if (looks_like_end)
    fmt::format_to(it, FMT_COMPILE("FN:{},{},{}\n"), fn.start_line, fn.end_line, name);
  else
    fmt::format_to(it, FMT_COMPILE("FN:{},{}\n"), fn.start_line, name);
}

void write_record(std::string& out, const model::FileCov& f, const LcovOptions& o) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, FMT_COMPILE("TN:{}\nSF:{}\n"), one_line(o.test_name), one_line(record_path(f)));
  int64_t found = 0, hit = 0;
  for (const model::FunctionCov& fn : f.functions)
    if (!fn.excluded) write_fn(it, fn);
  for (const model::FunctionCov& fn : f.functions) {
    if (fn.excluded) continue;
    fmt::format_to(it, FMT_COMPILE("FNDA:{},{}\n"), fn.execution_count, one_line(fn.name));
    ++found;
    hit += fn.covered();
  }
  fmt::format_to(it, FMT_COMPILE("FNF:{}\nFNH:{}\n"), found, hit);

  found = hit = 0;
  for (const model::LineCov& l : f.lines) {
    if (l.excluded) continue;
    for (size_t i = 0; i < l.branches.size(); ++i) {
      const model::BranchCov& b = l.branches[i];
      // A branch on a line that never ran is "-" (not executed), as geninfo
      // writes it, even with a count: a forked child's counters start from
      // zero at the fork (libgcov), so the line of a daemon's fork() has no
      // count while the arc the child took out of it has one; lcov 1.16
      // writes "-" and does not count it in BRH (Debian's memcached,
      // daemonize(); tests/corpus/fork_daemonize). BRH counts what is written.
      LineBuilder line(out);
      line.add("BRDA:").add(l.number).add(',').add(b.block).add(',').add(int64_t(i)).add(',');
      if (b.executed)
        line.add(b.count);  // not negative in the model; a tracefile may say otherwise
      else
        line.add('-');
      line.add('\n').flush();
      ++found;
      hit += b.executed && b.count > 0;
    }
  }
  if (found > 0) fmt::format_to(it, FMT_COMPILE("BRF:{}\nBRH:{}\n"), found, hit);

  found = hit = 0;
  for (const model::LineCov& l : f.lines) {
    if (l.excluded || l.no_count) continue;
    LineBuilder(out).add("DA:").add(l.number).add(',').add(l.count).add('\n').flush();
    ++found;
    hit += l.covered();
  }
  fmt::format_to(it, FMT_COMPILE("LF:{}\nLH:{}\nend_of_record\n"), found, hit);
}

}  // namespace

std::string render_lcov(const model::ProjectCov& project, const LcovOptions& opts) {
  std::string out;
  // Its size, about, so the text is not copied at every doubling.
  size_t estimate = 0;
  for (const model::FileCov& f : project.files) {
    estimate += 64 + 2 * (f.absolute_path.size() + f.path.size());
    for (const model::FunctionCov& fn : f.functions) estimate += 32 + 2 * fn.name.size();
    for (const model::LineCov& l : f.lines) estimate += 16 + 24 * l.branches.size();
  }
  out.reserve(estimate);
  for (const model::FileCov& f : project.files) write_record(out, f, opts);
  return out;
}

void stream_lcov(const model::ProjectCov& project, const LcovOptions& opts, const TextPieces& emit) {
  std::string piece;
  piece.reserve(2 * kTextPiece);
  for (const model::FileCov& f : project.files) {
    write_record(piece, f, opts);
    if (piece.size() >= kTextPiece) {
      emit(piece);
      piece.clear();
    }
  }
  if (!piece.empty()) emit(piece);
}

}  // namespace covkit::report
