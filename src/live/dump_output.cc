#include "live/dump_output.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "format/gcda_reader.h"
#include "live/object_names.h"
#include "live/proc_files.h"
#include "live/process_owner.h"
#include "live/test_pause.h"
#include "format/gcda_writer.h"
#include "model/data_merge.h"
#include "util/file_io.h"
#include "util/md5.h"
#include "util/output_path.h"
#include "util/printable.h"
#include "util/staged_tree.h"
#include "util/unique_fd.h"

namespace covkit::live {

namespace {

std::string slurp(const std::string& path) {
  auto text = read_proc_file(path);
  return text ? std::move(*text) : std::string();  // gone: nothing to tell
}

std::string as_text(const std::vector<uint8_t>& bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// libgcov's own handling of GCOV_PREFIX_STRIP: drop that many leading
// directories of an absolute name.
std::string strip_dirs(const std::string& name, int strip) {
  size_t at = 0;
  for (int i = 0; i < strip; ++i) {
    size_t next = name.find('/', at + 1);
    if (next == std::string::npos) break;
    at = next;
  }
  return name.substr(at);
}

// DIR found as util/output_path.h finds outputs (no link of another user on
// the way or as DIR), opened once for all the files a dump reads below it;
// no descriptor when there is no DIR yet (or a file in its way, which the
// write then names, and a --reset dump's rescue keeps what it read):
// nothing to add to.
Expected<util::UniqueFd> open_directory_root(const std::string& dir) {
  auto where = util::locate_output(dir, util::MissingParents::kError);
  if (!where) {
    if (where.error().errno_value == ENOENT || where.error().errno_value == ENOTDIR) return util::UniqueFd();
    return Error(fmt::format("{}: {}", dir, where.error().message));
  }
  util::UniqueFd root(::openat(where->parent.get(), where->name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!root.valid() && errno != ENOENT && errno != ENOTDIR) return Error(fmt::format("{}: {}", dir, std::strerror(errno)));
  return root;
}

// Reads REL below DIR's descriptor `root`, nothing through a link; nullopt
// when there is no such file.
Expected<std::optional<std::vector<uint8_t>>> read_below_root(const util::UniqueFd& root, const std::string& dir,
                                                              const std::string& rel) {
  using Bytes = std::optional<std::vector<uint8_t>>;
  if (!root.valid()) return Bytes();
  auto text = util::read_below(root.get(), rel, dir);
  if (!text) return text.error();
  if (!*text) return Bytes();
  return Bytes(std::vector<uint8_t>((*text)->begin(), (*text)->end()));
}

Expected<std::optional<std::vector<uint8_t>>> read_below(const std::string& dir, const std::string& rel) {
  auto root = open_directory_root(dir);
  if (!root) return root.error();
  return read_below_root(*root, dir, rel);
}

// Runs `body` with the file-system identity of the target's user when covkit
// is root and the target is not: files are created as theirs, and the
// kernel checks their rights, not root's, on every path component.
template <typename F>
auto as_user(const TargetPlace& place, F body) {
  bool switch_id = ::geteuid() == 0 && place.uid != 0;
  if (switch_id) {
    ::setfsgid(place.gid);
    ::setfsuid(place.uid);
  }
  auto result = body();
  if (switch_id) {
    ::setfsuid(0);
    ::setfsgid(0);
  }
  return result;
}

// mkdir -p of the parent of `path`, as libgcov does before it opens a file.
Expected<void> make_parents(const std::string& path) {
  for (size_t at = path.find('/', 1); at != std::string::npos; at = path.find('/', at + 1)) {
    std::string dir = path.substr(0, at);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
      return Error(fmt::format("{}: cannot create the directory: {}", dir, std::strerror(errno)));
  }
  return {};
}

Expected<std::optional<std::vector<uint8_t>>> read_existing(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::vector<uint8_t>>();
    return Error(fmt::format("{}: {}", path, std::strerror(errno)));
  }
  auto data = util::read_file(path);
  if (!data) return Error(fmt::format("{}: {}", path, data.error().message));
  return std::optional<std::vector<uint8_t>>(std::vector<uint8_t>(data->bytes().begin(), data->bytes().end()));
}

struct Planned {
  std::string where;  // -o: relative below DIR; else the absolute path
  std::vector<uint8_t> bytes;
  bool added = false, replaced = false;
};

// `encode`: the bytes too (a check before a --reset dump needs only to know
// that the file can be written).
Expected<Planned> plan_one(const std::optional<std::vector<uint8_t>>& existing, const format::DataFile& now,
                           const std::string& where, const std::string& shown, bool may_add, bool encode) {
  Planned p;
  p.where = where;
  if (!existing) {
    if (encode) p.bytes = format::write_data(now);
    return p;
  }
  if (!may_add)
    return Error(fmt::format("{}: exists; a dump without --reset holds everything the process did so far, so adding "
                             "it to this file could count that twice (use --reset, or a new -o directory)",
                             shown));
  auto merged = merge_like_libgcov(*existing, now, &p.replaced);
  if (!merged) return Error(fmt::format("{}: {}", shown, merged.error().message));
  p.added = !p.replaced;
  if (encode) p.bytes = format::write_data(*merged);
  return p;
}

}  // namespace

Expected<TargetPlace> target_place(pid_t pid) {
  TargetPlace place;
  struct stat st {};
  std::string proc = fmt::format("/proc/{}", pid);
  if (::stat(proc.c_str(), &st) != 0) return Error(fmt::format("no process {}", pid));
  // The real ids of the process (/proc/PID/status "Uid:" and "Gid:"). A
  // read can fail for a moment while the process is alive (its threads
  // coming and going, memory pressure; seen under ASan in CI): it is tried
  // again while /proc/PID is there.
  std::string status, why;
  auto field = [&](const char* name) -> std::optional<unsigned> {
    size_t at = status.find(name);
    if (at == std::string::npos) return std::nullopt;
    return unsigned(std::strtoul(status.c_str() + at + std::strlen(name), nullptr, 10));
  };
  std::optional<unsigned> uid, gid;
  for (int tries = 0; tries < 50; ++tries) {
    auto read = read_proc_file(proc + "/status");
    status = read ? std::move(*read) : std::string();
    why = read ? "no Uid/Gid lines" : read.error().message;
    uid = field("\nUid:");
    gid = field("\nGid:");
    if ((uid && gid) || ::stat(proc.c_str(), &st) != 0) break;
    ::usleep(1000);
  }
  if (!uid || !gid) {
    // The process exited between the stat and the read.
    Error e(fmt::format("no process {} (or it has exited: {}/status: {})", pid, proc, why));
    e.errno_value = ESRCH;
    return e;
  }
  place.uid = *uid;
  place.gid = *gid;
  note_process_data(pid);  // what is written of it is no more open than its memory
  char buf[4096];
  ssize_t n = ::readlink((proc + "/cwd").c_str(), buf, sizeof buf - 1);
  if (n > 0) place.cwd.assign(buf, size_t(n));
  std::string env = slurp(proc + "/environ");
  for (size_t at = 0; at < env.size();) {
    size_t end = env.find('\0', at);
    if (end == std::string::npos) end = env.size();
    std::string_view var(env.data() + at, end - at);
    if (var.starts_with("GCOV_PREFIX=")) place.gcov_prefix = std::string(var.substr(12));
    if (var.starts_with("GCOV_PREFIX_STRIP=")) place.gcov_prefix_strip = std::atoi(std::string(var.substr(18)).c_str());
    at = end + 1;
  }
  return place;
}

std::string program_path(const TargetPlace& place, const std::string& gcda) {
  if (gcda.empty() || gcda[0] != '/') return place.cwd + "/" + gcda;
  if (place.gcov_prefix.empty()) return gcda;
  return place.gcov_prefix + strip_dirs(gcda, place.gcov_prefix_strip);
}

Expected<std::string> path_below_directory(const TargetPlace& place, const std::string& gcda, AboveRoot above) {
  auto rel = relative_below_directory(place.cwd, gcda, above);
  if (!rel) return Error(fmt::format("{}: {}", util::printable(gcda), rel.error().message));
  return rel;
}

Expected<format::DataFile> merge_like_libgcov(std::span<const uint8_t> existing, const format::DataFile& now,
                                              bool* replaced) {
  *replaced = false;
  auto old = format::read_data(existing);
  if (!old) return Error("is not a .gcda file of this program (libgcov would not write it either)");
  if (old->error) return Error("is damaged (" + old->error->describe() + "); libgcov would not write it either");
  if (old->version.raw != now.version.raw)
    return Error(fmt::format("was written by GCC {} and the program's libgcov is GCC {}; libgcov would not write it",
                             old->version.gcc_version_string(), now.version.gcc_version_string()));
  // libgcov keeps a file of the same compilation and replaces another:
  // GCC 11 compares the stamp, GCC 12 the object's checksum (not the stamp).
  bool same = now.version.header_has_checksum() ? old->checksum == now.checksum : old->stamp == now.stamp;
  if (!same) {
    *replaced = true;
    return now;
  }
  format::DataFile base = std::move(*old);
  base.stamp = now.stamp;  // GCC 12 writes its own stamp
  auto sum = model::merge_data(base, now);
  if (!sum) return Error(sum.error().message + " (libgcov would refuse this merge too)");
  return std::move(*sum);
}

namespace {

// The plans of every file, before anything is written.
Expected<std::vector<Planned>> plan_dump(const std::map<std::string, format::DataFile>& files,
                                         const TargetPlace& place, const DumpTarget& target,
                                         std::vector<WrittenFile>& written, bool encode = true) {
  std::vector<Planned> plans;
  if (!target.directory.empty()) {
    auto root = open_directory_root(target.directory);
    if (!root) return root.error();
    for (const auto& [gcda, data] : files) {
      auto below = path_below_directory(place, gcda, target.rescue ? AboveRoot::kStayAtRoot : AboveRoot::kRefuse);
      if (!below) return below.error();
      const std::string& rel = *below;
      std::string shown = target.directory + "/" + rel;
      auto existing = read_below_root(*root, target.directory, rel);
      if (!existing) return existing.error();
      auto p = plan_one(*existing, data, rel, shown, target.may_add, encode);
      if (!p) return p.error();
      written.push_back({shown, p->added, p->replaced});
      plans.push_back(std::move(*p));
    }
    return plans;
  }
  // The program's own paths: every file is checked before the first write.
  auto planned = as_user(place, [&]() -> Expected<void> {
    for (const auto& [gcda, data] : files) {
      std::string path = program_path(place, gcda);
      auto existing = read_existing(path);
      if (!existing) return existing.error();
      auto p = plan_one(*existing, data, path, path, target.may_add, encode);
      if (!p) return p.error();
      written.push_back({path, p->added, p->replaced});
      plans.push_back(std::move(*p));
    }
    return {};
  });
  if (!planned) return planned.error();
  return plans;
}

// A journaled temporary file, complete (O_EXCL). One of the same name can
// only be left by a try of the same journal that died before the journal
// knew of it: removed, and made again (removed only then: a dump's own
// names are new, and an unlink per file cost a system call each).
// `bytes` from offset 0 of `fd`, which is then cut to their size; errno
// on failure.
int write_whole(int fd, const std::vector<uint8_t>& bytes, bool cut) {
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = ::pwrite(fd, bytes.data() + done, bytes.size() - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : ENOSPC;
    done += size_t(n);
  }
  if (cut && ::ftruncate(fd, off_t(bytes.size())) != 0) return errno;
  return 0;
}

// The spare a dump left (the file its exchange replaced) renamed to `temp`
// and written over: no inode made or freed. Its inode, or 0 when there is
// no usable spare (then `temp` does not exist). Used only when it is a
// plain file of one link that the dump's writer owns: a name planted there (a link, a FIFO, a hard
// link to another file) is left alone, and not even opened for writing
// (another user's FIFO would see a writer come, a device's driver would
// run): looked at through O_PATH, and opened through /proc/self/fd only
// when it is such a file (no /proc: no spare).
uint64_t reuse_spare(const std::string& spare, const std::string& temp, const std::vector<uint8_t>& bytes) {
  util::UniqueFd looked(::open(spare.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!looked.valid() || ::fstat(looked.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) return 0;
  // Only the writer's own file: another user's plain file planted at the
  // name would become the program's .gcda, theirs to read and rewrite.
  if (st.st_uid != uid_t(::setfsuid(uid_t(-1)))) return 0;
  util::UniqueFd fd(::open(fmt::format("/proc/self/fd/{}", looked.get()).c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) return 0;
  if (::rename(spare.c_str(), temp.c_str()) != 0) return 0;
  // The name still holds what was opened (else it is no one's spare).
  struct stat at {};
  if (::lstat(temp.c_str(), &at) != 0 || at.st_ino != st.st_ino || at.st_dev != st.st_dev) return 0;
  if (write_whole(fd.get(), bytes, size_t(st.st_size) > bytes.size()) != 0) {
    ::unlink(temp.c_str());
    return 0;
  }
  return uint64_t(st.st_ino);
}

// The staged file `temp` holding `bytes`, a spare reused when there is
// one; its inode.
// Whether spares pay in the directory `dir`: not on tmpfs, where making
// and freeing an inode costs less than the two renames that carry a spare
// (bench/live_dump_cpu.py --out /dev/shm: 8 ms a --reset dump without, 11
// with them).
bool spares_pay(const std::string& dir) {
  struct statfs fs {};
  return ::statfs(dir.empty() ? "/" : dir.c_str(), &fs) != 0 || fs.f_type != TMPFS_MAGIC;
}

// (`spare` empty: none is used.)
Expected<uint64_t> write_temp(const std::string& temp, const std::string& spare, const std::vector<uint8_t>& bytes) {
  if (!spare.empty())
    if (uint64_t inode = reuse_spare(spare, temp, bytes)) return inode;
  constexpr int kCreate = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::open(temp.c_str(), kCreate, 0666);
  if (fd < 0 && errno == EEXIST && ::unlink(temp.c_str()) == 0) fd = ::open(temp.c_str(), kCreate, 0666);
  if (fd < 0) return Error(fmt::format("{}: {}", temp, std::strerror(errno)));
  struct stat st {};
  int err = write_whole(fd, bytes, false);
  if (err == 0 && ::fstat(fd, &st) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(temp.c_str());
    return Error(fmt::format("{}: {}", temp, std::strerror(err)));
  }
  return uint64_t(st.st_ino);
}

// `temp` put at `path`: exchanged with the file there (kept as the spare)
// when that is a plain file, else renamed over what is there as before.
int put_in_place(const std::string& temp, const std::string& path, bool exchange) {
  struct stat st {};
  if (exchange && ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      ::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    // The target's former file now at `temp`: kept for the next dump (a
    // kill before this rename leaves it at `temp`, which the journal's
    // inode tells apart from the staged file: keep_as_spare).
    test_step_pause();
    if (::rename(temp.c_str(), spare_name(path).c_str()) != 0) ::unlink(temp.c_str());
    return 0;
  }
  // No file there, or a file system without exchanges (EINVAL): a rename.
  return ::rename(temp.c_str(), path.c_str()) == 0 ? 0 : errno;
}

Expected<void> write_own_paths(const std::vector<Planned>& plans, const TargetPlace& place) {
  return as_user(place, [&]() -> Expected<void> {
    for (const Planned& p : plans) {
      if (auto d = make_parents(p.where); !d) return d.error();
      if (auto w = util::write_file_atomic(p.where, as_text(p.bytes)); !w)
        return Error(fmt::format("{}: {}", p.where, w.error().message));
    }
    return {};
  });
}

}  // namespace

Expected<std::vector<WrittenFile>> write_dump(const std::map<std::string, format::DataFile>& files,
                                              const TargetPlace& place, const DumpTarget& target) {
  std::vector<WrittenFile> written;
  auto plans = plan_dump(files, place, target, written);
  if (!plans) return plans.error();
  if (!target.directory.empty()) {
    auto tree = util::StagedTree::begin(target.directory);
    if (!tree) return tree.error();
    for (const Planned& p : *plans)
      if (auto w = tree->write(p.where, as_text(p.bytes)); !w) return w.error();
    if (target.before_commit) {
      std::vector<std::pair<std::string, std::string>> sums;
      for (const Planned& p : *plans)
        sums.emplace_back(target.directory + "/" + p.where, util::md5_hex(as_text(p.bytes)));
      if (auto r = target.before_commit(sums); !r) return r.error();
    }
    if (auto c = tree->commit(); !c) return c.error();
    return written;
  }
  if (auto w = write_own_paths(*plans, place); !w) return w.error();
  return written;
}

Expected<std::vector<StagedOwnFile>> stage_own_files(const std::map<std::string, format::DataFile>& files,
                                                     const TargetPlace& place, bool may_add,
                                                     const std::string& suffix) {
  std::vector<WrittenFile> written;
  DumpTarget target;
  target.may_add = may_add;
  auto plans = plan_dump(files, place, target, written);
  if (!plans) return plans.error();
  std::vector<StagedOwnFile> staged;
  auto wrote = as_user(place, [&]() -> Expected<void> {
    std::string_view made;  // the last parent made: files of one directory follow each other
    bool spares = true;     // whether they pay there
    for (size_t i = 0; i < plans->size(); ++i) {
      const Planned& p = (*plans)[i];
      const std::string_view parent = std::string_view(p.where).substr(0, p.where.rfind('/') + 1);
      if (parent != made) {
        if (auto d = make_parents(p.where); !d) return d.error();
        made = parent;
        spares = spares_pay(std::string(parent));
      }
      std::string temp = p.where + suffix;
      auto inode = write_temp(temp, spares ? spare_name(p.where) : std::string(), p.bytes);
      if (!inode) return inode.error();
      staged.push_back({p.where, temp, *inode, spares, written[i]});
    }
    return {};
  });
  if (!wrote) {
    for (const StagedOwnFile& f : staged) remove_own_file(f.temp, place);
    return wrote.error();
  }
  return staged;
}

Expected<void> rename_own_files(const std::vector<StagedOwnFile>& staged, const TargetPlace& place) {
  return as_user(place, [&]() -> Expected<void> {
    for (const StagedOwnFile& f : staged) {
      if (int err = put_in_place(f.temp, f.path, f.exchange); err != 0)
        return Error(fmt::format("{}: {}", f.path, std::strerror(err)));
      test_step_pause();
    }
    return {};
  });
}

void remove_own_file(const std::string& path, const TargetPlace& place) {
  as_user(place, [&] { return ::unlink(path.c_str()); });
}

bool own_file_exists(const std::string& path, const TargetPlace& place) {
  return as_user(place, [&] {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
  });
}

std::string spare_name(const std::string& path) { return path + ".covkit-spare"; }

uint64_t own_file_inode(const std::string& path, const TargetPlace& place) {
  return as_user(place, [&] {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 ? uint64_t(st.st_ino) : uint64_t(0);
  });
}

void keep_as_spare(const std::string& temp, const std::string& path, const TargetPlace& place) {
  as_user(place, [&] {
    if (::rename(temp.c_str(), spare_name(path).c_str()) != 0) ::unlink(temp.c_str());
    return 0;
  });
}

Expected<std::optional<std::vector<uint8_t>>> read_below_directory(const std::string& dir, const std::string& rel) {
  return read_below(dir, rel);
}

Expected<void> check_dump_target(const std::map<std::string, format::DataFile>& files, const TargetPlace& place,
                                 const DumpTarget& target) {
  std::vector<WrittenFile> written;
  auto plans = plan_dump(files, place, target, written, false);
  if (!plans) return plans.error();
  return {};
}

}  // namespace covkit::live
