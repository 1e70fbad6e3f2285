#pragma once
// Where the files of a dump of a process tree go, and how a --reset dump
// writes them so that a covkit killed at any point leaves what the next one
// needs to finish (dump_journal.h): the same code writes a dump's files and
// finishes a journal a killed covkit left, so both end the same way.
//
// Under -o the files form one tree (the processes added as libgcov adds
// runs) or, with --children without --merge, one tree per process
// (DIR/PID/); each tree is swapped in at once, after the journal recorded
// its files' MD5s: the tree is in place if its files are those. Without -o
// each process's files go to its own paths (processes with the same user,
// directory and GCOV_PREFIX added together) in rounds: every file still to
// be written is written complete beside its target as
// `<path>.covkit-<journal>-<round>` (over the spare the dump before left,
// dump_output.h), the round's list is recorded with each staged file's
// inode, then each file is exchanged with its target; a file of the last
// recorded round whose temporary name still holds the staged inode was not
// put in place (after the exchange it holds the replaced file: the spare).
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "format/gcda.h"
#include "live/dump_journal.h"
#include "live/dump_output.h"
#include "util/expected.h"

namespace covkit::live {

using FileSet = std::map<std::string, format::DataFile>;

struct ProcessFiles {
  pid_t pid = 0;
  TargetPlace place;
  FileSet files;  // keyed by the .gcda name the program holds
};

struct DumpDestination {
  std::string directory;  // -o DIR; empty: the program's own paths
  bool separate = false;  // -o: DIR/PID/ per process
  bool may_add = true;    // existing files may be added to
};

// One tree under -o, or the own files of one place.
struct OutputUnit {
  std::string directory;  // empty: own paths
  TargetPlace place;
  FileSet files;
};

// (The processes' files are moved into the units.)
Expected<std::vector<OutputUnit>> output_units(std::vector<ProcessFiles> processes,
                                               const DumpDestination& destination);

// A dump without a reset: each unit written (under -o all or nothing).
Expected<std::vector<WrittenFile>> write_units(const std::vector<OutputUnit>& units, bool may_add);
// What write_units would refuse, found without writing.
Expected<void> check_units(const std::vector<OutputUnit>& units, bool may_add);

// The files of a --reset dump (its processes whose reset is done), written
// or, for a journal a killed covkit left (`records` as it left them),
// finished. The journal is removed once every file is in place. Should the
// files not be written, those not in place yet go to a new directory under
// $TMPDIR (the error says where) and the journal is removed; should even
// that fail, the journal stays for the next dump to finish.
Expected<std::vector<WrittenFile>> write_journaled(Journal& journal, const JournalRecords& records,
                                                   const std::vector<OutputUnit>& units);

// The files of `processes` as the journal holds them (bytes -> DataFile).
Expected<std::vector<ProcessFiles>> journal_files(const JournalHeader& header, const std::vector<pid_t>& pids);
// The bytes of a process's files for its journal.
std::vector<std::pair<std::string, std::vector<uint8_t>>> journal_bytes(const FileSet& files);

// A new directory $TMPDIR/covkit-live-rescue-PID-XXXXXX (mkdtemp: mode
// 0700, a name no one can plant beforehand).
Expected<std::string> rescue_directory(pid_t pid);
// Writes `files` under a new rescue_directory $TMPDIR/covkit-live-rescue-PID-XXXXXX
// (mkdtemp: mode 0700, a name no one can plant beforehand); its path. Every
// name finds a place there (a ".." above the root stays at the root); when
// the write fails all the same, the directory is removed again.
Expected<std::string> rescue_files(pid_t pid, const FileSet& files, const TargetPlace& place);

}  // namespace covkit::live
