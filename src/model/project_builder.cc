#include "model/project_builder.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "model/counts.h"
#include "model/coverage_merge.h"
#include "model/gcov_session.h"
#include "model/line_cycles.h"
#include "model/llvm_gcov.h"
#include "model/notes_reuse.h"
#include "util/thread_pool.h"

namespace covkit::model {

namespace {

struct ObjectResult {
  std::vector<FileCov> files;
  std::vector<Diagnostic> diagnostics;
  bool failed = false;
  bool damaged = false;
};

// Negative counts (lost updates between threads) and absurd ones are
// reported once per function. A negative count means nothing in a report:
// it is read as 0 per object, as lcov does when it reads such data (the one
// place where a report differs from `covkit gcov`, which prints what gcov
// prints).
int64_t not_negative(int64_t count) { return count < 0 ? 0 : count; }

void check_counters(const GcovSession& session, const std::string& data_name, std::vector<Diagnostic>& out) {
  for (const SessionFunction* f : session.functions()) {
    if (f->fn.never_ran) continue;  // every counter 0: so is every arc's count (~70% of zstd's functions)
    for (const Arc& a : f->fn.arcs) {
      if (a.count >= 0 && a.count < kSuspiciousCount) continue;
      Diagnostic d{DiagnosticKind::kSuspiciousCounter, data_name, session.function_name(*f)};
      d.line = f->fn.start_line;
      d.value = a.count;
      out.push_back(std::move(d));
      break;
    }
  }
}

// Appends the report's entry for `info`, line `number`, to `lines`.
LineCov& make_line(std::vector<LineCov>& lines, const LineInfo& info, uint32_t number) {
  LineCov& l = lines.emplace_back();
  l.number = number;
  l.count = not_negative(info.count);
  l.unexecuted_block = info.has_unexecuted_block;
  if (info.branches.empty()) return l;
  // geninfo's rule: the branches of a line that did not run are "not executed".
  const bool executed = !(info.has_unexecuted_block && info.count == 0);
  // Made in a buffer kept by the thread, then copied once into a list of
  // their number (a look at each arc to count them, then another to copy
  // them, was two walks of arcs spread over the function's graph).
  thread_local std::vector<BranchCov> made;
  made.clear();
  for (const ArcRef& a : info.branches) {
    const Arc& arc = *a.arc;
    if (arc.is_unconditional || arc.is_call_non_return) continue;
    BranchCov& b = made.emplace_back();
    b.count = not_negative(arc.count);
    b.executed = executed;
    b.is_throw = arc.is_throw;
    b.fallthrough = arc.fall_through;
    b.unreachable = a.fn->blocks[arc.src].exceptional;
  }
  if (!made.empty()) l.branches.assign(made.begin(), made.end());
  return l;
}

// Per line, the instances of the functions that are no group here: a
// template instantiated once in this translation unit is one function here,
// but one of several instantiations once the project's units are merged
// (prune_instances then keeps the lines of those only). Each function's
// lines are counted as gcov's add_line_counts and accumulate count a line,
// from that function's blocks alone.
std::vector<std::vector<LineInstance>> single_instances(const SourceCoverage& src, uint32_t src_idx) {
  std::vector<std::vector<LineInstance>> at(src.lines.size());
  for (const SessionFunction* f : src.functions) {
    if (f->is_group || f->fn.source != src_idx || f->fn.end_line < f->fn.start_line) continue;
    const Function& fn = f->fn;
    struct Own {
      bool exists = false;
      int64_t count = 0;
      std::vector<LineBlockRef> blocks;
    };
    std::vector<Own> own(size_t(fn.end_line - fn.start_line) + 1);
    for (size_t ix = 0; ix < fn.blocks.size(); ++ix)
      for (const BlockLocation& loc : fn.blocks[ix].locations) {
        if (loc.source != src_idx) continue;
        for (uint32_t ln : loc.lines) {
          if (ln < fn.start_line || ln > fn.end_line) continue;
          Own& o = own[ln - fn.start_line];
          o.exists = true;
          o.count = add_counts(o.count, fn.blocks[ix].count);
          // Entry and exit blocks carry no code of their own (as in the session).
          if (ix != 0 && ix + 1 != fn.blocks.size()) o.blocks.push_back(LineBlockRef{&fn, uint32_t(ix)});
        }
      }
    for (size_t i = 0; i < own.size(); ++i) {
      const size_t ln = fn.start_line + i;
      if (!own[i].exists || ln >= src.lines.size() || !src.lines[ln].exists) continue;
      const int64_t count = own[i].blocks.empty() ? own[i].count : line_count_from_blocks(own[i].blocks);
      at[ln].push_back({fn.name, not_negative(count)});
    }
  }
  return at;
}

// Lines of one source as gcov -j lists them: each group function's own lines
// (template instantiations, constructor variants), then the file's lines.
// With `instances`, the file's lines also name the one function whose code
// they are (see single_instances).
FileCov extract_source(GcovSession& session, uint32_t src_idx, const SourcePaths& paths, bool instances) {
  SourceCoverage& src = session.coverage(src_idx);
  FileCov fc;
  fc.path = paths.display;
  fc.absolute_path = paths.absolute;
  const size_t nlines = src.lines.size();
  std::vector<std::vector<LineInstance>> singles;
  if (instances) singles = single_instances(src, src_idx);
  // Only group functions have lines of their own; most sources (all of C's)
  // have none, and then no line needs a look-up of the functions there.
  const bool groups = std::any_of(src.functions.begin(), src.functions.end(),
                                  [](const SessionFunction* f) { return !f->lines.empty(); });
  // Room for every line made below: the file's, and the group functions'
  // own (counted too: reserved for the file's alone, the list doubled,
  // every line moved, when a group had lines, as in zstd's macro-made
  // functions).
  size_t count = 0;
  for (uint32_t line_num = 1; line_num < nlines; ++line_num) count += src.lines[line_num].exists;
  if (groups)
    for (const SessionFunction* f : src.functions)
      for (const LineInfo& l : f->lines) count += l.exists;
  fc.lines.reserve(count);
  for (uint32_t line_num = 1; line_num <= nlines; ++line_num) {
    for (SessionFunction* f : groups ? src.functions_at(line_num) : std::span<SessionFunction*>()) {
      for (size_t i = 0; i < f->lines.size(); ++i) {
        if (!f->lines[i].exists) continue;
        LineCov& l = make_line(fc.lines, f->lines[i], uint32_t(line_num + i));
        // Kept only to be shown (report drops them otherwise).
        if (instances) l.instances.push_back({f->fn.name, l.count});
      }
    }
    if (line_num < nlines && src.lines[line_num].exists) {
      LineCov& l = make_line(fc.lines, src.lines[line_num], line_num);
      if (instances) l.instances = LineInstances(std::move(singles[line_num]));
    }
  }
  fc.functions.reserve(src.functions.size());
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

// Session diagnostics worth a report user's attention. An absent data file
// is how a never-run object looks, and a notes file without functions is a
// translation unit without code: neither is news here; nor are the stamp
// and version mismatches gcov adds after notes it could not open or whose
// header it could not read (no stamp or version to match).
void keep_diagnostics(std::vector<Diagnostic>&& all, ObjectResult& r) {
  const bool no_notes = std::any_of(all.begin(), all.end(), [](const Diagnostic& d) {
    return d.kind == DiagnosticKind::kNotesUnreadable || d.kind == DiagnosticKind::kNotNotes ||
           d.kind == DiagnosticKind::kNotesUnsupported || d.kind == DiagnosticKind::kNotesTruncated;
  });
  for (Diagnostic& d : all) {
    if (d.damages_object()) r.damaged = true;
    if (d.kind == DiagnosticKind::kDataMissing || d.kind == DiagnosticKind::kNoFunctions) continue;
    if (no_notes && (d.kind == DiagnosticKind::kStampMismatch || d.kind == DiagnosticKind::kDataVersionMismatch))
      continue;
    r.diagnostics.push_back(std::move(d));
  }
}

// clang's notes do not say where the compiler ran, and clang records sources
// as named on its command line. As lcov does (geninfo's auto base): the
// notes' directory or the nearest one above it where every relative source
// exists, else the one where the fewest are missing.
std::string find_base_directory(std::string dir, const std::vector<std::string>& sources) {
  std::vector<const std::string*> relative;
  for (const std::string& s : sources)
    if (!s.empty() && s[0] != '/') relative.push_back(&s);
  if (relative.empty()) return dir;
  std::string best = dir;
  size_t best_missing = SIZE_MAX;
  for (;;) {
    size_t missing = 0;
    for (const std::string* s : relative)
      if (::access(format::absolute_path(*s, dir).c_str(), F_OK) != 0) ++missing;
    if (missing == 0) return dir;
    if (missing < best_missing) {
      best = dir;
      best_missing = missing;
    }
    const size_t slash = dir.rfind('/');
    if (slash == std::string::npos || dir == "/") break;
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
  return best;
}

// clang's notes, counted as llvm-cov gcov counts them (model/llvm_gcov.h):
// what lcov and gcovr report when they run llvm-cov. Branches are those it
// prints: the arcs of a block with several, on the block's last line.
ObjectResult build_clang_object(const format::ObjectFiles& files, const LoadedObject& loaded,
                                const SourcePathRules& paths, const PathFilter& filter) {
  ObjectResult r;
  const auto& notes = std::get<format::NotesFile>(loaded.notes);
  LlvmObject obj = llvm_object_from_notes(notes);
  const std::string& data_name = files.data.empty() ? files.notes : files.data;
  if (loaded.data_open_error) {
    r.diagnostics.push_back({DiagnosticKind::kDataUnreadable, data_name, {}, loaded.data_open_error->message});
    r.damaged = true;
  } else if (const auto* header = std::get_if<format::HeaderError>(&loaded.data)) {
    r.diagnostics.push_back({DiagnosticKind::kDataCorrupt, data_name, {}, header->message});
    r.damaged = true;
  } else if (const auto* data = std::get_if<format::DataFile>(&loaded.data)) {
    llvm_add_counts(obj, notes, *data);
    if (data->error) {
      r.diagnostics.push_back({DiagnosticKind::kDataCorrupt, data_name, {}, data->error->message, {}, data->error->offset});
      r.damaged = true;
    } else if (!obj.errors.empty()) {
      // llvm-cov's words, on one line: what it found wrong, then "Invalid .gcda File!".
      std::string why = obj.errors.substr(0, obj.errors.find('\n'));
      r.diagnostics.push_back({DiagnosticKind::kDataCorrupt, data_name, {}, why});
      r.damaged = true;
    }
  }
  std::vector<LlvmSource> sources = llvm_collect_functions(obj, false, nullptr);
  const std::string compile_dir = find_base_directory(files.notes.substr(0, files.notes.rfind('/')), obj.sources);
  for (LlvmSource& si : sources) {
    SourcePaths p = paths.resolve(si.filename, compile_dir);
    if (!filter.keep(p)) continue;
    llvm_collect_source(obj, si, si.filename, false);
    FileCov fc;
    fc.path = p.display;
    fc.absolute_path = p.absolute;
    for (uint32_t ln = 1; ln < si.lines.size(); ++ln) {
      const LlvmLine& line = si.lines[ln];
      if (!line.exists) continue;
      LineCov l;
      l.number = ln;
      l.count = saturated_count(line.count);
      for (const auto& [fi, bi] : line.blocks) {
        const LlvmFunction& f = obj.functions[fi];
        const LlvmBlock& b = f.blocks[bi];
        if (!b.branches_on(ln)) continue;
        const bool executed = f.leaving(b) != 0;  // else llvm-cov prints "never executed"
        for (uint32_t a : b.succ) {
          BranchCov bc;
          bc.count = saturated_count(f.arcs[a].count);
          bc.executed = executed;
          l.branches.push_back(bc);
        }
      }
      fc.lines.push_back(std::move(l));
    }
    for (const std::vector<uint32_t>& at : si.functions_at)
      for (uint32_t fi : at) {
        const LlvmFunction& f = obj.functions[fi];
        FunctionCov fn;
        fn.name = f.name;
        fn.demangled = llvm_function_name(f, true);
        fn.start_line = f.start_line;
        fn.execution_count = saturated_count(f.entry_count());
        if (f.blocks.size() >= 2) {
          fn.blocks = uint32_t(f.blocks.size() - 2);
          fn.blocks_executed = uint32_t(f.blocks_executed());
        }
        fc.functions.push_back(std::move(fn));
      }
    r.files.push_back(std::move(fc));
  }
  return r;
}

// Whether the only damage is a data file that stops at some offset (cut
// short, or damaged after its header): what was read before it is counted,
// as gcov counts it, so the object's counts are partial, not missing. A cut
// inside a function record also makes that function a profile mismatch.
bool only_cut_short(const std::vector<Diagnostic>& diagnostics) {
  auto stops = [](const Diagnostic& d) { return d.kind == DiagnosticKind::kDataCorrupt && d.offset.has_value(); };
  return std::any_of(diagnostics.begin(), diagnostics.end(), stops) &&
         std::all_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) {
           return !d.damages_object() || stops(d) || d.kind == DiagnosticKind::kProfileMismatch;
         });
}

// `graphs_back`: when given, receives the object's graphs once counted, as
// its notes gave them (GcovSession::take_notes_graphs).
ObjectResult build_object(const format::ObjectFiles& files, LoadedObject obj, const SourcePathRules& paths,
                          const PathFilter& filter, bool instances, SourceNameFacts& source_facts,
                          std::vector<SessionFunction>* graphs_back) {
  ObjectResult r;
  const bool notes_ok = std::holds_alternative<format::NotesFile>(obj.notes);
  if (notes_ok && std::get<format::NotesFile>(obj.notes).version.is_gcc48() &&
      !std::get<format::NotesFile>(obj.notes).error)
    return build_clang_object(files, obj, paths, filter);
  SessionOptions so;
  so.branches = true;
  so.json = true;  // group functions keep their own lines: one entry per instantiation
  so.source_facts = &source_facts;
  GcovSession session(so);
  session.add_object(std::move(obj), files.data.empty() ? files.notes : files.data);
  session.process_all_functions();
  session.add_line_counts(nullptr);
  keep_diagnostics(session.take_diagnostics(), r);
  if (!notes_ok) {
    r.failed = r.damaged = true;
    return r;
  }
  const std::string compile_dir = session.notes_cwd().value_or(files.notes.substr(0, files.notes.rfind('/')));
  check_counters(session, files.data.empty() ? files.notes : files.data, r.diagnostics);
  for (uint32_t s = 0; s < session.source_count(); ++s) {
    SourcePaths p = paths.resolve(session.sources().entries()[s].name, compile_dir);
    if (!filter.keep(p)) continue;
    session.accumulate(s);
    r.files.push_back(extract_source(session, s, p, instances));
  }
  if (graphs_back) *graphs_back = session.take_notes_graphs();
  return r;
}

}  // namespace

BuildResult build_project(const std::vector<format::ObjectFiles>& objects, const SourcePathRules& paths,
                          const PathFilter& filter, const BuildOptions& opts) {
  std::vector<ObjectResult> results(objects.size());
  std::atomic<size_t> done{0};
  SourceNameFacts source_facts;  // the objects' sources: mostly the same headers
  NotesReuse reuse(objects);      // and their notes: often the same code's
  util::parallel_for(reuse.runs().size() - 1, opts.threads, [&](size_t r) {
    for (size_t k = reuse.runs()[r]; k < reuse.runs()[r + 1]; ++k) {
      const size_t i = reuse.order()[k];
      std::vector<SessionFunction> graphs;
      LoadedObject obj = reuse.load(i);
      results[i] = build_object(objects[i], std::move(obj), paths, filter, opts.instances, source_facts,
                                reuse.wants_back(i) ? &graphs : nullptr);
      reuse.give_back(i, std::move(graphs));
      size_t d = ++done;
      if (opts.progress) opts.progress(d, objects.size());
    }
  });
  if (opts.phase) opts.phase("objects read, counted");
  BuildResult out;
  for (ObjectResult& r : results) {
    out.objects_failed += r.failed;
    out.objects_damaged += r.damaged;
    out.objects_partial += r.damaged && !r.failed && only_cut_short(r.diagnostics);
    for (auto& d : r.diagnostics) out.diagnostics.push_back(std::move(d));
    for (FileCov& f : r.files) out.project.files.push_back(std::move(f));
  }
  normalize(out.project, opts.threads);
  drop_files_without_lines(out.project);  // what lcov's tracefile would hold
  if (opts.phase) opts.phase("copies merged");
  return out;
}

}  // namespace covkit::model
