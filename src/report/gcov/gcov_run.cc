// gcov's whole run: read every argument's objects (in parallel), merge them
// into sessions as gcov does (one for all arguments in text mode, one per
// argument in JSON mode), and plan each session's output as actions that are
// then carried out in argument order.
#include "report/gcov/gcov_run.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/gcov_session.h"
#include "report/gcov/gcov_actions.h"
#include "report/gcov/gcov_file_names.h"
#include "report/gcov/gcov_json.h"
#include "report/gcov/gcov_messages.h"
#include "report/gcov/gcov_numbers.h"
#include "report/gcov/gcov_text.h"
#include "report/gcov/llvm_gcov_json.h"
#include "report/gcov/llvm_gcov_text.h"
#include "util/gzip.h"
#include "util/phase_timer.h"
#include "util/sanitizer.h"
#include "util/thread_pool.h"

namespace covkit::report {

namespace {

// Sources to render (the sum of their line tables: lines up to each one's
// last with code) from which the render is worth a second thread: jsoncpp's
// test runner (21,700 lines, most of them standard headers') took 1.2 ms
// more CPU on two threads (70 page faults more) for ~1 ms less wall time.
constexpr size_t kParallelRenderLines = 25000;

// Turns one gcov session into actions: what gcov's main loop and
// generate_results print and write for the arguments merged into it.
class SessionPlanner {
 public:
  SessionPlanner(const GcovOptions& o, unsigned threads, model::SessionCarry carry)
      : o_(o),
        threads_(threads),
        session_(model::SessionOptions{o.source_prefix, o.branches, o.json, o.demangle, threads, true}, std::move(carry)),
        names_{o.long_names, o.preserve_paths, o.hash_names} {}

  // Adds argument number `index` (0-based) of `total`.
  void add(model::LoadedObject&& obj, const std::string& arg, size_t index, size_t total) {
    if (o_.display_progress) actions_.out(fmt::format("Processing file {} out of {}\n", index + 1, total));
    session_.add_object(std::move(obj), arg);
    flush_messages();
  }
  // gcov's process_all_functions + generate_results for the session so far.
  void finish(const std::string& arg);

  ActionList& actions() { return actions_; }
  const format::GcovVersion& version() const { return session_.version(); }
  int64_t total_lines() const { return total_lines_; }
  int64_t total_executed() const { return total_executed_; }

 private:
  void flush_messages() {
    for (model::Diagnostic& d : session_.take_diagnostics()) actions_.diagnostic(std::move(d));
  }
  std::string percent(int top, int bottom) const { return format_gcov(top, bottom, 2, o_.human); }
  std::string executed_summary(int lines, int executed) const;
  std::string file_summary(const std::string& name, const model::CoverageSummary& c) const;
  std::string debug_dump(uint32_t src);

