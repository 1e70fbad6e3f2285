#include "util/foreign_data.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <grp.h>
#include <pwd.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>

#include "util/output_path.h"
#include "util/unique_fd.h"

namespace covkit::util {

namespace {

constexpr gid_t kNoGroup = 65534;  // the kernel's overflow group: owns nothing
constexpr int kMaxGroups = 256;

std::atomic<mode_t> output_mask{07777};
std::atomic<uint64_t> source_bytes_read{0};

uint64_t source_total() {
  static const uint64_t total = [] {
    const char* text = std::getenv("COVKIT_TEST_SOURCE_TOTAL");
    return text && *text ? std::strtoull(text, nullptr, 10) : kMaxSourceTotalBytes;
  }();
  return total;
}

std::mutex& owners_mutex() {
  static std::mutex m;
  return m;
}

std::vector<DataOwner>& owners_list() {
  static std::vector<DataOwner> owners;
  return owners;
}

// The bits of an output `mode` (of covkit's user and group) that data of
// `owner` with permission bits `data` allows: others may read an output
// only when others could read the data; the group only when its members
// could, and it is covkit's own group.
mode_t mask_for(const DataOwner& owner, mode_t data) {
  mode_t mask = 07700;
  if (data & S_IROTH) mask |= 0077;
  else if ((data & S_IRGRP) && owner.gid == ::getegid()) mask |= 0070;
  return mask;
}

std::string owner_text(uid_t uid) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  char buf[1024];
  if (::getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found) return fmt::format("user {} ({})", uid, pw.pw_name);
  return fmt::format("user {}", uid);
}

bool can_take_identities() { return own_uid() == 0; }

// The owner of the first symbolic link among the directories on the way
// to `path`'s last component that neither root nor covkit's user owns:
// `merge ~alice/dirlink/tree` with dirlink a link of hers to a directory
// only root may read is her choice of files as much as a link to the file
// itself. Directories found clean are remembered (a tree's files share
// them; one lstat each, not one per file).
std::optional<uid_t> untrusted_link_on_the_way(const std::string& path) {
  static std::mutex mutex;
  static std::unordered_set<std::string> clean;
  for (size_t end = path.find('/', 1); end != std::string::npos; end = path.find('/', end + 1)) {
    const std::string dir = path.substr(0, end);
    if (dir.empty() || dir.ends_with('/')) continue;  // "//" in the name
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (clean.contains(dir)) continue;
    }
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) return std::nullopt;  // the open says why
    if (S_ISLNK(st.st_mode) && !trusted_link_owner(st.st_uid)) return st.st_uid;
    std::lock_guard<std::mutex> lock(mutex);
    if (clean.size() < 65536) clean.insert(dir);
  }
  return std::nullopt;
}

}  // namespace

DataOwner file_owner(uid_t uid) {
  DataOwner owner;
  owner.uid = uid;
  owner.gid = kNoGroup;
  struct passwd pw {};
  struct passwd* found = nullptr;
  char buf[4096];
  if (::getpwuid_r(uid, &pw, buf, sizeof buf, &found) != 0 || !found) return owner;
  owner.gid = pw.pw_gid;
  gid_t groups[kMaxGroups];
  int n = kMaxGroups;
  if (::getgrouplist(pw.pw_name, pw.pw_gid, groups, &n) >= 0) owner.groups.assign(groups, groups + n);
  return owner;
}

void note_foreign_data(const DataOwner& owner, mode_t mode) {
  if (owner.uid == own_uid()) return;
  output_mask.fetch_and(mask_for(owner, mode));
  std::lock_guard<std::mutex> lock(owners_mutex());
  auto& owners = owners_list();
  for (const DataOwner& o : owners)
    if (o == owner) return;
  owners.push_back(owner);
}

void note_data_file(const std::string& path, const FileData& data) {
  if (data.owner() != own_uid()) note_foreign_data(file_owner(data.owner()), data.mode());
  if (path == "-") return;  // standard input: read_file_or_stdin's owner, no link on the way
  // The kernel followed no link to it: a look at the name now (one lstat
  // per file and per directory on its way) could only see a link put
  // there since, which chose nothing that was read.
  if (data.opened_without_links()) return;
  if (std::optional<uid_t> linker = untrusted_link_on_the_way(path)) note_foreign_data(file_owner(*linker), 0600);
  // Reached through another user's link: that user chose the file, which
  // may be one they cannot read themselves.
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != own_uid())
    note_foreign_data(file_owner(st.st_uid), 0600);
}

