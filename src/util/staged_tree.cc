#include "util/staged_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/output_path.h"
#include "util/printable.h"

namespace covkit::util {

namespace {

constexpr int kMaxMirrorDepth = 512;
constexpr size_t kNamePart = 200;  // of the target's name in a staging name (NAME_MAX is 255)

Error errno_error(const std::string& what) {
  Error e(fmt::format("{}: {}", what, std::strerror(errno)));
  e.errno_value = errno;
  return e;
}

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

mode_t current_umask() {
  // Read from /proc: umask(2) can only be read by setting it, which races
  // with other threads creating files.
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    unsigned mask = 022;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "Umask: %o", &mask) == 1) break;
    std::fclose(f);
    return mode_t(mask);
  }
  return 022;
}

// Staging directories of covkit's own user whose writer is gone (killed
// before it could clean up).
void remove_stale(int dir, const std::string& prefix) {
  auto names = entry_names_at(dir);
  if (!names) return;
  for (const std::string& name : *names) {
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    struct stat st {};
    if (pid > 0 && pid != long(::getpid()) && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH &&
        ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid())
      remove_tree_at(dir, name);
  }
}

// A copy of the regular file `name` of `from` as `name` in `to`.
Expected<void> copy_file_at(int from, int to, const std::string& name, mode_t mode, const std::string& shown) {
  UniqueFd in(::openat(from, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!in.valid()) return errno_error(shown);
  UniqueFd out(::openat(to, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!out.valid()) return errno_error(shown);
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(in.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error(shown);
    if (n == 0) return {};
    for (ssize_t done = 0; done < n;) {
      ssize_t w = ::write(out.get(), buf + done, size_t(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return errno_error(shown);
      done += w;
    }
  }
}

// Hard links of everything in `from` under `to` (both held open), not
// following symbolic links (a link is linked as a link).
Expected<void> mirror(int from, int to, const std::string& shown, int depth) {
  auto names = entry_names_at(from);
  if (!names) return errno_error(shown);
  for (const std::string& name : *names) {
    const std::string here = shown + "/" + printable(name);
    struct stat st {};
    if (::fstatat(from, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;  // removed meanwhile
      return errno_error(here);
    }
    if (S_ISDIR(st.st_mode)) {
      if (depth >= kMaxMirrorDepth) return Error(fmt::format("{}: directories nested too deep", here));
      if (::mkdirat(to, name.c_str(), 0700) != 0) return errno_error(here);
      UniqueFd sub_from(::openat(from, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      UniqueFd sub_to(::openat(to, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!sub_from.valid() || !sub_to.valid()) return errno_error(here);
      if (auto m = mirror(sub_from.get(), sub_to.get(), here, depth + 1); !m) return m;
      ::fchmod(sub_to.get(), st.st_mode & 07777);
      continue;
    }
    if (::linkat(from, name.c_str(), to, name.c_str(), 0) == 0) continue;
    // No hard link (protected_hardlinks for another user's file): a copy.
    if (!S_ISREG(st.st_mode)) return errno_error("cannot link " + here);
    if (auto c = copy_file_at(from, to, name, st.st_mode & 0777 & output_mode_mask(), here); !c) return c;
  }
  return {};
}

}  // namespace

std::string staging_prefix(const std::string& target) {
  std::string t = target;
  while (t.size() > 1 && t.back() == '/') t.pop_back();
  const size_t slash = t.rfind('/');
  const std::string name = slash == std::string::npos ? t : t.substr(slash + 1);
  return "." + name.substr(0, kNamePart) + ".covkit-staging-";
}

Expected<StagedTree> StagedTree::open(const std::string& target) {
  std::string shown = target.empty() ? "." : target;
  while (shown.size() > 1 && shown.back() == '/') shown.pop_back();
  auto where = locate_output(shown, MissingParents::kCreate);
  if (!where) {
    // The message names the component at fault (the link, the file in the way).
    Error e(fmt::format("{}: {}", shown, where.error().message));
    e.errno_value = where.error().errno_value;
    return e;
  }
  StagedTree tree;
  tree.target_ = shown;
  tree.absolute_ = where->path;
  tree.parent_ = std::move(where->parent);
  tree.name_ = where->name;
  struct stat st {};
  if (::fstatat(tree.parent_.get(), tree.name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode))  // put there after the walk looked
      return Error(fmt::format("{}: became a symbolic link while covkit looked at it", shown));
    if (!S_ISDIR(st.st_mode)) return Error(fmt::format("{}: exists and is not a directory", shown));
    tree.old_.reset(::openat(tree.parent_.get(), tree.name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!tree.old_.valid()) return errno_error(shown);
    struct stat up {};
    if (::fstat(tree.old_.get(), &tree.old_stat_) != 0 || ::fstat(tree.parent_.get(), &up) != 0)
      return errno_error(shown);
    // A directory that cannot be renamed because something is mounted on it.
    const bool mount_point = up.st_dev != tree.old_stat_.st_dev || same_file(up, tree.old_stat_);
    tree.placement_ = mount_point ? Placement::kInPlace : Placement::kExchange;
    const mode_t old_mode = tree.old_stat_.st_mode;
    tree.final_mode_ = (old_mode & 07000) | (old_mode & 0777 & output_mode_mask());
  } else if (errno == ENOENT) {
    if (where->via_link) return Error(fmt::format("{}: a link to nothing (the directory it names does not exist)", shown));
    tree.placement_ = Placement::kRename;
    tree.final_mode_ = 0777 & ~current_umask() & output_mode_mask();
  } else {
    return errno_error(shown);
  }
  return tree;
}

Expected<StagedTree> StagedTree::begin(const std::string& target) {
  auto tree = open(target);
  if (!tree) return tree;
  if (auto s = tree->stage(); !s) return s.error();
  return tree;
}

Expected<void> StagedTree::stage() {
  if (staging_.valid()) return {};
  const int home = staging_home();
  const std::string prefix = staging_prefix(name_);
  remove_stale(home, prefix);
  std::random_device random;
  for (int attempt = 0;; ++attempt) {
    std::string name = fmt::format("{}{}-{:08x}", prefix, long(::getpid()), uint32_t(random()));
    // 0700 from the start: no one else can enter it, whatever its final mode.
    if (::mkdirat(home, name.c_str(), 0700) == 0) {
      staging_name_ = std::move(name);
      break;
    }
    if (errno != EEXIST || attempt == 100) {
      const int err = errno;
      const size_t slash = absolute_.rfind('/');
      const std::string where = placement_ == Placement::kInPlace ? absolute_
                                : slash == 0                      ? "/"
                                                                  : absolute_.substr(0, slash);
      Error e(fmt::format("{}: {}", target_, creation_failure(where, err)));
      e.errno_value = err;
      return e;
    }
  }
  // Held from here to the swap. Between mkdirat and this open its name could
  // have been taken over (by the owner of the directory around it): what is
  // opened must be a directory of covkit's own user, and empty.
  staging_.reset(::openat(home, staging_name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  auto names = staging_.valid() ? entry_names_at(staging_.get()) : std::nullopt;
  if (!staging_.valid() || ::fstat(staging_.get(), &st) != 0 || st.st_uid != ::geteuid() || !names || !names->empty()) {
    staging_.reset();
    return Error(fmt::format("{}: the staging directory covkit created beside it was replaced at once; nothing "
                             "was written",
                             target_));
  }
  ::fchmod(staging_.get(), 0700);  // the umask may have taken covkit's own rights
  staging_stat_ = st;
  test_stop_point("staging");
  if (placement_ == Placement::kExchange)
    if (auto m = mirror(old_.get(), staging_.get(), target_, 0); !m) return m;
  return {};
}

StagedTree::StagedTree(StagedTree&& o) noexcept
    : target_(std::move(o.target_)),
      absolute_(std::move(o.absolute_)),
      parent_(std::move(o.parent_)),
      name_(std::move(o.name_)),
      old_(std::move(o.old_)),
      old_stat_(o.old_stat_),
      staging_name_(std::move(o.staging_name_)),
      staging_(std::move(o.staging_)),
      staging_stat_(o.staging_stat_),
      final_mode_(o.final_mode_),
      placement_(o.placement_),
      written_(std::move(o.written_)),
      removed_(std::move(o.removed_)),
      order_mutex_(std::move(o.order_mutex_)),
      done_(o.done_) {
  o.done_ = true;
}

StagedTree::~StagedTree() {
  if (done_ || !staging_.valid()) return;
  remove_contents(staging_.get());
  if (staging_still_named()) ::unlinkat(staging_home(), staging_name_.c_str(), AT_REMOVEDIR);
}

bool StagedTree::staging_still_named() const {
  struct stat st {};
  return ::fstatat(staging_home(), staging_name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         same_file(st, staging_stat_);
}

Expected<bool> StagedTree::old_is_empty() const {
  if (!old_.valid()) return true;
  auto names = entry_names_at(old_.get());
  if (!names) return errno_error(fmt::format("cannot read directory {}", target_));
  return names->empty();
}

Expected<std::optional<std::string>> StagedTree::read_old(std::string_view relative) const {
  if (!old_.valid()) return std::optional<std::string>();
  return read_below(old_.get(), relative, target_);
}

bool StagedTree::old_has(std::string_view relative) const {
  if (!old_.valid()) return false;
  std::string base;
  auto dir = open_parent_below(old_.get(), relative, false, 0, target_, &base);
  struct stat st {};
  return dir && *dir && ::fstatat((*dir)->get(), base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

Expected<void> StagedTree::write_file_at(int dir, const std::string& name, const std::string& shown,
                                         std::string_view content) const {
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISDIR(st.st_mode)) return Error(fmt::format("{}: is a directory", shown));
    // The mirrored link goes, never the file it shares with the old tree.
    if (::unlinkat(dir, name.c_str(), 0) != 0 && errno != ENOENT) return errno_error(shown);
  }
  UniqueFd fd(::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                       0666 & output_mode_mask()));
  if (!fd.valid()) return errno_error(shown);
  for (size_t done = 0; done < content.size();) {
    ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error(shown);
    done += size_t(n);
  }
  if (::close(fd.release()) != 0) return errno_error(shown);
  return {};
}

Expected<void> StagedTree::write(std::string_view relative, std::string_view content) {
  if (!plain_relative_path(relative)) return Error(fmt::format("{}: not a path inside the tree", printable(relative)));
  if (!staging_.valid()) return Error(fmt::format("{}: nothing staged", target_));
  std::string base;
  auto dir = open_parent_below(staging_.get(), relative, true, 0777 & output_mode_mask(), target_, &base);
  if (!dir) return dir.error();
  const std::string shown = fmt::format("{}/{}", target_, printable(relative));
  if (auto w = write_file_at((*dir)->get(), base, shown, content); !w) return w;
  if (placement_ == Placement::kInPlace) {
    std::lock_guard<std::mutex> lock(*order_mutex_);
    written_.emplace_back(relative);
  }
  return {};
}

Expected<void> StagedTree::remove(std::string_view relative) {
  if (!plain_relative_path(relative)) return Error(fmt::format("{}: not a path inside the tree", printable(relative)));
  if (placement_ == Placement::kInPlace) {
    std::lock_guard<std::mutex> lock(*order_mutex_);
    removed_.emplace_back(relative);
    return {};
  }
  if (!staging_.valid()) return Error(fmt::format("{}: nothing staged", target_));
  std::string base;
  auto dir = open_parent_below(staging_.get(), relative, false, 0, target_, &base);
  if (!dir || !*dir) return {};  // nothing there
  struct stat st {};
  const int fd = (*dir)->get();
  if (::fstatat(fd, base.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode)) return {};
  if (::unlinkat(fd, base.c_str(), 0) != 0) return errno_error(fmt::format("{}/{}", target_, printable(relative)));
  return {};
}

Expected<void> StagedTree::write_in_target(std::string_view relative, std::string_view content) {
  if (placement_ != Placement::kInPlace) return Error("write_in_target: not a tree written in place");
  std::string base;
  auto dir = open_parent_below(old_.get(), relative, true, 0777 & output_mode_mask(), target_, &base);
  if (!dir) return dir.error();
  const std::string shown = fmt::format("{}/{}", target_, printable(relative));
  const std::string temporary = fmt::format(".covkit-tmp.{}", long(::getpid()));
  const int fd = (*dir)->get();
  if (auto w = write_file_at(fd, temporary, shown, content); !w) return w;
  if (::renameat(fd, temporary.c_str(), fd, base.c_str()) != 0) {
    Error e = errno_error(shown);
    ::unlinkat(fd, temporary.c_str(), 0);
    return e;
  }
  return {};
}

Expected<void> StagedTree::commit() {
  if (!staging_.valid() || done_) return Error(fmt::format("{}: nothing staged", target_));
  if (placement_ == Placement::kInPlace) return move_in();
  ::fchmod(staging_.get(), final_mode_);
  test_stop_point("swap");
  if (!staging_still_named())
    return Error(fmt::format("{}: the staging directory beside it was moved by another program; nothing was "
                             "written",
                             target_));
  if (placement_ == Placement::kExchange) return exchange();
  if (::renameat2(parent_.get(), staging_name_.c_str(), parent_.get(), name_.c_str(), RENAME_NOREPLACE) != 0 &&
      (errno != EINVAL || ::renameat(parent_.get(), staging_name_.c_str(), parent_.get(), name_.c_str()) != 0))
    return errno_error(target_);
  done_ = true;
  struct stat st {};
  if (::fstatat(parent_.get(), name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !same_file(st, staging_stat_))
    return Error(fmt::format("{}: replaced by another program as covkit put it in place", target_));
  return {};
}

Expected<void> StagedTree::exchange() {
  struct stat st {};
  if (::fstatat(parent_.get(), name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !same_file(st, old_stat_))
    return Error(fmt::format("{}: replaced by another program while covkit wrote it; nothing was written", target_));
  std::string old_name = staging_name_;  // after the exchange it holds the old tree
  if (::renameat2(parent_.get(), staging_name_.c_str(), parent_.get(), name_.c_str(), RENAME_EXCHANGE) != 0) {
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) return errno_error(target_);
    // A file system without exchange: two renames, the target briefly absent.
    old_name = staging_name_ + "-old";
    if (::renameat(parent_.get(), name_.c_str(), parent_.get(), old_name.c_str()) != 0) return errno_error(target_);
    if (::renameat(parent_.get(), staging_name_.c_str(), parent_.get(), name_.c_str()) != 0) {
      Error e = errno_error(target_);
      (void)::renameat(parent_.get(), old_name.c_str(), parent_.get(), name_.c_str());
      return e;
    }
  }
  done_ = true;
  // The old tree goes through its descriptor; its name only if it still holds it.
  remove_contents(old_.get());
  if (::fstatat(parent_.get(), old_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && same_file(st, old_stat_))
    ::unlinkat(parent_.get(), old_name.c_str(), AT_REMOVEDIR);
  if (::fstatat(parent_.get(), name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !same_file(st, staging_stat_))
    return Error(fmt::format("{}: replaced by another program as covkit put it in place", target_));
  return {};
}

Expected<void> StagedTree::move_in() {
  for (const std::string& rel : written_) {
    std::string base, from_base;
    auto from = open_parent_below(staging_.get(), rel, false, 0, target_, &from_base);
    if (!from) return from.error();
    if (!*from) return Error(fmt::format("{}/{}: vanished from the staging directory", target_, printable(rel)));
    auto to = open_parent_below(old_.get(), rel, true, 0777 & output_mode_mask(), target_, &base);
    if (!to) return to.error();
    struct stat st {};
    if (::fstatat((*to)->get(), base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
      return Error(fmt::format("{}/{}: is a directory", target_, printable(rel)));
    if (::renameat((*from)->get(), from_base.c_str(), (*to)->get(), base.c_str()) != 0)
      return errno_error(fmt::format("{}/{}", target_, printable(rel)));
  }
  done_ = true;
  remove_contents(staging_.get());
  if (staging_still_named()) ::unlinkat(old_.get(), staging_name_.c_str(), AT_REMOVEDIR);
  for (const std::string& rel : removed_) {
    std::string base;
    auto dir = open_parent_below(old_.get(), rel, false, 0, target_, &base);
    struct stat st {};
    if (dir && *dir && ::fstatat((*dir)->get(), base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
      ::unlinkat((*dir)->get(), base.c_str(), 0);
  }
  return {};
}

}  // namespace covkit::util