  const GcovOptions& o_;
  unsigned threads_;
  util::PhaseTimer timer_;
  model::GcovSession session_;
  NameOptions names_;
  ActionList actions_;
  int64_t total_lines_ = 0, total_executed_ = 0;
};

std::string SessionPlanner::executed_summary(int lines, int executed) const {
  if (!lines) return "No executable lines\n";
  return fmt::format("Lines executed:{} of {}\n", percent(executed, lines), lines);
}

std::string SessionPlanner::file_summary(const std::string& name, const model::CoverageSummary& c) const {
  std::string s = fmt::format("File '{}'\n", name) + executed_summary(c.lines, c.lines_executed);
  if (!o_.branches) return s;
  if (c.branches) {
    s += fmt::format("Branches executed:{} of {}\n", percent(c.branches_executed, c.branches), c.branches);
    s += fmt::format("Taken at least once:{} of {}\n", percent(c.branches_taken, c.branches), c.branches);
  } else {
    s += "No branches\n";
  }
  if (c.calls)
    s += fmt::format("Calls executed:{} of {}\n", percent(c.calls_executed, c.calls), c.calls);
  else
    s += "No calls\n";
  return s;
}

// -D: gcov's dump of a source's functions, blocks and lines.
std::string SessionPlanner::debug_dump(uint32_t src) {
  auto& cov = session_.coverage(src);
  std::string d = fmt::format("source_info: {}\n", session_.sources().entries()[src].name);
  for (const model::SessionFunction* f : cov.functions) {
    d += fmt::format("  function_info: {}\n", session_.function_name(*f));
    for (const model::Block& b : f->fn.blocks) d += fmt::format("    block_info id={}, count={} \n", b.id, b.count);
  }
  for (size_t ln = 1; ln < cov.lines.size(); ++ln) d += fmt::format("  line_info={}, count={}\n", ln, cov.lines[ln].count);
  return d + "\n";
}

void SessionPlanner::finish(const std::string& arg) {
  timer_.mark("merge objects");
  session_.process_all_functions();
  timer_.mark("solve graphs");
  flush_messages();
  std::vector<std::pair<std::string, model::CoverageSummary>> summaries;
  session_.add_line_counts(o_.function_summary ? &summaries : nullptr);
  timer_.mark("place blocks on lines");
  flush_messages();
  for (const auto& [name, cov] : summaries)
    actions_.out(fmt::format("Function '{}'\n", name) + executed_summary(cov.lines, cov.lines_executed) + "\n");

  // The input's name as gcov reports it: a known source's name, or canonical.
  int64_t known = session_.sources().lookup(arg);
  const std::string file_name =
      known >= 0 ? session_.sources().entries()[size_t(known)].display_name : model::canonicalize_name(arg);

  // Sources to report, in the order they were first seen.
  std::vector<uint32_t> todo;
  for (uint32_t s = 0; s < session_.source_count(); ++s) {
    const std::string& shown = session_.sources().entries()[s].display_name;
    if (o_.relative_only && !shown.empty() && shown[0] == '/') continue;  // absolute: a system header
    todo.push_back(s);
  }
  // A second thread pays for itself only on much text: starting it, and the
  // fresh pages of its own buffers (a source's text, the .gcov text's
  // piece) and of its allocator's heap, cost ~0.2 ms of CPU (tinyxml2.cpp's
  // three sources: ~100 page faults more, for a render of ~1 ms).
  size_t lines = 0;
  for (uint32_t s : todo) lines += session_.coverage(s).lines.size();
  const unsigned threads = lines >= kParallelRenderLines ? threads_ : 1;
  util::parallel_for(todo.size(), threads, [&](size_t i) { session_.accumulate(todo[i]); });
  timer_.mark("count lines");

  std::vector<std::string> rendered(todo.size()), messages(todo.size());
  const TextOptions topts{o_.all_blocks, o_.branches, o_.counts,        o_.human,
                                  o_.colors,     o_.hotness,  o_.verbose,       o_.unconditional,
                                  o_.files.size() > 1};
  const JsonOptions jopts{o_.branches};
  // The .gcov files' names first. A file that no other source of the run
  // writes or removes is written by the worker that rendered it, at once:
  // its text is freed then, instead of waiting in memory for the whole run
  // (the fresh pages of jsoncpp's 4 MB of .gcov text were a fifth of the
  // CPU). A name two sources share keeps gcov's order: written in turn below.
  const bool gcov_files = o_.gcov_file && !o_.json && !o_.use_stdout;
  std::vector<std::string> names(todo.size());
  std::vector<WriteOutcome> written(todo.size(), WriteOutcome::kNotYet);
  if (gcov_files) {
    std::unordered_map<std::string, int> uses;
    for (size_t i = 0; i < todo.size(); ++i)
      ++uses[names[i] = gcov_file_name(file_name, session_.sources().entries()[todo[i]].display_name, names_)];
    for (size_t i = 0; i < todo.size(); ++i)
      if (uses[names[i]] > 1) written[i] = WriteOutcome::kInTurn;
  }
  std::mutex write_mutex;
  util::parallel_for(todo.size(), threads, [&](size_t i) {
    const uint32_t s = todo[i];
    if (!o_.gcov_file) return;
    if (o_.json) {
      JsonWriter w;
      write_json_source(w, session_, s, jopts);
      rendered[i] = std::move(w.text());
    } else if (session_.coverage(s).coverage.lines) {
      // Rendered into this thread's buffer, kept from source to source:
      // a fresh string per source was a fresh page per 4 KiB of text (a
      // third of the page faults of a small object's run).
      thread_local std::string text;
      if (gcov_files && written[i] == WriteOutcome::kNotYet) {
        // Written as it is rendered, piece by piece: the thread's buffer
        // stays small (whole texts were fresh pages for every large
        // source). Created and committed one at a time: the files share
        // a directory, whose lock the kernel's create and rename take; two
        // threads contending for it spin in the kernel (~7% of jsoncpp's
        // CPU), one waiting here sleeps.
        std::optional<GcovFileWriter> file;
        {
          std::lock_guard<std::mutex> one_writer(write_mutex);
          file.emplace(names[i]);
        }
        const TextSink sink = [&file](std::string_view piece) { file->write(piece); };
        messages[i] = render_gcov_text(session_, s, topts, text, sink);
        std::string why;
        {
          std::lock_guard<std::mutex> one_writer(write_mutex);
          written[i] = file->commit(&why);
        }
        rendered[i] = std::move(why);  // the text is written: what is kept is why it was not
      } else {
        messages[i] = render_gcov_text(session_, s, topts, text);
        rendered[i] = text;  // written later, in turn, or to standard output
      }
    }
  });

  timer_.mark("render");
  JsonWriter doc;
  begin_json_document(doc, session_);
  for (size_t i = 0; i < todo.size(); ++i) {
    const uint32_t s = todo[i];
    const auto& entry = session_.sources().entries()[s];
    const auto& cov = session_.coverage(s).coverage;
    if (o_.debug) actions_.err(debug_dump(s));
    if (!o_.use_stdout) actions_.out(file_summary(entry.display_name, cov));
    total_lines_ += cov.lines;
    total_executed_ += cov.lines_executed;
    if (!o_.gcov_file) continue;
    actions_.err(std::move(messages[i]));
    if (o_.json) {
      doc.raw_value(rendered[i]);
      if (!o_.use_stdout) actions_.out("\n");
    } else if (o_.use_stdout) {
      if (cov.lines) actions_.out(std::move(rendered[i]));
    } else {
      if (!cov.lines)
        actions_.remove(std::move(names[i]));
      else if (written[i] == WriteOutcome::kInTurn)
        actions_.write_gcov(std::move(names[i]), std::move(rendered[i]));
      else
        actions_.written_gcov(std::move(names[i]), written[i], std::move(rendered[i]));
      actions_.out("\n");
    }
  }
  end_json_document(doc, session_, file_name);
  if (o_.gcov_file && o_.json) {
    if (o_.use_stdout)
      actions_.out(doc.text() + "\n");
    else
    {
      std::string name = json_file_name(file_name, names_);
      if (auto gz = util::gzip_compress(doc.text())) {
        actions_.write_json(std::move(name), std::move(*gz));
      } else {
        actions_.out(fmt::format("Creating '{}'\n", name));
        actions_.err(fmt::format("Error writing JSON output file {}\n", name));
        actions_.return_code(6);
      }
    }
  }
  timer_.mark("plan output");
}

// Whether every notes file read is clang's (GCC 4.8's layout): then covkit
// does what llvm-cov gcov, their reader, does. With none read, it does so
// when COVKIT_GCOV_VERSION is "clang".
bool clang_notes(const std::vector<model::LoadedObject>& loaded) {
  bool any = false;
  for (const model::LoadedObject& obj : loaded)
    if (const auto* notes = std::get_if<format::NotesFile>(&obj.notes)) {
      if (!notes->version.is_gcc48()) return false;
      any = true;
    }
  if (any) return true;
  const char* v = std::getenv("COVKIT_GCOV_VERSION");
  return v && std::string_view(v) == "clang";
}

class GcovRun {
 public:
  explicit GcovRun(const GcovOptions& o) : o_(o), threads_(o.threads ? o.threads : util::default_threads()) {}
  int run();

