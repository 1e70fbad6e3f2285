#include "util/file_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "util/atomic_output.h"
#include "util/mapped_file.h"
#include "util/terminal_text.h"

namespace covkit::util {

uid_t own_uid() {
  static const uid_t uid = ::geteuid();
  return uid;
}

bool only_ours(const struct stat& st) { return st.st_uid == own_uid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0; }

namespace {

// Files at least this large are mapped: below it a copy is cheaper than the
// mapping's system calls and page faults.
constexpr size_t kMapAtLeast = size_t(1) << 16;

// One spent copy per thread, whose capacity the thread's next read of a
// small file reuses: a run reads its notes, data and sources one after the
// other, and fresh pages for each (zeroed, faulted in) were a fifth of the
// page faults of `covkit gcov` on jsoncpp. The flag is trivially
// destructible, so it can still be read once the buffer itself is gone
// (a FileData freed by the thread's exit or a static's destructor).
thread_local bool spare_copy_gone = false;
struct SpareCopy {
  std::vector<uint8_t, DefaultInitAllocator<uint8_t>> bytes;
  ~SpareCopy() { spare_copy_gone = true; }
};
thread_local SpareCopy spare_copy;

}  // namespace

Error errno_error() {
  const int err = errno;
  // ENOENT's text without strerror: a missing .gcda is how every object
  // that never ran looks, and its error is not shown (gcov's own message
  // is); strerror's look-up in the message catalogue touched three pages
  // of libc, ~4 us of `covkit gcov` on such an object. covkit never sets
  // a locale, so strerror's text is this one.
  Error e(err == ENOENT ? "No such file or directory" : std::strerror(err));
  e.errno_value = err;
  return e;
}

FileData::FileData(FileData&& o) noexcept { *this = std::move(o); }

FileData& FileData::operator=(FileData&& o) noexcept {
  if (this == &o) return *this;
  release();
  copy_ = std::move(o.copy_);
  mapping_slot_ = o.mapping_slot_;
  size_ = o.size_;
  mtime_ = o.mtime_;
  owner_ = o.owner_;
  group_ = o.group_;
  mode_ = o.mode_;
  opened_without_links_ = o.opened_without_links_;
  data_ = mapping_slot_ >= 0 ? o.data_ : copy_.data();
  o.mapping_slot_ = -1;
  o.data_ = nullptr;
  o.size_ = 0;
  return *this;
}

FileData::~FileData() {
  release();
  if (copy_.capacity() > 0 && !spare_copy_gone && copy_.capacity() > spare_copy.bytes.capacity()) {
    copy_.clear();
    spare_copy.bytes.swap(copy_);
  }
}

void FileData::release() {
  if (mapping_slot_ >= 0) unmap_file(Mapping{data_, size_, mapping_slot_});
  mapping_slot_ = -1;
}

namespace {

// `path` opened O_PATH; from data, without following /proc's links to what
// a process holds (its descriptors, cwd, root, exe): `magic` says when one
// was refused.
int open_path_only(const std::string& path, NameSource source, bool& magic) {
  magic = false;
  if (source == NameSource::kData) {
    open_how how {};
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_NO_MAGICLINKS;
    const int fd = int(::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how));
    if (fd < 0 && errno == ELOOP) {
      // A process's link, or links in a loop: only the former opens without.
      UniqueFd plain(::open(path.c_str(), O_PATH | O_CLOEXEC));
      magic = plain.valid();
      errno = ELOOP;
    }
    if (fd >= 0 || errno != ENOSYS) return fd;
    // A kernel before 5.6: the usual names refused.
    magic = path.starts_with("/proc/") || path.starts_with("/dev/fd/") || path.starts_with("/dev/std");
    if (magic) return -1;
  }
  return ::open(path.c_str(), O_PATH | O_CLOEXEC);
}

const char kMagicLinkRefused[] = "a link to a process's open files in /proc, which no data may name";

}  // namespace