uint64_t note_data_path(const std::string& path) {
  if (std::optional<uid_t> linker = untrusted_link_on_the_way(path)) note_foreign_data(file_owner(*linker), 0600);
  // One lstat for the usual plain file (`covkit gcov` notes every object's
  // two files before it reads any); a link's target is stat'ed too.
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 0;
  if (S_ISLNK(st.st_mode)) {
    if (st.st_uid != own_uid()) note_foreign_data(file_owner(st.st_uid), 0600);
    if (::stat(path.c_str(), &st) != 0) return 0;
  }
  if (st.st_uid != own_uid()) note_foreign_data(file_owner(st.st_uid), st.st_mode & 07777);
  return S_ISREG(st.st_mode) ? uint64_t(st.st_size) : 0;
}

mode_t output_mode_mask() {
  // A thread writing as another user (a program's own .gcda files, written
  // as their owner) makes that user's files: their mode is theirs to choose.
  if (uid_t(::setfsuid(uid_t(-1))) != own_uid()) return 07777;
  return output_mask.load();
}

std::vector<DataOwner> foreign_owners() {
  std::lock_guard<std::mutex> lock(owners_mutex());
  return owners_list();
}

ScopedFsIdentity::ScopedFsIdentity(const DataOwner& owner) {
  if (!can_take_identities()) return;
  fsuid_ = uid_t(::setfsuid(uid_t(-1)));  // an invalid id changes nothing and returns the current one
  fsgid_ = gid_t(::setfsgid(gid_t(-1)));
  gid_t current[kMaxGroups];
  const long n = ::syscall(SYS_getgroups, kMaxGroups, current);
  if (n < 0) return;
  groups_.assign(current, current + n);
  // Raw system calls: glibc's setgroups changes every thread of the process.
  if (::syscall(SYS_setgroups, owner.groups.size(), owner.groups.data()) != 0) return;
  ::setfsgid(owner.gid);
  ::setfsuid(owner.uid);
  switched_ = true;
}

ScopedFsIdentity::~ScopedFsIdentity() {
  if (!switched_) return;
  ::setfsuid(fsuid_);  // first: root's file-system capabilities come back with uid 0
  ::setfsgid(fsgid_);
  ::syscall(SYS_setgroups, groups_.size(), groups_.data());
}

namespace {

// The calling thread's file-system identity when it took another user's
// (the plan server asking as the process that asked it): that user must be
// able to open the file as well as every owner of the data.
std::optional<DataOwner> thread_identity() {
  const uid_t fsuid = uid_t(::setfsuid(uid_t(-1)));
  if (fsuid == own_uid()) return std::nullopt;
  DataOwner me;
  me.uid = fsuid;
  me.gid = gid_t(::setfsgid(gid_t(-1)));
  gid_t groups[kMaxGroups];
  const long n = ::syscall(SYS_getgroups, kMaxGroups, groups);
  if (n > 0) me.groups.assign(groups, groups + n);
  return me;
}

}  // namespace

namespace {
Expected<UniqueFd> open_input(const std::string& path, bool& without_links);
}  // namespace

// Says what FileData::opened_without_links says of a file read.
class InputFileOpening {
 public:
  static Expected<FileData> read(Expected<UniqueFd> fd, bool without_links, const std::string& path,
                                 size_t max_bytes) {
    if (!fd) return fd.error();
    Expected<FileData> data = read_open_file(fd->get(), path, max_bytes);
    if (data) data->opened_without_links_ = without_links;
    return data;
  }
};

namespace {

// open_named_file; `without_links` as open_input says.
Expected<UniqueFd> open_named(const std::string& path, bool& without_links) {
  without_links = false;
  std::vector<DataOwner> owners = foreign_owners();
  if (!can_take_identities()) return open_regular_file(path);
  // Data of covkit's own user names files in directories others may write
  // (root's build in a user's checkout, its sources swapped for that
  // user's links to root's files): opened as an input file is, another
  // user's link followed with that user's rights. (A thread that took
  // another user's rights opens with those alone.)
  if (owners.empty()) return thread_identity() ? open_regular_file(path) : open_input(path, without_links);
  if (std::optional<DataOwner> me = thread_identity()) owners.insert(owners.begin(), std::move(*me));
  UniqueFd fd;
  struct stat first {};
  for (const DataOwner& owner : owners) {
    Expected<UniqueFd> opened = Error("");
    {
      ScopedFsIdentity as(owner);
      if (!as.switched()) return Error("cannot take the rights of the data's owner to read it");
      opened = open_regular_file(path, NameSource::kData);
    }
    if (!opened) {
      Error e = opened.error();
      if (e.errno_value) e.message = fmt::format("{} for {}, whose data names it", e.message, owner_text(owner.uid));
      return e;
    }
    struct stat st {};
    if (::fstat(opened->get(), &st) != 0) return Error(std::strerror(errno));
    // Each owner must have opened the same file (a link changed in between
    // would let one owner's rights pick what another reads).
    if (fd.valid() && (st.st_dev != first.st_dev || st.st_ino != first.st_ino))
      return Error("changed while it was opened");
    if (!fd.valid()) {
      first = st;
      fd = std::move(*opened);
    }
  }
  return fd;
}

}  // namespace

