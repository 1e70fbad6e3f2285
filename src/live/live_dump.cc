#include "live/live_dump.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <ctime>
#include <list>
#include <set>

#include "live/access_check.h"
#include "live/dump_journal.h"
#include "live/dump_recovery.h"
#include "live/journaled_write.h"
#include "live/object_sources.h"
#include "live/proc_files.h"
#include "live/profraw_dump.h"
#include "live/process_owner.h"
#include "live/process_tree.h"
#include "live/test_pause.h"
#include "model/data_merge.h"
#include "util/phase_timer.h"
#include "util/plural.h"

namespace covkit::live {

namespace {

Error about(pid_t pid, const Error& e) { return about_process(pid, e); }
// The same, keeping why (a watch ends when the process exited).
SnapshotError about(pid_t pid, const SnapshotError& e) { return {about(pid, static_cast<const Error&>(e)), e.why}; }

ProcessSummary summary_of(const ProcessCapture& c) {
  const Snapshot& s = c.snapshot();
  ProcessSummary p;
  p.pid = c.pid();
  p.modules = c.modules().size();
  for (const ModuleSnapshot& m : c.modules()) {
    p.objects += m.objects.size();
    for (const ObjectSnapshot& o : m.objects) p.functions += o.record.functions.size();
    p.module_notes.push_back(fmt::format("{}: {}, root found by {}, layout of GCC {}", m.path,
                                         util::count_of(m.objects.size(), "object"), root_source_name(m.source),
                                         m.layout.gcc_major));
  }
  p.counters = s.counters_read;
  p.threads = s.threads;
  p.stopped = s.stopped;
  p.pause = s.pause;
  p.left_asleep = s.left_asleep;
  return p;
}

// One process of a tree, from its discovery to its resume.
struct Member {
  Member(pid_t p, uint64_t start, TargetPlace pl, ProcessCapture c)
      : pid(p), start_time(start), place(std::move(pl)), capture(std::move(c)) {}
  pid_t pid;
  uint64_t start_time;
  TargetPlace place;  // where its own files are (dumps only)
  ProcessCapture capture;
};

struct TreeOptions {
  pid_t pid = 0;
  bool children = false;
  bool skip_unstoppable = false;
  bool gentle = false;  // asked for: each try sets snapshot.gentle
  bool need_place = false;
  SnapshotOptions snapshot;
};

struct Tree {
  std::list<Member> members;
  std::vector<std::string> passed_over;  // descendants without coverage, or that ended
  std::vector<std::string> left_out;     // could not be stopped (skip_unstoppable)
  std::set<pid_t> seen;
  bool root_uncovered = false;  // the root (a wrapper, a supervisor) has no coverage
};

// Whether a failure says the kernel will not let covkit stop the process
// (another user's, traced by a debugger or a second covkit, undumpable).
bool unstoppable(const SnapshotError& e) { return e.why == SnapshotFailure::kFailed && is_refusal(e); }

// What a failure of `pid` does to the command: nothing (the process is
// passed over or left out, noted in `tree`), or the error that ends it
// before anything is touched.
std::optional<SnapshotError> weigh(Tree& tree, const TreeOptions& o, pid_t pid, const SnapshotError& e) {
  const bool root = pid == o.pid;
  if (e.why == SnapshotFailure::kNoCoverage && root && o.children) {
    tree.root_uncovered = true;  // its descendants may have some
    return std::nullopt;
  }
  if (e.why != SnapshotFailure::kFailed && !root) {
    tree.passed_over.push_back(fmt::format("process {}: {}", pid, e.message));
    return std::nullopt;
  }
  if (unstoppable(e) && o.skip_unstoppable) {
    tree.left_out.push_back(fmt::format("{} (left out: --skip-unstoppable)", about(pid, e).message));
    return std::nullopt;
  }
  SnapshotError out = about(pid, e);
  if (unstoppable(e) && o.children)
    out.message += "; nothing was read or reset in any process of the tree (--skip-unstoppable leaves it out)";
  return out;
}

// Finds the records of `pid` (while it runs) and, with `stop`, stops it.
std::optional<SnapshotError> add_member(Tree& tree, const TreeOptions& o, pid_t pid, bool stop) {
  tree.seen.insert(pid);
  // Its user's data: the files it names (its .gcno files, for `reset
  // SOURCE`, and a report's sources) are read with that user's rights.
  note_process_data(pid);
  auto capture = ProcessCapture::prepare(pid, o.snapshot);
  if (!capture) return weigh(tree, o, pid, capture.error());
  TargetPlace place;
  if (o.need_place) {
    auto p = target_place(pid);
    // Read inside an exec, /proc/PID/status can be gone for a moment, as if
    // the process had ended.
    if (!p) return weigh(tree, o, pid, capture->checked(SnapshotError(p.error(), SnapshotFailure::kExited)));
    place = std::move(*p);
  }
  if (stop)
    if (auto r = capture->stop(); !r) return weigh(tree, o, pid, r.error());
  tree.members.emplace_back(pid, process_start_time(pid).value_or(0), std::move(place), std::move(*capture));
  return std::nullopt;
}

// Every process of the tree, its records found while it runs.
Expected<Tree, SnapshotError> prepare_tree(const TreeOptions& o) {
  Tree tree;
  std::vector<pid_t> pids{o.pid};
  if (o.children)
    for (pid_t c : descendants(o.pid)) pids.push_back(c);
  for (pid_t pid : pids)
    if (auto e = add_member(tree, o, pid, false)) return *e;
  return tree;
}

std::string tree_empty_message(const Tree& tree, const TreeOptions& o) {
  return fmt::format("process {}: no coverage data in it or any of its {} descendants (none was built with "
                     "--coverage, or their libgcov records are not registered yet)",
                     o.pid, tree.seen.size() - 1);
}

// Stops every process, then reads every one: the tree's one instant. A
// process forked while its parent was not stopped yet is found by listing
// the tree again once all are (a stopped process forks no more).
Expected<void, SnapshotError> stop_and_read(Tree& tree, const TreeOptions& o) {
  if (o.snapshot.stop) {
    for (auto it = tree.members.begin(); it != tree.members.end();) {
      if (auto r = it->capture.stop(); !r) {
        if (auto e = weigh(tree, o, it->pid, r.error())) return *e;
        it = tree.members.erase(it);
        continue;
      }
      ++it;
    }
    for (int pass = 0; o.children && pass < 64; ++pass) {
      std::vector<pid_t> fresh;
      for (pid_t c : descendants(o.pid))
        if (!tree.seen.count(c)) fresh.push_back(c);
      if (fresh.empty()) break;
      for (pid_t pid : fresh)
        if (auto e = add_member(tree, o, pid, true)) return *e;
    }
  }
  for (auto it = tree.members.begin(); it != tree.members.end();) {
    if (auto r = it->capture.read(); !r) {
      if (auto e = weigh(tree, o, it->pid, r.error())) return *e;
      it = tree.members.erase(it);
      continue;
    }
    ++it;
  }
  if (tree.members.empty()) {
    if (tree.root_uncovered) return SnapshotError(Error(tree_empty_message(tree, o)), SnapshotFailure::kNoCoverage);
    return SnapshotError(Error(fmt::format("process {}: every process of the tree was left out", o.pid)));
  }
  return {};
}

void note_root(std::vector<std::string>& warnings, const Tree& tree, const TreeOptions& o) {
  if (tree.root_uncovered)
    warnings.push_back(fmt::format("process {}: no coverage data; only its descendants are read", o.pid));
}

// How often a gentle stop is tried before every thread is stopped: a thread
// left asleep that wakes meanwhile (an event came) makes the read no
// instant, so it is read again; the last try stops everything.
constexpr int kGentleTries = 3;

bool slept_through(const Tree& tree) {
  return std::all_of(tree.members.begin(), tree.members.end(),
                     [](const Member& m) { return m.capture.slept_through(); });
}

void resume_all(Tree& tree) {
  for (Member& m : tree.members) m.capture.resume();
}

// Stops and reads the tree as one instant: with the gentle stop, again
// until the threads left asleep slept through it (`attempt` counts the tries).
Expected<void, SnapshotError> capture_instant(Tree& tree, TreeOptions& o, int& attempt) {
  for (;; ++attempt) {
    const bool gentle = o.gentle && o.snapshot.stop && attempt < kGentleTries;
    o.snapshot.gentle = gentle;
    for (Member& m : tree.members) m.capture.set_gentle(gentle);
    if (auto r = stop_and_read(tree, o); !r) return r;
    test_step_pause();
    if (!gentle || slept_through(tree)) return {};
    resume_all(tree);
  }
}

// After the resets of a gentle stop: a thread left asleep that woke during
// them (between the last check and the end of the one write that resets
// its process, a few microseconds) may have counted into a counter about
// to be zeroed. Said, never hidden.
void check_woken(const Tree& tree, const TreeOptions& o, std::vector<std::string>& warnings) {
  if (!o.snapshot.gentle) return;
  for (const Member& m : tree.members)
    if (!m.capture.slept_through())
      warnings.push_back(fmt::format(
          "process {}: a thread left asleep (--gentle) woke during the reset: what it counted in those "
          "microseconds may be lost (the default stop makes resets exact)",
          m.pid));
}

ResetMarker marker_for(const Tree& tree) {
  for (;;) {
    ResetMarker m = ResetMarker::fresh(0);
    bool clash = false;
    for (const Member& member : tree.members) {
      uint32_t found = member.capture.marker_found();
      clash = clash || found == m.begun || found == m.done;
    }
    if (!clash) return m;
  }
}

// The reset of every process, each in its two writes (snapshot.h), the
// journal told which were written. A process that dies while stopped is
// not reset (its counts die with it): the others are.
std::vector<pid_t> reset_members(Tree& tree, const ResetMarker& marker, Journal* journal,
                                 std::vector<std::string>& warnings) {
  std::vector<pid_t> done;
  for (Member& m : tree.members) {
    if (&m != &tree.members.front()) test_step_pause();
    auto r = m.capture.begin_reset(marker);
    if (r) r = m.capture.finish_reset(marker);
    if (!r) {
      warnings.push_back(fmt::format("{} (not reset)", about(m.pid, r.error()).message));
      continue;
    }
    done.push_back(m.pid);
  }
  test_step_pause();
  if (journal) (void)journal->resets_done(done);  // without it, the markers tell
  test_step_pause();
  return done;
}

// The journals left by killed dumps, finished first: each line told at once
// through `tell` when the caller gave one, else kept with the warnings.
void finish_journals(const std::function<void(const std::string&)>& tell, std::vector<std::string>& warnings) {
  finish_left_journals([&](const std::string& line) {
    if (tell)
      tell(line);
    else
      warnings.push_back(line);
  });
}

}  // namespace

Expected<DumpResult> dump(const DumpRequest& request) {
  if (request.reset && !request.stop)
    return Error("--reset needs the process stopped: a thread running during the reset could write back a value "
                 "read before it (drop --no-stop)");
  util::PhaseTimer timer;
  // A program built with clang's source-based coverage has its own path.
  if (clang_process(request.pid)) return dump_clang(request);
  timer.mark("clang's runtime?");
  DumpResult result;
  finish_journals(request.tell, result.warnings);
  timer.mark("left journals");
  TreeOptions o;
  o.pid = request.pid;
  o.children = request.children;
  o.skip_unstoppable = request.skip_unstoppable;
  o.need_place = true;
  o.gentle = request.gentle;
  o.snapshot.stop = request.stop;
  o.snapshot.reset = request.reset;
  o.snapshot.mark_run_counted = request.reset;
  auto tree = prepare_tree(o);
  if (!tree) return static_cast<Error>(tree.error());
  timer.mark("find the records");
  // Under -o without --merge, each process of a tree gets its own DIR/PID/.
  const DumpDestination destination{request.directory, request.children && !request.merge && !request.directory.empty(),
                                    request.reset};
  auto files_of = [&]() -> Expected<std::vector<ProcessFiles>> {
    std::vector<ProcessFiles> out;
    for (const Member& m : tree->members) {
      auto files = m.capture.data_files();
      if (!files) return about(m.pid, files.error());
      out.push_back({m.pid, m.place, std::move(*files)});
    }
    return out;
  };
  // A dump that will reset first makes sure its files can be written:
  // an existing file of another program, a link in the way.
  if (request.reset) {
    auto planned = files_of();
    if (!planned) return planned.error();
    auto units = output_units(std::move(*planned), destination);
    if (!units) return units.error();
    if (auto r = check_units(*units, true); !r)
      return Error(fmt::format("{} (nothing was read or reset)", r.error().message));
  }
  // A --reset dump's journal is made before the stop: in the stop, what was
  // read is only written into it.
  std::optional<Journal> journal;
  const std::string boot_id = request.reset ? current_boot_id() : std::string();
  if (request.reset) {
    auto opened = Journal::open(new_journal_id());
    if (!opened)
      return Error(fmt::format("cannot keep the journal that makes --reset safe from a kill: {}; nothing was reset "
                               "(COVKIT_STATE_DIR names another directory for it)",
                               opened.error().message));
    journal.emplace(std::move(*opened));
  }
  test_step_pause();
  timer.mark("check the files");
  int attempt = 1;
  if (auto r = capture_instant(*tree, o, attempt); !r) return static_cast<Error>(r.error());
  timer.mark("stop and read");
  test_step_pause();
  note_root(result.warnings, *tree, o);
  for (std::string& w : tree->passed_over) result.warnings.push_back(std::move(w));
  for (std::string& w : tree->left_out) result.warnings.push_back(std::move(w));

  if (!request.reset) {
    // The files are made once the processes run again.
    result.reads = attempt;
    resume_all(*tree);
    timer.mark("resume");
    for (const Member& m : tree->members) result.processes.push_back(summary_of(m.capture));
    auto files = files_of();
    if (!files) return files.error();
    auto units = output_units(std::move(*files), destination);
    if (!units) return units.error();
    timer.mark("make the files");
    auto written = write_units(*units, false);
    if (!written) return written.error();
    timer.mark("write the files");
    result.files = std::move(*written);
    return result;
  }

  // What was read goes into the journal before anything is reset.
  JournalRecords records;
  std::vector<ProcessFiles> files;
  for (;;) {
    auto read = files_of();
    if (!read) return read.error();
    files = std::move(*read);
    JournalHeader& h = records.header.emplace();
    h.kind = JournalKind::kDump;
    h.id = journal->id();
    h.created = int64_t(std::time(nullptr));
    h.boot_id = boot_id;
    h.marker = marker_for(*tree);
    h.directory = request.directory;
    h.separate = destination.separate;
    for (size_t k = 0; k < files.size(); ++k) {
      const Member& m = *std::next(tree->members.begin(), long(k));
      h.processes.push_back({m.pid, m.start_time, m.capture.root_addresses(), m.place, journal_bytes(files[k].files)});
    }
    if (auto w = journal->write_header(h); !w) {
      journal->remove();
      return Error(fmt::format("cannot keep the journal that makes --reset safe from a kill: {}; nothing was reset",
                               w.error().message));
    }
    test_step_pause();
    // A thread left asleep that woke since the read counted what the
    // journal does not hold: read again, nothing reset yet. (Checked last
    // thing before the resets: from here to the end of their writes is the
    // gentle stop's one window.)
    if (!o.snapshot.gentle || slept_through(*tree)) break;
    journal->clear();
    resume_all(*tree);
    ++attempt;
    if (auto r = capture_instant(*tree, o, attempt); !r) return static_cast<Error>(r.error());
  }
  JournalHeader& h = *records.header;
  result.reads = attempt;
  timer.mark("journal");
  std::vector<pid_t> done = reset_members(*tree, h.marker, &*journal, result.warnings);
  check_woken(*tree, o, result.warnings);
  records.resets_done = done;
  resume_all(*tree);
  timer.mark("reset and resume");
  test_step_pause();
  for (const Member& m : tree->members) result.processes.push_back(summary_of(m.capture));
  for (auto& p : h.processes) p.files.clear();  // the journal holds them; not needed below
  std::vector<ProcessFiles> reset_files;
  for (ProcessFiles& p : files)
    if (std::find(done.begin(), done.end(), p.pid) != done.end()) reset_files.push_back(std::move(p));
  auto units = output_units(std::move(reset_files), destination);
  if (!units) return units.error();  // the journal stays: the next dump finishes it
  auto written = write_journaled(*journal, records, *units);
  if (!written) return written.error();
  timer.mark("write the files");
  result.files = std::move(*written);
  if (done.empty()) return Error(fmt::format("process {}: not reset: {}", request.pid, fmt::join(result.warnings, "; ")));
  return result;
}

Expected<TreeSnapshot, SnapshotError> snapshot_tree(const SnapshotRequest& request) {
  TreeOptions o;
  o.pid = request.pid;
  o.children = request.children;
  o.skip_unstoppable = request.skip_unstoppable;
  o.snapshot.stop = request.stop;
  o.gentle = request.gentle;
  auto tree = prepare_tree(o);
  if (!tree) return tree.error();
  int attempt = 1;
  if (auto r = capture_instant(*tree, o, attempt); !r) return r.error();
  TreeSnapshot out;
  for (Member& m : tree->members) m.capture.resume();
  for (Member& m : tree->members) {
    auto files = m.capture.data_files();
    if (!files) return SnapshotError(about(m.pid, files.error()));
    for (auto& [name, data] : *files) {
      auto [it, inserted] = out.files.emplace(name, data);
      if (inserted) continue;
      auto sum = model::merge_data(it->second, data);
      if (!sum) return SnapshotError(Error(fmt::format("{}: {}", name, sum.error().message)));
      it->second = std::move(*sum);
    }
  }
  for (const Member& m : tree->members) out.processes.push_back(summary_of(m.capture));
  out.warnings = std::move(tree->left_out);
  return out;
}

Expected<ResetResult> reset(const ResetRequest& request) {
  if (clang_process(request.pid)) return reset_clang(request);
  ResetResult result;
  finish_journals(request.tell, result.warnings);
  ObjectSources sources(request.sources);
  TreeOptions o;
  o.pid = request.pid;
  o.children = request.children;
  o.skip_unstoppable = request.skip_unstoppable;
  o.gentle = request.gentle;
  o.snapshot.read = false;
  o.snapshot.reset = true;
  if (!request.sources.empty())
    o.snapshot.reset_only = [&](const std::string& gcda) { return sources.matches(gcda); };
  auto tree = prepare_tree(o);
  if (!tree) return static_cast<Error>(tree.error());
  // Every object was matched against the SOURCEs while the processes ran.
  if (auto missing = sources.unmatched(); !missing.empty())
    return Error(fmt::format("{}: no object of the process was built from {} (nothing was reset)",
                             fmt::join(missing, ", "), missing.size() == 1 ? "it" : "them"));
  // A journal says, should covkit be killed halfway, which processes were
  // reset; the reset goes on without one (nothing is read, nothing lost).
  // Made before the stop, written in it.
  JournalHeader h;
  h.kind = JournalKind::kReset;
  h.id = new_journal_id();
  h.created = int64_t(std::time(nullptr));
  h.boot_id = current_boot_id();
  auto journal = Journal::open(h.id);
  int attempt = 1;
  if (auto r = capture_instant(*tree, o, attempt); !r) return static_cast<Error>(r.error());
  note_root(result.warnings, *tree, o);
  for (std::string& w : tree->left_out) result.warnings.push_back(std::move(w));
  h.marker = marker_for(*tree);
  for (const Member& m : tree->members) h.processes.push_back({m.pid, m.start_time, m.capture.root_addresses(), {}, {}});
  Journal* kept = journal ? &*journal : nullptr;
  if (kept && !kept->write_header(h)) {
    kept->remove();
    kept = nullptr;
  }
  std::vector<pid_t> done = reset_members(*tree, h.marker, kept, result.warnings);
  check_woken(*tree, o, result.warnings);
  for (Member& m : tree->members) m.capture.resume();
  if (kept) kept->remove();
  for (const Member& m : tree->members) {
    if (std::find(done.begin(), done.end(), m.pid) == done.end()) continue;
    result.objects_reset += m.capture.snapshot().objects_reset;
    result.processes.push_back(summary_of(m.capture));
  }
  if (done.empty()) return Error(fmt::format("process {}: not reset: {}", request.pid, fmt::join(result.warnings, "; ")));
  return result;
}

}  // namespace covkit::live
