#pragma once
// Data of another user, and what covkit does in consequence.
//
// covkit runs as root on other users' processes and files. Their data names
// other files — the sources a report shows, the notes beside a process's
// .gcda names — and root could read any of them: a program built with
// `#line 1 "/etc/shadow"` would have root copy that file into a report.
// And a report others may read would show them what the data holds. So,
// once covkit has read data it does not own (note_data_file, or
// note_foreign_data for a process):
//
//  - a file named by data (read_named_file) is opened with the rights of
//    every such owner in turn (file-system uid, gid and groups switched
//    for the opening thread only), and read only when each of them may;
//    named by covkit's own data, it is opened as a given file is
//    (open_input_file: another user's link followed with their rights);
//  - the files and directories covkit creates get no permission the data
//    did not have (output_mode_mask): data others could not read gives
//    outputs only covkit's own user can read.
//
// Only root (or a holder of CAP_SETUID/CAP_SETGID) can take another user's
// rights; covkit running as an ordinary user reads with its own rights,
// which is no more than that user could read anyway.
#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/expected.h"
#include "util/file_io.h"

namespace covkit::util {

struct DataOwner {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups
  bool operator==(const DataOwner&) const = default;
};

// The owner of the data in a file of user `uid`: its passwd entry's group
// and the groups it belongs to; an unknown user gets no group at all (the
// rights only ever narrow).
DataOwner file_owner(uid_t uid);

// Data of `owner` whose permission bits are `mode` (0600 for a process's
// memory) was read. Nothing changes when `owner` is covkit's own user.
void note_foreign_data(const DataOwner& owner, mode_t mode);

// A data file was read from `path` (`data` as read_file or, for "-",
// read_file_or_stdin returned it): noted when another user owns it, or owns
// the symbolic link it was reached by.
void note_data_file(const std::string& path, const FileData& data);

// The same for a data file about to be read (stat, not read): callers that
// read many files in parallel note them all first, so that what each read
// may see never depends on the order the threads took. Returns the size of
// the regular file `path` leads to (0 for anything else, or none): what
// the stat saw, for a caller sizing its work.
uint64_t note_data_path(const std::string& path);

// The permission bits covkit's outputs may have (07777 until data of
// another user was read, and for a thread that writes as another user).
mode_t output_mode_mask();

// The owners noted so far.
std::vector<DataOwner> foreign_owners();

// read_file(path), opened with the rights of every foreign owner (see
// above) and, on a thread that took another user's rights
// (ScopedFsIdentity), with those too; the error says whose rights refused it.
Expected<FileData> read_named_file(const std::string& path, size_t max_bytes = SIZE_MAX);
// read_file(path) of a data file covkit was given (a tracefile, a .gcda to
// merge, a block file, a gmon.out): when its name is another user's
// symbolic link, or a directory on its way is (the name walked a component
// at a time from held directories, O_NOFOLLOW: a directory swapped for a
// link after a look is never followed), that user chose the file, which may be one they may not
// read (a link to /etc/shadow in a tree a root CI job reports on, whose
// first line the parse error would quote): opened with that user's rights,
// and the error says so. Callers note it (note_data_file) as before.
Expected<FileData> read_input_file(const std::string& path, size_t max_bytes = SIZE_MAX);
// A command's input as read_input_file reads it, or standard input when
// `path` is "-" (read_file_or_stdin): `sample import-perf FILE` and `live
// unpack FILE` read the same files as every other command's inputs.
Expected<FileData> read_input_file_or_stdin(const std::string& path);
// The same file open (a trace's streams, read a window at a time).
Expected<UniqueFd> open_input_file(const std::string& path);
// The same file open, for readers that take a descriptor (libelf).
Expected<UniqueFd> open_named_file(const std::string& path);

// The most covkit reads of a source file: far above any written by hand or
// generated (sqlite3.c is 9 MB), far below what a name in another user's
// data can lead to (a sparse file of 100 GB costs its owner nothing, and its
// HTML page or .gcov text would fill root's disk).
inline constexpr size_t kMaxSourceBytes = size_t(64) << 20;
// The most covkit reads of all sources in one run, each read counted (a
// source shown and searched for exclusion markers counts twice): many
// sources just under kMaxSourceBytes would otherwise still have covkit read
// and write without bound. Far above the sources of the largest projects
// (those a Linux kernel build compiles are ~1 GB); COVKIT_TEST_SOURCE_TOTAL
// (bytes) lowers it for tests.
inline constexpr uint64_t kMaxSourceTotalBytes = uint64_t(4) << 30;
// A source named by data (its HTML page, its .gcov text, its exclusion
// markers): read_named_file, at most kMaxSourceBytes, and not at all once
// the run's sources came to kMaxSourceTotalBytes (the error says so). Never
// a file of /proc or a process's descriptor (/dev/stdout), whoever's data
// names it: that would be covkit's own process. A name under
// /proc/self/cwd (Bazel's builds record it as the compiler's directory) is
// read, as gcov reads it, from covkit's working directory, by that name.
Expected<FileData> read_source_file(const std::string& path);

// Runs the calling thread with `owner`'s file-system identity until the
// object goes (only when covkit is root; otherwise it changes nothing).
// Other threads keep theirs: the raw system calls change the calling
// thread's credentials only.
class ScopedFsIdentity {
 public:
  explicit ScopedFsIdentity(const DataOwner& owner);
  ~ScopedFsIdentity();
  ScopedFsIdentity(const ScopedFsIdentity&) = delete;
  ScopedFsIdentity& operator=(const ScopedFsIdentity&) = delete;
  bool switched() const { return switched_; }

 private:
  bool switched_ = false;
  uid_t fsuid_ = 0;
  gid_t fsgid_ = 0;
  std::vector<gid_t> groups_;
};

}  // namespace covkit::util