 private:
  void finish_run(int64_t lines, int64_t executed);
  int exit_status(const format::GcovVersion& v) const;
  model::SessionCarry initial_carry() const;
  // -k's and -q's colours are covkit's own: kept on a terminal, unlike a name's.
  util::Colours out_colours() const {
    return o_.colors || o_.hotness ? util::Colours::kKeep : util::Colours::kEscape;
  }

  const GcovOptions& o_;
  unsigned threads_;
  ExitState exit_;
  GcovMessages messages_;
  std::unique_ptr<SessionPlanner> text_plan_;  // kept until exit (see run_gcov)
};

int GcovRun::run() {
  const size_t n = o_.files.size();
  // Reading and parsing is independent per object: all of it in parallel.
  util::PhaseTimer timer;
  std::vector<model::LoadedObject> loaded(n);
  util::parallel_for(n, threads_, [&](size_t i) { loaded[i] = model::load_object(o_.files[i], o_.object_directory); });
  timer.mark("read objects");

  if (clang_notes(loaded)) {
    // clang's notes: llvm-cov gcov's output, each argument on its own (-i
    // its intermediate text; -j gcov's JSON of the same counts).
    std::vector<ActionList> plans(n);
    util::parallel_for(n, threads_, [&](size_t i) {
      if (o_.json_letter)
        plan_llvm_gcov_json(o_, o_.files[i], loaded[i], plans[i]);
      else
        plan_llvm_gcov(o_, o_.files[i], loaded[i], plans[i]);
    });
    for (ActionList& plan : plans) perform(plan.actions(), exit_, messages_, out_colours());
    std::fflush(stdout);
    return exit_.damage;
  }
  if (!o_.json) {
    // Text mode: one session sums all objects (shared headers add up).
    text_plan_ = std::make_unique<SessionPlanner>(o_, threads_, initial_carry());
    SessionPlanner& plan = *text_plan_;
    for (size_t i = 0; i < n; ++i) plan.add(std::move(loaded[i]), o_.files[i], i, n);
    plan.finish(o_.files.back());
    timer.mark("session");
    perform(plan.actions().actions(), exit_, messages_, out_colours());
    timer.mark("write output");
    finish_run(plan.total_lines(), plan.total_executed());
    return exit_status(plan.version());
  }

  // JSON mode: each argument is a session of its own; only a little state
  // carries over, which is computed first so the sessions can run in parallel.
  std::vector<model::SessionCarry> carry(n);
  carry[0] = initial_carry();
  for (size_t i = 0; i + 1 < n; ++i) carry[i + 1] = model::advance_carry(carry[i], loaded[i]);
  std::vector<std::unique_ptr<SessionPlanner>> plans(n);
  util::parallel_for(n, threads_, [&](size_t i) {
    plans[i] = std::make_unique<SessionPlanner>(o_, 1, std::move(carry[i]));
    plans[i]->add(std::move(loaded[i]), o_.files[i], i, n);
    plans[i]->finish(o_.files[i]);
  });
  int64_t lines = 0, executed = 0;
  format::GcovVersion last_version = plans.back()->version();
  for (auto& plan : plans) {
    perform(plan->actions().actions(), exit_, messages_, out_colours());
    lines += plan->total_lines();
    executed += plan->total_executed();
    plan.reset();
  }
  finish_run(lines, executed);
  return exit_status(last_version);
}

// Until a notes file says otherwise, covkit behaves as gcov 12, or as the
// gcov named by COVKIT_GCOV_VERSION (e.g. 11; "clang": llvm-cov gcov).
model::SessionCarry GcovRun::initial_carry() const {
  model::SessionCarry carry;
  if (const char* v = std::getenv("COVKIT_GCOV_VERSION")) {
    int major = std::atoi(v);
    if (major >= 8 && major <= 14) carry.version = format::GcovVersion::from_gcc(major, major == 11 ? 3 : major == 12 ? 2 : 1);
  }
  return carry;
}

// gcov 11 and older exit 0 whatever went wrong (error statuses came with
// GCC 12). For their files covkit does the same for what happens in real
// builds (missing files, stale data), but still fails on damaged files and
// lost output, where nothing trustworthy came out.
int GcovRun::exit_status(const format::GcovVersion& v) const { return v.major < 12 ? exit_.damage : exit_.gcov12; }

void GcovRun::finish_run(int64_t lines, int64_t executed) {
  if (!o_.use_stdout) {
    if (lines)
      std::fputs(fmt::format("Lines executed:{} of {}\n", format_gcov(executed, lines, 2, o_.human), lines)
                     .c_str(),
                 stdout);
    else
      std::fputs("No executable lines\n", stdout);
  }
  std::fflush(stdout);
}

}  // namespace

int run_gcov(const GcovOptions& options) {
  auto run = std::make_unique<GcovRun>(options);
  int rc = run->run();
#if !COVKIT_ASAN
  // Freeing millions of small graph objects costs more than computing some
  // of them, and `covkit gcov` exits right after; sanitizer builds free
  // everything so leak checking still sees the whole program.
  (void)run.release();
#endif
  return rc;
}

}  // namespace covkit::report
