#include "live/dump_recovery.h"

#include <algorithm>
#include <ctime>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "live/access_check.h"
#include "live/dump_journal.h"
#include "live/journaled_write.h"
#include "live/proc_files.h"
#include "live/remote_memory.h"
#include "live/snapshot.h"

namespace covkit::live {

namespace {

enum class ResetOutcome { kNotBegun, kDone, kCutShort, kUnknown, kUnreadable };

struct ProcessOutcome {
  pid_t pid = 0;
  ResetOutcome outcome = ResetOutcome::kUnknown;
  std::string why;  // kUnreadable
};

ProcessOutcome outcome_of(const JournalHeader& h, const JournalRecords& records, const JournalProcess& p,
                          bool same_boot) {
  if (records.resets_done &&
      std::find(records.resets_done->begin(), records.resets_done->end(), p.pid) != records.resets_done->end())
    return {p.pid, ResetOutcome::kDone, {}};
  if (!same_boot || process_start_time(p.pid) != p.start_time) return {p.pid, ResetOutcome::kUnknown, {}};
  const std::optional<pid_t> at = live_thread(p.pid);
  if (!at) return {p.pid, ResetOutcome::kUnknown, {}};
  auto words = read_reset_markers(*at, p.roots);
  if (!words) {
    if (process_gone(words.error()) || process_start_time(p.pid) != p.start_time)
      return {p.pid, ResetOutcome::kUnknown, {}};
    return {p.pid, ResetOutcome::kUnreadable, is_refusal(words.error()) ? explain_refusal(p.pid, words.error())
                                                                          : words.error().message};
  }
  if (std::count(words->begin(), words->end(), h.marker.done)) return {p.pid, ResetOutcome::kDone, {}};
  if (std::count(words->begin(), words->end(), h.marker.begun)) return {p.pid, ResetOutcome::kCutShort, {}};
  return {p.pid, ResetOutcome::kNotBegun, {}};
}

std::string when(int64_t t) {
  std::time_t tt = std::time_t(t);
  char text[32] = "";
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", std::localtime(&tt));
  return text;
}

std::string pids_text(const std::vector<pid_t>& pids) {
  std::string out;
  for (pid_t p : pids) out += (out.empty() ? "" : ", ") + std::to_string(p);
  return out;
}

std::string destination_text(const JournalHeader& h) {
  return h.directory.empty() ? "the program's own .gcda files" : h.directory;
}

// One journal: what happened, and the files written where they belong.
std::string finish(LeftJournal& left) {
  const JournalRecords& records = left.records();
  if (!records.header) {
    left.remove();
    return "a `covkit live dump --reset` was killed before it reset anything: nothing was lost (its journal " +
           left.path() + " was cut short and is removed)";
  }
  const JournalHeader& h = *records.header;
  const bool same_boot = h.boot_id == current_boot_id();
  const char* command = h.kind == JournalKind::kDump ? "live dump --reset" : "live reset";
  std::string what = fmt::format("`covkit {}` of process {} on {} was killed", command,
                                 h.processes.empty() ? 0 : h.processes.front().pid, when(h.created));
  std::vector<pid_t> done, not_begun, uncertain;
  for (const JournalProcess& p : h.processes) {
    ProcessOutcome o = outcome_of(h, records, p, same_boot);
    if (o.outcome == ResetOutcome::kUnreadable)
      return fmt::format("{}; its journal {} is kept: process {} cannot be read to tell whether it was reset ({})",
                         what, left.path(), p.pid, o.why);
    if (o.outcome == ResetOutcome::kDone) done.push_back(p.pid);
    if (o.outcome == ResetOutcome::kNotBegun) not_begun.push_back(p.pid);
    if (o.outcome == ResetOutcome::kCutShort || o.outcome == ResetOutcome::kUnknown) uncertain.push_back(p.pid);
  }
  std::vector<std::string> parts;
  if (!not_begun.empty())
    parts.push_back(fmt::format("before it reset process {} (nothing lost: the counts are still there)",
                                pids_text(not_begun)));
  if (h.kind == JournalKind::kReset) {
    if (!done.empty()) parts.push_back(fmt::format("after it reset process {}", pids_text(done)));
    if (!uncertain.empty())
      parts.push_back(fmt::format("while it reset process {} (some of its counters may have been zeroed, others not)",
                                  pids_text(uncertain)));
    left.remove();
    return what + " " + fmt::format("{}", fmt::join(parts, "; "));
  }
  std::string written;
  if (!done.empty()) {
    auto files = journal_files(h, done);
    if (!files) return fmt::format("{}; its journal {} is kept: {}", what, left.path(), files.error().message);
    auto units = output_units(std::move(*files), DumpDestination{h.directory, h.separate, true});
    if (!units) return fmt::format("{}; its journal {} is kept: {}", what, left.path(), units.error().message);
    JournalRecords kept = records;
    Journal journal = std::move(left).resume();
    auto w = write_journaled(journal, kept, *units);
    if (!w)
      return fmt::format("{} after it reset process {}: {}", what, pids_text(done), w.error().message);
    parts.push_back(fmt::format("after it reset process {}: its {} files are written now to {}", pids_text(done),
                                w->size(), destination_text(h)));
  }
  if (!uncertain.empty()) {
    // Neither adding nor dropping what was read is sure to be right: it is
    // kept apart, added to nothing, for whoever knows better.
    auto files = journal_files(h, uncertain);
    FileSet all;
    std::string where = "nowhere (the journal is damaged)";
    if (files) {
      for (const ProcessFiles& p : *files)
        for (const auto& [name, data] : p.files) all.emplace(name, data);
      auto rescued = rescue_files(uncertain.front(), all, files->empty() ? TargetPlace{} : files->front().place);
      where = rescued ? *rescued : "nowhere (" + rescued.error().message + ")";
    }
    parts.push_back(fmt::format(
        "while it reset process {}, or before that process ended: whether its counters were zeroed cannot be "
        "told, so its counts of then may be lost or counted twice; what the dump had read is in {}, added to "
        "nothing",
        pids_text(uncertain), where));
  }
  left.remove();
  return what + " " + fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

void finish_left_journals(const std::function<void(const std::string&)>& tell) {
  auto dir = journal_directory(false);
  if (!dir) return;  // none yet: no journal either
  std::vector<std::string> problems;
  for (LeftJournal& left : left_journals(*dir, &problems)) tell(finish(left));
  for (const std::string& p : problems) tell("a journal of a killed dump could not be read: " + p);
}

}  // namespace covkit::live
