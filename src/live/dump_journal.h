#pragma once
// The journal that keeps a `live dump --reset` exact whatever instant covkit
// dies at (docs/covkit-live.md, CONSISTENCY). A reset takes counts out of the
// process; until they are in their files they exist only in covkit's memory.
// So, with every process of the dump still stopped, covkit first writes what
// it read into a journal, then resets (leaving a marker in each process that
// says the reset was written: snapshot.h, ResetMarker), lets the processes
// go, writes the files and removes the journal. Its records, appended:
//
//   header     the processes (pid, start time, roots), what was read from
//              each (its .gcda files), where the files go, the markers
//   resets     the processes whose reset was written (still in the stop)
//   renaming   own paths: every file is complete under a temporary name
//              beside its target; the renames follow
//   committing -o DIR: the files (and their MD5s) about to be swapped in
//
// The journal is locked (flock) by the covkit that writes it for as long as
// it exists: a journal that can be locked belongs to a covkit that died,
// and the next `covkit live dump` or `reset` finishes it (dump_recovery.h).
// Each record carries a CRC: a record cut short by the kill is as if it had
// not been written, and a header cut short means nothing was reset yet.
//
// The journals live in covkit's state directory: COVKIT_STATE_DIR, else
// /var/lib/covkit for root and $XDG_STATE_HOME/covkit (~/.local/state/covkit)
// for others, in live/, mode 0700; a directory that another user owns or
// could write is refused (a planted journal would name where to write).
// Nothing is synced to the disk: the journal is there to survive covkit's
// death, and a crash of the machine ends the process too (libgcov never
// syncs its files either).
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "live/dump_output.h"
#include "live/snapshot.h"
#include "util/expected.h"

namespace covkit::live {

struct JournalProcess {
  pid_t pid = 0;
  uint64_t start_time = 0;      // /proc/PID/stat's, which tells a reused pid
  std::vector<uint64_t> roots;  // where its reset marker is
  TargetPlace place;
  // Its .gcda files as read (name as the program holds it -> bytes); none
  // for a plain reset.
  std::vector<std::pair<std::string, std::vector<uint8_t>>> files;
};

enum class JournalKind : uint32_t { kDump = 1, kReset = 2 };

struct JournalHeader {
  JournalKind kind = JournalKind::kDump;
  std::string id;          // 16 hex digits: the journal's name, and its temporary files'
  int64_t created = 0;     // seconds since the epoch
  std::string boot_id;     // /proc/sys/kernel/random/boot_id: pids and start times are this boot's
  ResetMarker marker;
  std::string directory;   // -o DIR; empty: the program's own paths
  bool separate = false;   // -o DIR/PID per process (--children without --merge)
  std::vector<JournalProcess> processes;
};

// A round of own-path renames: every path listed is complete under its
// temporary name (journaled_write.h) when the record is written, as the
// inode listed with it (0: not known, a journal of an older covkit): a path
// whose temporary name still holds that inode was not put in place.
struct JournalRound {
  uint32_t round = 0;
  std::vector<std::string> paths;
  std::vector<uint64_t> inodes;  // as many as paths, or none
};

struct JournalRecords {
  std::optional<JournalHeader> header;  // none: cut short before the reset
  std::optional<std::vector<pid_t>> resets_done;
  std::optional<JournalRound> renaming;  // the last one
  std::vector<std::vector<std::pair<std::string, std::string>>> committing;  // path, md5; each one
};

// The state directory's live/ (created if `create`, and then made sure to be
// covkit's own); the error names what is wrong.
Expected<std::string> journal_directory(bool create = true);
std::string new_journal_id();
std::string current_boot_id();

class Journal {
 public:
  // Creates and locks an empty journal named `id`: made before the stop, so
  // that the stop only writes into it (an empty journal says that nothing
  // was reset).
  static Expected<Journal> open(const std::string& id);
  // Writes the header (what was read), replacing what the journal held.
  Expected<void> write_header(const JournalHeader& header);
  // Empties it again (a gentle read that has to be done again).
  void clear();
  // open() and write_header() in one.
  static Expected<Journal> create(const JournalHeader& header);
  Journal(Journal&& o) noexcept;
  Journal& operator=(Journal&&) = delete;
  ~Journal();  // unlocks; the file stays if it holds a header, else it goes

  Expected<void> resets_done(const std::vector<pid_t>& pids);
  Expected<void> renaming(const JournalRound& round);
  Expected<void> committing(const std::vector<std::pair<std::string, std::string>>& path_md5);
  // The dump is complete: the journal goes.
  void remove();
  const std::string& path() const { return path_; }
  const std::string& id() const { return id_; }

 private:
  friend class LeftJournal;
  Journal(int fd, std::string path, std::string id, bool written = false)
      : fd_(fd), path_(std::move(path)), id_(std::move(id)), written_(written) {}
  Expected<void> append(uint32_t tag, const std::vector<uint8_t>& payload);
  int fd_ = -1;
  std::string path_, id_;
  bool written_ = false;  // holds a header: what was read, maybe reset
};

// A journal left by a covkit that died, locked now by this one.
class LeftJournal {
 public:
  LeftJournal(LeftJournal&& o) noexcept;
  LeftJournal& operator=(LeftJournal&&) = delete;
  ~LeftJournal();
  const JournalRecords& records() const { return records_; }
  const std::string& path() const { return path_; }
  // Carries on where the dead covkit stopped (the same records).
  Journal resume() &&;
  void remove();

 private:
  friend std::vector<LeftJournal> left_journals(const std::string& directory, std::vector<std::string>* problems);
  LeftJournal(int fd, std::string path, JournalRecords records)
      : fd_(fd), path_(std::move(path)), records_(std::move(records)) {}
  int fd_ = -1;
  std::string path_;
  JournalRecords records_;
};

// Every journal of `directory` whose covkit died (the others are locked by
// their covkit, which is at work on them). `problems`: one line per journal
// that could not be read.
std::vector<LeftJournal> left_journals(const std::string& directory, std::vector<std::string>* problems);

// The records of a journal's bytes (exposed for tests).
JournalRecords decode_journal(const std::vector<uint8_t>& bytes);
std::vector<uint8_t> encode_journal_header(const JournalHeader& header);

}  // namespace covkit::live
