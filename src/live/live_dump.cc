#include "live/live_dump.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "live/access_check.h"
#include "live/object_sources.h"
#include "live/process_tree.h"
#include "model/data_merge.h"

namespace covkit::live {

namespace {

// One line for a failure concerning `pid`, refusals worded by the rule
// that refused.
Error about(pid_t pid, const Error& e) {
  if (is_refusal(e)) return Error(explain_refusal(pid, e));
  Error out(fmt::format("process {}: {}", pid, e.message));
  out.errno_value = e.errno_value;
  return out;
}
// The same, keeping why (a watch ends when the process exited).
SnapshotError about(pid_t pid, const SnapshotError& e) { return {about(pid, static_cast<const Error&>(e)), e.why}; }

ProcessSummary summary_of(const Snapshot& s) {
  ProcessSummary p;
  p.pid = s.pid;
  p.modules = s.modules.size();
  for (const ModuleSnapshot& m : s.modules) {
    p.objects += m.objects.size();
    p.module_notes.push_back(fmt::format("{}: {} objects, root found by {}, layout of GCC {}", m.path,
                                         m.objects.size(), root_source_name(m.source), m.layout.gcc_major));
  }
  p.functions = s.functions;
  p.counters = s.counters_read;
  p.threads = s.threads;
  p.stopped = s.stopped;
  p.pause = s.pause;
  return p;
}

std::vector<pid_t> processes_of(pid_t pid, bool children) {
  std::vector<pid_t> pids{pid};
  if (children)
    for (pid_t c : descendants(pid)) pids.push_back(c);
  return pids;
}

using FileSet = std::map<std::string, format::DataFile>;

// `into` += `more`, as libgcov adds one process's run to another's.
Expected<void> add_files(FileSet& into, FileSet&& more) {
  for (auto& [name, data] : more) {
    auto [it, inserted] = into.emplace(name, data);
    if (inserted) continue;
    auto sum = model::merge_data(it->second, data);
    if (!sum) return Error(fmt::format("{}: {}", name, sum.error().message));
    it->second = std::move(*sum);
  }
  return {};
}

// A dump whose files could not be written after its reset would lose what
// the program did since the previous one: it goes to a new directory under
// $TMPDIR instead, and the error says where. The directory is made afresh
// under a name no one can guess (mkdtemp, mode 0700): a predictable one let
// another user plant a directory or a link there for covkit to write into.
Error rescue(const DumpRequest& request, const FileSet& files, const TargetPlace& place, const Error& why) {
  if (!request.reset) return why;
  const char* tmp = std::getenv("TMPDIR");
  std::string name = fmt::format("{}/covkit-live-rescue-{}-XXXXXX", tmp && *tmp ? tmp : "/tmp", request.pid);
  if (!::mkdtemp(name.data()))
    return Error(fmt::format("{} (the counters were reset and this dump could not be saved: {})", why.message,
                             std::strerror(errno)));
  const std::string& dir = name;
  if (write_dump(files, place, DumpTarget{dir, false}))
    return Error(fmt::format("{} (the counters were reset: this dump was written under {} instead)", why.message, dir));
  return Error(fmt::format("{} (the counters were reset and this dump could not be saved)", why.message));
}

}  // namespace

Expected<DumpResult> dump(const DumpRequest& request) {
  if (request.reset && !request.stop)
    return Error("--reset needs the process stopped: a thread running during the reset could write back a value "
                 "read before it (drop --no-stop)");
  DumpResult result;
  struct Taken {
    pid_t pid;
    TargetPlace place;
    FileSet files;
  };
  std::vector<Taken> taken;
  for (pid_t pid : processes_of(request.pid, request.children)) {
    auto place = target_place(pid);
    if (!place) {
      if (pid == request.pid) return place.error();
      continue;  // a child that ended since the list was made
    }
    SnapshotOptions options;
    options.stop = request.stop;
    options.reset = request.reset;
    options.mark_run_counted = request.reset;
    auto snap = take_snapshot(pid, options);
    if (!snap) {
      // A child without coverage data (it exec'd another program), or one
      // that ended since it was listed (its own exit wrote its files), is
      // no reason to give up the others.
      if (pid != request.pid && passable(snap.error())) {
        result.warnings.push_back(fmt::format("process {}: {}", pid, snap.error().message));
        continue;
      }
      return about(pid, snap.error());
    }
    result.processes.push_back(summary_of(*snap));
    auto files = snapshot_data_files(*snap);
    if (!files) return about(pid, files.error());
    taken.push_back({pid, std::move(*place), std::move(*files)});
  }
  // Under -o without --merge, each process of a tree gets its own DIR/PID/.
  bool separate = request.children && !request.merge && !request.directory.empty();
  if (!separate) {
    FileSet all;
    for (Taken& t : taken)
      if (auto r = add_files(all, std::move(t.files)); !r) return r.error();
    DumpTarget target{request.directory, request.reset};
    auto written = write_dump(all, taken.front().place, target);
    if (!written) return rescue(request, all, taken.front().place, written.error());
    result.files = std::move(*written);
    return result;
  }
  for (Taken& t : taken) {
    DumpTarget target{fmt::format("{}/{}", request.directory, t.pid), request.reset};
    auto written = write_dump(t.files, t.place, target);
    if (!written) return rescue(request, t.files, t.place, written.error());
    result.files.insert(result.files.end(), written->begin(), written->end());
  }
  return result;
}

Expected<std::map<std::string, format::DataFile>, SnapshotError> snapshot_files(pid_t pid, bool stop,
                                                                                ProcessSummary* summary) {
  SnapshotOptions options;
  options.stop = stop;
  auto snap = take_snapshot(pid, options);
  if (!snap) return about(pid, snap.error());
  if (summary) *summary = summary_of(*snap);
  auto files = snapshot_data_files(*snap);
  if (!files) return SnapshotError(about(pid, files.error()));
  return std::move(*files);
}

Expected<ResetResult> reset(const ResetRequest& request) {
  ResetResult result;
  ObjectSources sources(request.sources);
  for (pid_t pid : processes_of(request.pid, request.children)) {
    SnapshotOptions options;
    options.read = false;
    options.reset = true;
    if (!request.sources.empty()) options.reset_only = [&](const std::string& gcda) { return sources.matches(gcda); };
    auto snap = take_snapshot(pid, options);
    if (!snap) {
      if (pid != request.pid && passable(snap.error())) continue;
      return about(pid, snap.error());
    }
    result.objects_reset += snap->objects_reset;
    result.processes.push_back(summary_of(*snap));
  }
  // The counters are zeroed in the stop, before the unmatched SOURCEs are
  // known: say whether the others' were.
  if (auto missing = sources.unmatched(); !missing.empty())
    return Error(fmt::format("{}: no object of the process was built from {} ({})", fmt::join(missing, ", "),
                             missing.size() == 1 ? "it" : "them",
                             result.objects_reset ? fmt::format("{} object(s) of the other sources were reset",
                                                                result.objects_reset)
                                                  : "nothing was reset"));
  return result;
}

}  // namespace covkit::live