Expected<UniqueFd> open_named_file(const std::string& path) {
  bool without_links = false;
  return open_named(path, without_links);
}

Expected<FileData> read_named_file(const std::string& path, size_t max_bytes) {
  bool without_links = false;
  auto fd = open_named(path, without_links);
  return InputFileOpening::read(std::move(fd), without_links, path, max_bytes);
}

namespace {

// The plain file `at` (an O_PATH descriptor, `st` its stat) opened for
// reading through /proc/self/fd; without /proc (a chroot) by its name with
// O_NOFOLLOW, and only if that is the same file.
Expected<UniqueFd> reopen_looked_at(const UniqueFd& at, const struct stat& st, const std::string& path) {
  UniqueFd fd(::open(fmt::format("/proc/self/fd/{}", at.get()).c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (fd.valid()) return fd;
  if (errno != ENOENT || ::access("/proc/self/fd", F_OK) == 0) return errno_error();
  fd.reset(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) return errno_error();
  struct stat again {};
  if (::fstat(fd.get(), &again) != 0 || again.st_dev != st.st_dev || again.st_ino != st.st_ino)
    return Error("changed while it was opened");
  return fd;
}

// `path` opened with the rights of `linker`, whose symbolic link (`whose`
// says where: at its end or on its way) chose the file; a refusal says so.
Expected<UniqueFd> open_as_link_owner(const std::string& path, uid_t linker, std::string_view whose) {
  Expected<UniqueFd> fd = Error("");
  {
    ScopedFsIdentity as(file_owner(linker));
    if (!as.switched()) return Error("cannot take the rights of the symbolic link's owner to read it");
    fd = open_regular_file(path);
  }
  if (!fd && fd.error().errno_value) {
    Error e = fd.error();
    e.message = fmt::format("{} for {}, whose symbolic link {}", e.message, owner_text(linker), whose);
    return e;
  }
  return fd;
}

// `path` opened O_PATH with no symbolic link followed anywhere on it (the
// kernel refuses one with ELOOP): what is opened is what the name leads to
// with no link another user could have put on the way since any look.
int open_without_links(const std::string& path) {
  open_how how {};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS;
  return int(::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how));
}

// The names of covkit's own descriptors (`<(zcat cov.info.gz)`, `/dev/stdin
// < file`): the caller's choice, opened as any name the caller gives.
bool names_own_descriptor(const std::string& path) {
  return path == "/dev/stdin" || path.starts_with("/dev/fd/") || path.starts_with("/proc/self/fd/");
}

// The descriptor named by `path` when it is a link of covkit's own (root's
// or its user's) to one of covkit's descriptors, in a directory reached
// without links: live report names the files a process maps so
// (/proc/self/fd/N, in its private directory). Such a link in /proc leads
// to the file itself, and its text is no path to walk (a deleted or moved
// file's old name). The owner and text are those of the link held open.
std::optional<std::string> own_descriptor_link(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty()) return std::nullopt;
  UniqueFd parent(open_without_links(dir));
  if (!parent.valid()) return std::nullopt;
  UniqueFd link(::openat(parent.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!link.valid() || ::fstat(link.get(), &st) != 0 || !S_ISLNK(st.st_mode) || !trusted_link_owner(st.st_uid))
    return std::nullopt;
  char text[64];
  const ssize_t n = ::readlinkat(link.get(), "", text, sizeof text);
  if (n <= 0 || size_t(n) >= sizeof text) return std::nullopt;
  std::string target(text, size_t(n));
  if (!names_own_descriptor(target)) return std::nullopt;
  return target;
}

// open_input_file; `without_links`: the kernel opened the name without
// following any symbolic link on it (RESOLVE_NO_SYMLINKS), the usual case.
Expected<UniqueFd> open_input(const std::string& path, bool& without_links) {
  without_links = false;
  if (!can_take_identities() || names_own_descriptor(path)) return open_regular_file(path);
  test_stop_point("input");
  // Looked at and opened in one step: no link is followed (the usual case,
  // one system call), or the name is walked a component at a time from a
  // held directory (locate_output), following only links of root's or
  // covkit's user's. Once, the directories were looked at (lstat) and the
  // file then opened by its name: a directory another user swapped for a
  // link in between was followed with root's rights.
  UniqueFd at(open_without_links(path));
  const bool walked_without_links = at.valid();
  if (!at.valid() && (errno == ELOOP || errno == ENOSYS)) {
    if (auto own = own_descriptor_link(path)) return open_regular_file(*own);
    std::optional<UntrustedLink> untrusted;
    auto where = locate_output(path, MissingParents::kError, &untrusted);
    if (untrusted) return open_as_link_owner(path, untrusted->owner, untrusted->last ? "it is" : "is on its way");
    if (!where) {
      if (!where.error().errno_value) return where.error();
      errno = where.error().errno_value;
      return errno_error();
    }
    at.reset(::openat(where->parent.get(), where->name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  }
  struct stat st {};
  if (!at.valid() || ::fstat(at.get(), &st) != 0) return errno_error();
  if (S_ISREG(st.st_mode)) {
    without_links = walked_without_links;
    return reopen_looked_at(at, st, path);
  }
  if (!S_ISLNK(st.st_mode)) return Error("not a regular file");
  // A link put at the name after the walk looked.
  if (trusted_link_owner(st.st_uid)) return Error("changed while it was opened");
  return open_as_link_owner(path, st.st_uid, "it is");
}

}  // namespace

Expected<UniqueFd> open_input_file(const std::string& path) {
  bool without_links = false;
  return open_input(path, without_links);
}

Expected<FileData> read_input_file(const std::string& path, size_t max_bytes) {
  bool without_links = false;
  auto fd = open_input(path, without_links);
  return InputFileOpening::read(std::move(fd), without_links, path, max_bytes);
}

Expected<FileData> read_input_file_or_stdin(const std::string& path) {
  if (path == "-") return read_file_or_stdin(path);
  return read_input_file(path);
}

namespace {

// A source named under /proc/self/cwd (Bazel runs the compiler with
// PWD=/proc/self/cwd, so gcc records that as the notes' directory) is, as
// gcov opens it, the file of that name in covkit's working directory: said
// so without the process's link, which the checks below refuse, and then
// checked as any other name (data may name that directory's files as
// plainly with an absolute name).
std::string without_own_cwd_link(const std::string& path) {
  static constexpr std::string_view kLink = "/proc/self/cwd";
  if (!path.starts_with(kLink) || (path.size() > kLink.size() && path[kLink.size()] != '/')) return path;
  char cwd[PATH_MAX];
  if (!::getcwd(cwd, sizeof cwd)) return path;
  std::string rest = path.substr(kLink.size());
  return rest.empty() ? std::string(cwd) : (std::string_view(cwd) == "/" ? rest : cwd + rest);
}

}  // namespace

Expected<FileData> read_source_file(const std::string& named) {
  const std::string path = without_own_cwd_link(named);
  // Never covkit's own process, whoever's data names it: root's build of
  // another user's checkout (`#line 1 "/proc/self/environ"` in a source of
  // theirs) made root's own notes name covkit's environment, command line
  // or standard output (/dev/stdout), copied into the report. open_named
  // refuses these only for another user's data; looked at first, and the
  // file opened checked again (a name changed in between leads elsewhere).
  if (auto refused = refuse_process_names(path); !refused) return refused.error();
  auto fd = open_named_file(path);
  if (!fd) return fd.error();
  if (auto refused = refuse_proc_file(fd->get()); !refused) return refused.error();
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return Error(std::strerror(errno));
  // Charged before it is read (one larger than kMaxSourceBytes is refused
  // unread below; one that grows while read stops there).
  const uint64_t size = uint64_t(st.st_size);
  if (size <= kMaxSourceBytes && source_bytes_read.fetch_add(size) + size > source_total())
    return Error(fmt::format("the sources covkit read in this run came to {} MiB, its total for them", source_total() >> 20));
  return read_open_file(fd->get(), path, kMaxSourceBytes);
}

}  // namespace covkit::util
