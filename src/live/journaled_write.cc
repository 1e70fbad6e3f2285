#include "live/journaled_write.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "format/gcda_reader.h"
#include "format/gcda_writer.h"
#include "live/test_pause.h"
#include "model/data_merge.h"
#include "util/md5.h"
#include "util/output_path.h"

namespace covkit::live {

namespace {

// `into` += `more`, as libgcov adds one process's run to another's. Moved,
// not copied: a dump's files are thousands of counters in maps of vectors,
// and the copies were a good part of a dump's own CPU (malloc and free).
Expected<void> add_file_sets(FileSet& into, FileSet&& more) {
  if (into.empty()) {
    into = std::move(more);
    return {};
  }
  for (auto& [name, data] : more) {
    auto [it, inserted] = into.try_emplace(name, std::move(data));
    if (inserted) continue;
    auto sum = model::merge_data(it->second, data);
    if (!sum) return Error(fmt::format("{}: {}", name, sum.error().message));
    it->second = std::move(*sum);
  }
  return {};
}

auto place_key(const TargetPlace& p) { return std::tie(p.uid, p.gid, p.cwd, p.gcov_prefix, p.gcov_prefix_strip); }

std::string round_suffix(const std::string& id, uint32_t round) { return fmt::format(".covkit-{}-{}", id, round); }

std::string_view as_view(const std::vector<uint8_t>& b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// Under -o: the files of `unit` already in place, by a commit whose MD5s
// the journal recorded (a tree is swapped in at once, so normally all or
// none; a file whose planned bytes equal the old ones is in place either way).
std::set<std::string> committed_files(const OutputUnit& unit, const JournalRecords& records) {
  std::map<std::string, std::string> recorded;
  for (const auto& commit : records.committing)
    for (const auto& [path, md5] : commit) recorded[path] = md5;
  std::set<std::string> in_place;
  for (const auto& [gcda, data] : unit.files) {
    auto below = path_below_directory(unit.place, gcda);
    if (!below) continue;  // a name that may not go below DIR was never written there
    const std::string& rel = *below;
    auto it = recorded.find(unit.directory + "/" + rel);
    if (it == recorded.end()) continue;
    auto bytes = read_below_directory(unit.directory, rel);
    if (bytes && *bytes && util::md5_hex(as_view(**bytes)) == it->second) in_place.insert(gcda);
  }
  return in_place;
}

// What could not be written, to be rescued: the unit's remaining files.
struct Leftover {
  std::string sub;  // a subdirectory of the rescue (DIR/PID units), or ""
  TargetPlace place;
  FileSet files;
};

bool units_own_paths(const std::vector<OutputUnit>& units) {
  return !units.empty() && units.front().directory.empty();
}

std::string pid_of_unit(const OutputUnit& unit, bool separate) {
  if (!separate) return "";
  size_t slash = unit.directory.find_last_of('/');
  return slash == std::string::npos ? unit.directory : unit.directory.substr(slash + 1);
}

}  // namespace

Expected<std::vector<OutputUnit>> output_units(std::vector<ProcessFiles> processes,
                                               const DumpDestination& destination) {
  std::vector<OutputUnit> units;
  if (processes.empty()) return units;
  if (!destination.directory.empty()) {
    if (destination.separate) {
      for (ProcessFiles& p : processes)
        units.push_back({fmt::format("{}/{}", destination.directory, p.pid), p.place, std::move(p.files)});
      return units;
    }
    OutputUnit all{destination.directory, processes.front().place, {}};
    for (ProcessFiles& p : processes)
      if (auto r = add_file_sets(all.files, std::move(p.files)); !r) return r.error();
    units.push_back(std::move(all));
    return units;
  }
  // The program's own paths: a process of another user, directory or
  // GCOV_PREFIX writes its own files.
  for (ProcessFiles& p : processes) {
    OutputUnit* unit = nullptr;
    for (OutputUnit& u : units)
      if (place_key(u.place) == place_key(p.place)) unit = &u;
    if (!unit) unit = &units.emplace_back(OutputUnit{"", p.place, {}});
    if (auto r = add_file_sets(unit->files, std::move(p.files)); !r) return r.error();
  }
  return units;
}

Expected<std::vector<WrittenFile>> write_units(const std::vector<OutputUnit>& units, bool may_add) {
  std::vector<WrittenFile> written;
  for (const OutputUnit& u : units) {
    auto w = write_dump(u.files, u.place, DumpTarget{u.directory, may_add, {}});
    if (!w) return w.error();
    written.insert(written.end(), w->begin(), w->end());
  }
  return written;
}

Expected<void> check_units(const std::vector<OutputUnit>& units, bool may_add) {
  for (const OutputUnit& u : units)
    if (auto r = check_dump_target(u.files, u.place, DumpTarget{u.directory, may_add, {}}); !r) return r.error();
  return {};
}

Expected<std::string> rescue_directory(pid_t pid) {
  const char* tmp = std::getenv("TMPDIR");
  std::string name = fmt::format("{}/covkit-live-rescue-{}-XXXXXX", tmp && *tmp ? tmp : "/tmp", pid);
  if (!::mkdtemp(name.data())) return Error(std::strerror(errno));
  return name;
}

namespace {

Expected<std::string> write_rescue(pid_t pid, const std::map<std::string, std::pair<TargetPlace, FileSet>>& by_sub) {
  auto name = rescue_directory(pid);
  if (!name) return name.error();
  for (const auto& [sub, placed] : by_sub) {
    DumpTarget target{sub.empty() ? *name : *name + "/" + sub, false, {}};
    target.rescue = true;
    if (auto w = write_dump(placed.second, placed.first, target); !w) {
      // Nothing half-written, and no empty directory in $TMPDIR for each
      // try: the journal, which is kept, is where the counts still are.
      const size_t slash = name->rfind('/');
      util::UniqueFd parent(::open(name->substr(0, slash).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      if (parent.valid()) util::remove_tree_at(parent.get(), name->substr(slash + 1));
      return w.error();
    }
  }
  return name;
}

}  // namespace

Expected<std::string> rescue_files(pid_t pid, const FileSet& files, const TargetPlace& place) {
  std::map<std::string, std::pair<TargetPlace, FileSet>> by_sub;
  by_sub.emplace("", std::make_pair(place, files));
  return write_rescue(pid, by_sub);
}

std::vector<std::pair<std::string, std::vector<uint8_t>>> journal_bytes(const FileSet& files) {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
  out.reserve(files.size());
  for (const auto& [name, data] : files) out.emplace_back(name, format::write_data(data));
  return out;
}

Expected<std::vector<ProcessFiles>> journal_files(const JournalHeader& header, const std::vector<pid_t>& pids) {
  std::vector<ProcessFiles> out;
  for (const JournalProcess& p : header.processes) {
    if (std::find(pids.begin(), pids.end(), p.pid) == pids.end()) continue;
    ProcessFiles pf{p.pid, p.place, {}};
    for (const auto& [name, bytes] : p.files) {
      auto data = format::read_data(bytes);
      if (!data || data->error) return Error(fmt::format("{}: damaged in the journal", name));
      pf.files.emplace(name, std::move(*data));
    }
    out.push_back(std::move(pf));
  }
  return out;
}

Expected<std::vector<WrittenFile>> write_journaled(Journal& journal, const JournalRecords& records,
                                                   const std::vector<OutputUnit>& units) {
  std::vector<WrittenFile> written;
  std::vector<Leftover> leftovers;
  std::optional<Error> failed;
  const bool separate = records.header && records.header->separate;
  const pid_t first_pid = records.header && !records.header->processes.empty() ? records.header->processes.front().pid : 0;

  // -o: each tree, unless the journal shows it in place.
  for (const OutputUnit& unit : units) {
    if (unit.directory.empty()) continue;
    std::set<std::string> in_place = committed_files(unit, records);
    FileSet todo;
    for (const auto& [gcda, data] : unit.files) {
      if (in_place.count(gcda)) {  // (so its name goes below DIR)
        written.push_back({unit.directory + "/" + *path_below_directory(unit.place, gcda), true, false});
        continue;
      }
      todo.emplace(gcda, data);
    }
    if (todo.empty()) continue;
    DumpTarget target{unit.directory, true, [&](const std::vector<std::pair<std::string, std::string>>& sums) {
                        test_step_pause();
                        auto r = journal.committing(sums);
                        test_step_pause();
                        return r;
                      }};
    auto w = write_dump(todo, unit.place, target);
    if (!w) {
      if (!failed) failed = w.error();
      leftovers.push_back({pid_of_unit(unit, separate), unit.place, std::move(todo)});
      continue;
    }
    written.insert(written.end(), w->begin(), w->end());
  }

  // Own paths: a new round for the files not yet in place.
  const std::string& id = journal.id();
  const uint32_t last = records.renaming ? records.renaming->round : 0;
  std::map<std::string, uint64_t> listed;  // path -> its staged file's inode (0: not recorded)
  if (records.renaming)
    for (size_t i = 0; i < records.renaming->paths.size(); ++i)
      listed[records.renaming->paths[i]] = i < records.renaming->inodes.size() ? records.renaming->inodes[i] : 0;
  struct Pending {
    const OutputUnit* unit;
    FileSet files;
  };
  std::vector<Pending> pending;
  for (const OutputUnit& unit : units) {
    if (!unit.directory.empty()) continue;
    Pending p{&unit, {}};
    for (const auto& [gcda, data] : unit.files) {
      std::string path = program_path(unit.place, gcda);
      bool in_place = false;
      if (last > 0) {
        auto it = listed.find(path);
        const std::string temp = path + round_suffix(id, last);
        const uint64_t at_temp = it == listed.end() ? 0 : own_file_inode(temp, unit.place);
        // Not in place while the staged file is still at its temporary
        // name; after the exchange that name holds the target's former file.
        in_place = it == listed.end() || at_temp == 0 || (it->second != 0 && at_temp != it->second);
        if (in_place && at_temp != 0) keep_as_spare(temp, path, unit.place);
      }
      if (in_place) {
        written.push_back({path, true, false});
        continue;
      }
      p.files.emplace(gcda, data);
    }
    if (!p.files.empty()) pending.push_back(std::move(p));
  }
  if (!pending.empty()) {
    const uint32_t round = last + 1;
    std::vector<std::pair<const Pending*, std::vector<StagedOwnFile>>> staged;
    std::optional<Error> stage_error;
    for (const Pending& p : pending) {
      auto s = stage_own_files(p.files, p.unit->place, true, round_suffix(id, round));
      if (!s) {
        stage_error = s.error();
        break;
      }
      staged.emplace_back(&p, std::move(*s));
    }
    JournalRound record{round, {}, {}};
    for (const auto& [p, files] : staged)
      for (const StagedOwnFile& f : files) {
        record.paths.push_back(f.path);
        record.inodes.push_back(f.inode);
      }
    test_step_pause();
    if (!stage_error)
      if (auto r = journal.renaming(record); !r) stage_error = r.error();
    test_step_pause();
    if (stage_error) {
      for (const auto& [p, files] : staged)
        for (const StagedOwnFile& f : files) remove_own_file(f.temp, p->unit->place);
      if (!failed) failed = *stage_error;
      for (const Pending& p : pending) leftovers.push_back({"", p.unit->place, p.files});
    } else {
      // The earlier rounds' temporary files of these paths are stale now.
      for (const auto& [p, files] : staged)
        for (const StagedOwnFile& f : files)
          for (uint32_t r = 1; r < round; ++r) remove_own_file(f.path + round_suffix(id, r), p->unit->place);
      for (const auto& [p, files] : staged) {
        test_step_pause();
        auto renamed = rename_own_files(files, p->unit->place);
        FileSet left;
        for (const StagedOwnFile& f : files) {
          // All renamed when none failed: only a failure asks which were.
          if (!renamed && own_file_inode(f.temp, p->unit->place) == f.inode) {
            // Not renamed: to the rescue, below, with what it held.
            for (const auto& [gcda, data] : p->files)
              if (program_path(p->unit->place, gcda) == f.path) left.emplace(gcda, data);
          } else {
            written.push_back(f.shown);
          }
        }
        if (!renamed && !failed) failed = renamed.error();
        if (!left.empty()) leftovers.push_back({"", p->unit->place, std::move(left)});
      }
    }
  }

  if (!failed) {
    test_step_pause();
    journal.remove();
    return written;
  }
  // What is not in place goes to a rescue directory; the journal then goes
  // (and with it the temporary files, which the journal alone explains).
  auto kept = [&] {
    return Error(fmt::format("{} (the counters were reset and this dump could not be saved: it stays in {}, which "
                             "the next `covkit live dump` writes)",
                             failed->message, journal.path()));
  };
  std::map<std::string, std::pair<TargetPlace, FileSet>> by_sub;
  for (const Leftover& l : leftovers) {
    auto [it, fresh] = by_sub.try_emplace(l.sub, l.place, FileSet{});
    if (auto r = add_file_sets(it->second.second, FileSet(l.files)); !r) return kept();
  }
  auto rescued = write_rescue(first_pid, by_sub);
  if (!rescued) return kept();
  for (const Leftover& l : leftovers)
    if (l.sub.empty() && units_own_paths(units))
      for (const auto& [gcda, data] : l.files)
        for (uint32_t r = 1; r <= last + 1; ++r)
          remove_own_file(program_path(l.place, gcda) + round_suffix(id, r), l.place);
  journal.remove();
  return Error(fmt::format("{} (the counters were reset: this dump was written under {} instead)", failed->message,
                           *rescued));
}

}  // namespace covkit::live
