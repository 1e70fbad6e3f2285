#pragma once
// Whole-file reads and all-or-nothing writes. A file read is mapped when it
// is large (its bytes cost page cache, not heap: a 3 GB .gcda no longer takes
// 3 GB of memory) and copied when small. An output file is either the
// complete new content or untouched, never half written (full disk included).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <sys/stat.h>
#include <sys/types.h>

#include "util/default_init_allocator.h"
#include "util/expected.h"
#include "util/unique_fd.h"

namespace covkit::util {

// covkit's effective user id, asked of the kernel once: covkit never changes
// it (a thread that reads as another user changes its file-system ids,
// setfsuid, not this). A report looks at it for every file it reads.
uid_t own_uid();

// Whether nobody but covkit's own user can change the file `st` describes
// (its owner, without group or other write permission): only such a file
// may be mapped. A mapping shows the owner's later writes, and their
// truncating it while covkit reads turns the next read into SIGBUS.
bool only_ours(const struct stat& st);

class InputFileOpening;

// A regular file's (or standard input's) bytes, owned: a mapping (see
// mapped_file.h) or a copy.
class FileData {
 public:
  FileData() = default;
  FileData(FileData&& o) noexcept;
  FileData& operator=(FileData&& o) noexcept;
  FileData(const FileData&) = delete;
  FileData& operator=(const FileData&) = delete;
  ~FileData();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  std::string_view text() const { return {reinterpret_cast<const char*>(data_), size_}; }
  int64_t mtime() const { return mtime_; }  // seconds, as stat reports
  // The file's owner, group and permission bits (those of the file opened;
  // for standard input, those of the file or named pipe it comes from, else
  // covkit's own user with no bits).
  uid_t owner() const { return owner_; }
  gid_t group() const { return group_; }
  mode_t mode() const { return mode_; }
  // Opened by a name with no symbolic link anywhere on it (the kernel
  // refused any: read_input_file's usual way as root); no link chose it.
  bool opened_without_links() const { return opened_without_links_; }

 private:
  friend class InputFileOpening;
  friend Expected<FileData> read_file_or_stdin(const std::string& path);
  friend Expected<FileData> read_open_file(int fd, const std::string& path, size_t max_bytes);
  // `fd` read to its end into out's copy (`size_hint`: the bytes expected),
  // or until more than `max_bytes` were read.
  static Expected<void> read_to_end(int fd, size_t size_hint, FileData& out, size_t max_bytes = SIZE_MAX);
  void release();
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  int64_t mtime_ = 0;
  uid_t owner_ = 0;
  gid_t group_ = 0;
  mode_t mode_ = 0;
  // Small files; resized without zeroing (each read overwrites what it adds).
  std::vector<uint8_t, DefaultInitAllocator<uint8_t>> copy_;
  int mapping_slot_ = -1;      // large files: a registered mapping
  bool opened_without_links_ = false;
};

// `path` opened for reading when it is a regular file, and never opened
// otherwise: it is looked at without being opened (O_PATH), then reopened
// through /proc/self/fd. Opening a device runs its driver (a serial line's
// modem lines rise, a watchdog starts its count to a reboot, a tape
// rewinds) and opening a FIFO lets its writer go on; a name in a tree
// another user can write may be either, and covkit opens it as root.
// Errors: "not a regular file", or the system's reason.
//
// A name read from data (NameSource::kData) may not lead into /proc: a
// notes file naming /proc/self/cmdline or /proc/self/maps as its source, or
// /proc/self/fd/N or /dev/stdin, would have covkit copy its own process's
// into a report (/proc/self is covkit, whoever's rights it reads with, and
// a descriptor's link skips the directories' rights on the way).
enum class NameSource { kCaller, kData };
// The Error of the system call that just failed: strerror(errno), errno kept.
Error errno_error();

Expected<UniqueFd> open_regular_file(const std::string& path, NameSource source = NameSource::kCaller);
// What NameSource::kData refuses, asked of `path` without opening it (an
// O_PATH look): a name into /proc or through a process's descriptor link is
// an error saying so; any other name (one that cannot be looked at too:
// its opening says why) passes.
Expected<void> refuse_process_names(const std::string& path);
// An error saying why when `fd` is a file of /proc (no data may name one:
// /proc/self is covkit's own process).
Expected<void> refuse_proc_file(int fd);

// Only regular files are read (open_regular_file): devices never end and
// FIFOs block (a hostile notes file may name either as its source). The
// error's message is the reason ("Permission denied", "not a regular file").
// At most `max_bytes`: a larger file (by its size, or by what reading it
// gives: it may grow while it is read) is an error saying so.
Expected<FileData> read_file(const std::string& path, size_t max_bytes = SIZE_MAX);
// The same of a file already open (`fd` stays open; `path` names it in
// messages of the mapping's guard).
Expected<FileData> read_open_file(int fd, const std::string& path, size_t max_bytes = SIZE_MAX);

// The first `max` bytes of the regular file at `path` (all of it when
// shorter), to tell a file's kind or stamp without reading it whole. As
// read_file, only regular files: a FIFO planted under a data file's name
// (a build tree another user can write) must not hang covkit on its open.
Expected<std::string> read_file_head(const std::string& path, size_t max);

// A command's input: the file at `path` as read_file reads it, or standard
// input to its end when `path` is "-" (held in memory: a pipe cannot be
// mapped).
Expected<FileData> read_file_or_stdin(const std::string& path);

// Why a write failed: gcov words "could not open" and "error writing" apart.
enum class WriteStage { kOpen, kWrite };
struct WriteError : Error {
  WriteStage stage = WriteStage::kOpen;
  WriteError(WriteStage s, std::string m) : Error(std::move(m)), stage(s) {}
};

// Writes to a temporary file beside `path`, then renames it over `path`
// (util::AtomicOutput; a device or FIFO is written through). Several files
// all or nothing: util::StagedTree.
Expected<void, WriteError> write_file_atomic(const std::string& path, std::string_view content);

// A command's output: write_file_atomic's, or standard output when `path`
// is "-", as lcov's `-o -` and gcovr's `--xml -` take it (a file named "-"
// is ./-).
Expected<void, WriteError> write_file_or_stdout(const std::string& path, std::string_view content);

std::optional<int64_t> file_mtime(const std::string& path);
bool is_directory(const std::string& path);

// Why creating a file or directory in `dir` failed with errno `err`:
// strerror(err), unless `dir` is in one of the kernel's own file systems
// (proc, sysfs, cgroup, debugfs...), which refuse every new name with an
// errno that misleads ("No such file or directory" for /proc/version's
// temporary file beside it, "Operation not permitted" in /sys, even for
// root): then "/proc is in the kernel's proc file system, where no file
// can be created".
std::string creation_failure(const std::string& dir, int err);

}  // namespace covkit::util