Expected<void> refuse_proc_file(int fd) {
  struct statfs fs {};
  if (::fstatfs(fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC)
    return Error("in /proc, where /proc/self is covkit's own process: no data may name it");
  return {};
}

Expected<void> refuse_process_names(const std::string& path) {
  bool magic = false;
  UniqueFd at(open_path_only(path, NameSource::kData, magic));
  if (magic) return Error(kMagicLinkRefused);
  if (at.valid()) return refuse_proc_file(at.get());
  return {};
}

Expected<UniqueFd> open_regular_file(const std::string& path, NameSource source) {
  bool magic = false;
  UniqueFd at(open_path_only(path, source, magic));
  if (magic) return Error(kMagicLinkRefused);
  if (!at.valid()) return errno_error();
  struct stat st {};
  if (::fstat(at.get(), &st) != 0) return errno_error();
  if (!S_ISREG(st.st_mode)) return Error("not a regular file");
  if (source == NameSource::kData)
    if (auto refused = refuse_proc_file(at.get()); !refused) return refused.error();
  // The file looked at, not whatever its name leads to now; the kernel
  // checks the rights to read it as for any open.
  const std::string self = fmt::format("/proc/self/fd/{}", at.get());
  UniqueFd fd(::open(self.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid() && errno == ENOENT && ::access("/proc/self/fd", F_OK) != 0) {
    // No /proc (a chroot): by its name again, and the same file, or none.
    fd.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    struct stat again {};
    if (fd.valid() && (::fstat(fd.get(), &again) != 0 || again.st_dev != st.st_dev || again.st_ino != st.st_ino))
      return Error("changed while it was opened");
  }
  if (!fd.valid()) return errno_error();
  return fd;
}

Expected<FileData> read_file(const std::string& path, size_t max_bytes) {
  auto fd = open_regular_file(path);
  if (!fd) return fd.error();
  return read_open_file(fd->get(), path, max_bytes);
}

namespace {

Error too_large_to_read(size_t max_bytes) {
  return Error(fmt::format("larger than {} MiB, covkit's limit for it", max_bytes >> 20));
}

}  // namespace

Expected<FileData> read_open_file(int fd, const std::string& path, size_t max_bytes) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno_error();
  if (!S_ISREG(st.st_mode)) return Error("not a regular file");
  if (uint64_t(st.st_size) > max_bytes) return too_large_to_read(max_bytes);
  FileData out;
  out.mtime_ = st.st_mtime;
  out.owner_ = st.st_uid;
  out.group_ = st.st_gid;
  out.mode_ = st.st_mode & 07777;
  const size_t size = size_t(st.st_size);
  // Only a file that nobody but covkit's own user can change is mapped: a
  // user who cuts their file short while covkit reads it would end covkit's
  // whole run (SIGBUS; a report over many users' trees, as root), and a
  // mapping shows the owner's later writes to a parser that already checked
  // the bytes. A copy does neither.
  if (size >= kMapAtLeast && only_ours(st)) {
    Mapping m = map_file(fd, size, path);
    if (m.slot >= 0) {
      out.data_ = m.data;
      out.size_ = m.size;
      out.mapping_slot_ = m.slot;
      return out;
    }
  }
  // Read to the end, not to st_size: a file may grow while it is read
  // (up to the limit: one that goes on growing is no source).
  if (auto ok = FileData::read_to_end(fd, size, out, max_bytes); !ok) return ok.error();
  if (out.size_ > max_bytes) return too_large_to_read(max_bytes);
  return out;
}

Expected<std::string> read_file_head(const std::string& path, size_t max) {
  auto fd = open_regular_file(path);
  if (!fd) return fd.error();
  std::string out(max, '\0');
  size_t used = 0;
  while (used < max) {
    const ssize_t n = ::read(fd->get(), out.data() + used, max - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error();
    if (n == 0) break;
    used += size_t(n);
  }
  out.resize(used);
  return out;
}

Expected<FileData> read_file_or_stdin(const std::string& path) {
  if (path != "-") return read_file(path);
  FileData out;
  // Standard input redirected from a file (or a named pipe) holds the data
  // of whoever owns that file: `covkit ... - < ~alice/data` is alice's data
  // as much as naming the file is. A terminal, or a pipe covkit's caller
  // made, is the caller's own.
  struct stat st {};
  out.owner_ = own_uid();
  if (::fstat(STDIN_FILENO, &st) == 0 && (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
    out.owner_ = st.st_uid;
    out.group_ = st.st_gid;
    out.mode_ = st.st_mode & 07777;
  }
  if (auto ok = FileData::read_to_end(STDIN_FILENO, 0, out); !ok) return ok.error();
  return out;
}

Expected<void> FileData::read_to_end(int fd, size_t size_hint, FileData& out, size_t max_bytes) {
  if (out.copy_.capacity() == 0 && !spare_copy_gone) out.copy_.swap(spare_copy.bytes);
  out.copy_.clear();
  out.copy_.resize(size_hint > 0 ? size_hint : 4096);
  bool grew = false;  // doubled past what was there: shrunk to the bytes read at the end
  size_t used = 0;
  while (true) {
    if (used == out.copy_.size()) {
      if (used > max_bytes) break;  // past the caller's limit: the caller says so
      // Full, as after reading a file of the size stat gave: a small read
      // tells whether it goes on before the buffer grows. Doubling at once
      // and shrinking after copied and touched every file thrice. (No
      // resize here zeroes: the allocator leaves the bytes it adds as they
      // are, for the reads to overwrite.)
      uint8_t probe[4096];
      ssize_t n = ::read(fd, probe, sizeof probe);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno_error();
      if (n == 0) break;
      out.copy_.reserve(out.copy_.size() * 2);
      grew = true;
      out.copy_.insert(out.copy_.end(), probe, probe + n);
      used += size_t(n);
      out.copy_.resize(out.copy_.capacity());
      continue;
    }
    ssize_t n = ::read(fd, out.copy_.data() + used, out.copy_.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error();
    if (n == 0) break;
    used += size_t(n);
  }
  out.copy_.resize(used);
  if (grew && out.copy_.capacity() - used > 4096) out.copy_.shrink_to_fit();
  out.data_ = out.copy_.data();
  out.size_ = used;
  return {};
}

Expected<void, WriteError> write_file_atomic(const std::string& path, std::string_view content) {
  auto out = AtomicOutput::open(path);
  if (!out) {
    WriteError e(WriteStage::kOpen, out.error().message);
    e.errno_value = out.error().errno_value;  // 0: covkit's own refusal (a link it does not follow)
    return e;
  }
  out->write(content);
  if (auto c = out->commit(); !c) return WriteError(WriteStage::kWrite, c.error().message);
  return {};
}

Expected<void, WriteError> write_file_or_stdout(const std::string& path, std::string_view content) {
  if (path != "-") return write_file_atomic(path, content);
  // Flushed now, so that a failure is this output's, said by its caller;
  // the stream's error flag is then cleared so that it is said once, not
  // again when the command ends (cli::checked_stdout).
  // On a terminal, other users' names and sources cannot act (terminal_text.h).
  if (write_for_terminal(stdout, content) == content.size() && std::fflush(stdout) == 0) return {};
  const int e = errno;
  std::clearerr(stdout);
  return WriteError(WriteStage::kWrite, std::strerror(e));
}

std::optional<int64_t> file_mtime(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return int64_t(st.st_mtime);
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

namespace {

// The name of the kernel's file system with magic number `type` in which no
// user file can be created, or nullptr.
const char* kernel_file_system(decltype(statfs::f_type) type) {
  switch (type) {
    case PROC_SUPER_MAGIC: return "proc";
    case SYSFS_MAGIC: return "sysfs";
    case CGROUP_SUPER_MAGIC: return "cgroup";
    case CGROUP2_SUPER_MAGIC: return "cgroup2";
    case DEBUGFS_MAGIC: return "debugfs";
    case TRACEFS_MAGIC: return "tracefs";
    case SECURITYFS_MAGIC: return "securityfs";
    case BPF_FS_MAGIC: return "bpf";
    case PSTOREFS_MAGIC: return "pstore";
    case EFIVARFS_MAGIC: return "efivarfs";
    case DEVPTS_SUPER_MAGIC: return "devpts";
    default: return nullptr;
  }
}

}  // namespace

std::string creation_failure(const std::string& dir, int err) {
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) == 0)
    if (const char* kernel = kernel_file_system(fs.f_type))
      return fmt::format("{} is in the kernel's {} file system, where no file can be created", dir, kernel);
  return std::strerror(err);
}

}  // namespace covkit::util
