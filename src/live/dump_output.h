#pragma once
// Where a dump's .gcda files go and what they hold there.
//
// Under `-o DIR` each file goes to DIR/<its absolute name>, as GCOV_PREFIX=DIR
// would place it, the whole set committed at once (util::StagedTree: all or
// nothing, never through a symbolic link). Without -o, each file goes where
// the program itself would write it (its GCOV_PREFIX and GCOV_PREFIX_STRIP,
// its working directory for a relative name), written as the program's own
// user (so the program can still update it when it exits, and so a
// symbolic link planted in its directories gets no more than that user's
// rights), each file atomically.
//
// An existing file is added to as libgcov adds to it (merge_like_libgcov);
// the caller decides whether adding is allowed (a dump without --reset holds
// everything the process did so far, so adding it to a file that may already
// hold part of that would count it twice).
#include <sys/types.h>

#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "format/gcda.h"
#include "live/object_names.h"
#include "util/expected.h"

namespace covkit::live {

// What of the target's identity and environment decides file placement.
struct TargetPlace {
  uid_t uid = 0;
  gid_t gid = 0;
  std::string cwd;           // its working directory (for relative names)
  std::string gcov_prefix;   // GCOV_PREFIX of its environment, if any
  int gcov_prefix_strip = 0;
};

Expected<TargetPlace> target_place(pid_t pid);

// The path libgcov in the target would open for `gcda`.
std::string program_path(const TargetPlace& place, const std::string& gcda);
// The path below DIR for `gcda`: its absolute name without the leading '/',
// "." and ".." resolved (live/object_names.h); an error when it would leave DIR
// (unless `above` keeps such a ".." at the root).
Expected<std::string> path_below_directory(const TargetPlace& place, const std::string& gcda,
                                           AboveRoot above = AboveRoot::kRefuse);

// `existing` + `now` as libgcov's merge at dump time does it: counters and
// runs add; a file of another compilation (GCC 11: another stamp; GCC 12:
// another checksum) is replaced, with `*replaced` set; a file that is no
// .gcda, of another GCC version, or whose functions do not match is an error
// (libgcov leaves such a file alone and writes nothing).
Expected<format::DataFile> merge_like_libgcov(std::span<const uint8_t> existing, const format::DataFile& now,
                                              bool* replaced);

struct DumpTarget {
  std::string directory;   // -o DIR; empty: the program's own paths
  bool may_add = true;     // existing files may be added to (else: refused)
  // Under -o: told every file (its path and MD5) before the new tree is
  // swapped in (a --reset dump's journal, dump_journal.h).
  std::function<Expected<void>(const std::vector<std::pair<std::string, std::string>>& path_md5)> before_commit;
  // A rescue of what could not be written where it belongs (a fresh private
  // directory): every name must find a place, so a ".." above the root stays
  // at the root, where the program's own write went.
  bool rescue = false;
};

struct WrittenFile {
  std::string path;   // as shown to the user
  bool added = false;  // added to an existing file
  bool replaced = false;  // an existing file of another compilation was replaced
};

// Writes every file or none (under -o; without -o every file is computed
// and checked first, then written one by one, each atomically).
Expected<std::vector<WrittenFile>> write_dump(const std::map<std::string, format::DataFile>& files,
                                              const TargetPlace& place, const DumpTarget& target);
// The program's own files of a --reset dump, in two steps, so that its
// journal can tell later which are in place: each is planned (added to what
// is there) and written complete as `<path><suffix>` beside its target, as
// the program's user; then, once the journal knows (with the staged file's
// inode), each is exchanged with its target (renameat2 RENAME_EXCHANGE,
// atomic as a rename) and the file it replaced is kept as
// `<path>.covkit-spare`, which the next dump writes over and stages again.
// So a dump after the first neither makes nor frees an inode: on ext4 the
// inode a rename over a file frees is what made the next dump's new files
// costly (a journal-less ext4 steps over every inode freed in the last
// minute to allocate one, frees the replaced one's blocks, and starts the
// writeback of a file renamed over another: most of a dump's CPU). Not on
// tmpfs, where an inode costs less than the renames a spare takes.
struct StagedOwnFile {
  std::string path, temp;
  uint64_t inode = 0;  // of the staged file: at `temp` until exchanged
  bool exchange = true;  // false on tmpfs: renamed over the target, no spare
  WrittenFile shown;
};
Expected<std::vector<StagedOwnFile>> stage_own_files(const std::map<std::string, format::DataFile>& files,
                                                     const TargetPlace& place, bool may_add,
                                                     const std::string& suffix);
Expected<void> rename_own_files(const std::vector<StagedOwnFile>& staged, const TargetPlace& place);
// The name the file a dump replaced is kept under, for the next dump.
std::string spare_name(const std::string& path);
// Removes `path` (a temporary file), as the program's user.
void remove_own_file(const std::string& path, const TargetPlace& place);
bool own_file_exists(const std::string& path, const TargetPlace& place);
// The inode of the file at `path` (never followed), as the program's user;
// 0 when there is none.
uint64_t own_file_inode(const std::string& path, const TargetPlace& place);
// After a kill between an exchange and the spare's rename: the file the
// exchange put at `temp` (the target's former content) becomes the spare.
void keep_as_spare(const std::string& temp, const std::string& path, const TargetPlace& place);

// DIR/REL's bytes, never through a symbolic link below DIR; nullopt when
// there is no such file.
Expected<std::optional<std::vector<uint8_t>>> read_below_directory(const std::string& dir, const std::string& rel);

// Everything write_dump checks before it writes (existing files readable and
// of this program, no symbolic link in the way), without writing: a --reset
// dump asks before it resets anything.
Expected<void> check_dump_target(const std::map<std::string, format::DataFile>& files, const TargetPlace& place,
                                 const DumpTarget& target);

}  // namespace covkit::live
