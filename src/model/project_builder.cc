#include "model/project_builder.h"

#include <fmt/format.h>

#include <atomic>
#include <string_view>

#include "model/coverage_merge.h"
#include "model/gcov_session.h"
#include "util/printable.h"
#include "util/thread_pool.h"

namespace covkit::model {

namespace {

struct ObjectResult {
  std::vector<FileCov> files;
  std::vector<std::string> messages;
  bool failed = false;
};

// Negative counts (lost updates between threads) and absurd ones are
// reported once per function. A negative count means nothing in a report:
// it is read as 0 per object, as lcov does when it reads such data (the one
// place where a report differs from `covkit gcov`, which prints what gcov
// prints).
int64_t not_negative(int64_t count) { return count < 0 ? 0 : count; }

void check_counters(const GcovSession& session, const std::string& data_name, std::vector<std::string>& out) {
  for (const SessionFunction* f : session.functions()) {
    for (const Arc& a : f->fn.arcs) {
      if (a.count >= 0 && a.count < kSuspiciousCount) continue;
      out.push_back(fmt::format(
          "{}: function {} (line {}): suspicious counter value {} ({})", data_name,
          util::printable(session.function_name(*f)), f->fn.start_line, a.count,
          a.count < 0 ? "negative: racing threads lost updates; build with -fprofile-update=atomic"
                      : "too large to be real"));
      break;
    }
  }
}

LineCov make_line(const LineInfo& info, uint32_t number) {
  LineCov l;
  l.number = number;
  l.count = not_negative(info.count);
  l.unexecuted_block = info.has_unexecuted_block;
  // geninfo's rule: the branches of a line that did not run are "not executed".
  const bool executed = !(info.has_unexecuted_block && info.count == 0);
  for (const ArcRef& a : info.branches) {
    if (a.arc->is_unconditional || a.arc->is_call_non_return) continue;
    BranchCov b;
    b.count = not_negative(a.arc->count);
    b.executed = executed;
    b.is_throw = a.arc->is_throw;
    b.fallthrough = a.arc->fall_through;
    b.unreachable = a.fn->blocks[a.arc->src].exceptional;
    l.branches.push_back(b);
  }
  return l;
}

// Lines of one source as gcov -j lists them: each group function's own lines
// (template instantiations, constructor variants), then the file's lines.
FileCov extract_source(GcovSession& session, uint32_t src_idx, const SourcePaths& paths) {
  SourceCoverage& src = session.coverage(src_idx);
  FileCov fc;
  fc.path = paths.display;
  fc.absolute_path = paths.absolute;
  const size_t nlines = src.lines.size();
  for (uint32_t line_num = 1; line_num <= nlines; ++line_num) {
    if (auto* fns = src.functions_at(line_num)) {
      for (SessionFunction* f : *fns) {
        for (size_t i = 0; i < f->lines.size(); ++i) {
          if (!f->lines[i].exists) continue;
          LineCov l = make_line(f->lines[i], uint32_t(line_num + i));
          l.instances.push_back({f->fn.name, l.count});
          fc.lines.push_back(std::move(l));
        }
      }
    }
    if (line_num < nlines && src.lines[line_num].exists)
      fc.lines.push_back(make_line(src.lines[line_num], line_num));
  }
  for (SessionFunction* f : src.functions) {
    FunctionCov fn;
    fn.name = f->fn.name;
    fn.demangled = GcovSession::demangled_name(*f);
    fn.start_line = f->fn.start_line;
    fn.start_column = f->fn.start_column;
    fn.end_line = f->fn.end_line;
    fn.end_column = f->fn.end_column;
    fn.execution_count = f->fn.blocks.empty() ? 0 : not_negative(f->fn.blocks[kEntryBlock].count);
    fn.blocks = f->fn.real_block_count();
    fn.blocks_executed = f->blocks_executed;
    fc.functions.push_back(std::move(fn));
  }
  return fc;
}

// Session messages worth a report user's attention. An absent data file is
// how a never-run object looks; gcov's note about it is not news here.
void keep_messages(std::string_view text, std::vector<std::string>& out) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (line.empty() || line.find(":cannot open data file, assuming not executed") != std::string_view::npos ||
        line.ends_with(":no functions found") || line == "(the message is displayed only once per source file)")
      continue;
    out.emplace_back(line);
  }
}

ObjectResult build_object(const format::ObjectFiles& files, const SourcePathRules& paths, const PathFilter& filter) {
  ObjectResult r;
  LoadedObject obj = load_object_files(files.notes, files.data);
  const bool notes_ok = std::holds_alternative<format::NotesFile>(obj.notes);
  SessionOptions so;
  so.branches = true;
  so.json = true;  // group functions keep their own lines: one entry per instantiation
  GcovSession session(so);
  session.add_object(std::move(obj), files.data.empty() ? files.notes : files.data);
  session.process_all_functions();
  session.add_line_counts(nullptr);
  keep_messages(session.take_messages(), r.messages);
  if (!notes_ok) {
    r.failed = true;
    return r;
  }
  const std::string compile_dir = session.notes_cwd().value_or(files.notes.substr(0, files.notes.rfind('/')));
  check_counters(session, files.data.empty() ? files.notes : files.data, r.messages);
  for (uint32_t s = 0; s < session.source_count(); ++s) {
    SourcePaths p = paths.resolve(session.sources().entries()[s].name, compile_dir);
    if (!filter.keep(p)) continue;
    session.accumulate(s);
    r.files.push_back(extract_source(session, s, p));
  }
  return r;
}

}  // namespace

BuildResult build_project(const std::vector<format::ObjectFiles>& objects, const SourcePathRules& paths,
                          const PathFilter& filter, const BuildOptions& opts) {
  std::vector<ObjectResult> results(objects.size());
  std::atomic<size_t> done{0};
  util::parallel_for(objects.size(), opts.threads, [&](size_t i) {
    results[i] = build_object(objects[i], paths, filter);
    size_t d = ++done;
    if (opts.progress) opts.progress(d, objects.size());
  });
  BuildResult out;
  for (ObjectResult& r : results) {
    for (auto& m : r.messages) out.messages.push_back(std::move(m));
    out.objects_failed += r.failed;
    for (FileCov& f : r.files) out.project.files.push_back(std::move(f));
  }
  normalize(out.project);
  return out;
}

}  // namespace covkit::model
