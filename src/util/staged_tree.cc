#include "util/staged_tree.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <random>

#include <fmt/format.h>

#include "util/file_io.h"

namespace covkit::util {

namespace fs = std::filesystem;

namespace {

Error errno_error(const std::string& what) {
  Error e(fmt::format("{}: {}", what, std::strerror(errno)));
  e.errno_value = errno;
  return e;
}

std::pair<std::string, std::string> split(std::string target) {
  while (target.size() > 1 && target.back() == '/') target.pop_back();
  size_t slash = target.rfind('/');
  if (slash == std::string::npos) return {".", target};
  return {slash == 0 ? "/" : target.substr(0, slash), target.substr(slash + 1)};
}

// Staging directories whose writer is gone (killed before it could clean up).
void remove_stale(const std::string& parent, const std::string& prefix) {
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && pid != long(::getpid()) && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH) {
      std::error_code rm;
      fs::remove_all(it->path(), rm);
    }
  }
}

// Hard links of everything in `from` (not following symbolic links) under `to`.
Expected<void> mirror(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::recursive_directory_iterator it(from, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path dest = fs::path(to) / it->path().lexically_relative(from);
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0) return errno_error(it->path().string());
    if (S_ISDIR(st.st_mode)) {
      if (::mkdir(dest.c_str(), st.st_mode & 07777) != 0) return errno_error(dest.string());
      continue;
    }
    if (::linkat(AT_FDCWD, it->path().c_str(), AT_FDCWD, dest.c_str(), 0) == 0) continue;
    // No hard link (protected_hardlinks for another user's file): a copy.
    if (!S_ISREG(st.st_mode)) return errno_error("cannot link " + it->path().string());
    std::error_code copy_ec;
    if (!fs::copy_file(it->path(), dest, copy_ec)) return Error(fmt::format("{}: {}", dest.string(), copy_ec.message()));
  }
  if (ec) return Error(fmt::format("{}: {}", from, ec.message()));
  return {};
}

// Creates the directories of `relative` below `root`, refusing to go through
// anything that is not a directory of its own (a symbolic link in the tree
// must not send a write elsewhere). Errors name the path under `shown_root`
// (the target, not the staging directory).
Expected<void> make_parents(const std::string& root, const std::string& shown_root, std::string_view relative) {
  std::string path = root, shown = shown_root;
  size_t start = 0;
  while (true) {
    size_t slash = relative.find('/', start);
    if (slash == std::string_view::npos) return {};
    const std::string_view part = relative.substr(start, slash - start);
    path += "/";
    path += part;
    shown += "/";
    shown += part;
    start = slash + 1;
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return Error(fmt::format("{}: {}; refusing to write through it", shown,
                                 S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory"));
      continue;
    }
    // Another thread may create it at the same moment: fine if it is a directory.
    if (::mkdir(path.c_str(), 0777) != 0 &&
        !(errno == EEXIST && ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)))
      return errno_error(shown);
  }
}

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

bool safe_relative(std::string_view rel) {
  if (rel.empty() || rel.front() == '/') return false;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t slash = rel.find('/', start);
    std::string_view part = rel.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

// A directory that cannot be renamed because something is mounted on it.
bool is_mount_point(const std::string& dir, const struct stat& st) {
  struct stat up {};
  const std::string parent = split(dir).first;
  if (::stat(parent.c_str(), &up) != 0) return false;
  return up.st_dev != st.st_dev || up.st_ino == st.st_ino;
}

// Creates "<where>/<prefix><pid>-<random>" with `mode`.
Expected<std::string> make_staging_dir(const std::string& where, const std::string& prefix, mode_t mode) {
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string path = fmt::format("{}/{}{}-{:08x}", where, prefix, long(::getpid()), uint32_t(random()));
    if (::mkdir(path.c_str(), 0700) == 0) {
      ::chmod(path.c_str(), mode & 07777);
      return path;
    }
    if (errno != EEXIST) {
      const int err = errno;
      Error e(fmt::format("{}: {}", path, creation_failure(where, err)));
      e.errno_value = err;
      return e;
    }
  }
  return errno_error(where);
}

}  // namespace

std::string staging_prefix(const std::string& target) {
  std::string t = target;
  while (t.size() > 1 && t.back() == '/') t.pop_back();
  return "." + split(t).second + ".covkit-staging-";
}

Expected<StagedTree> StagedTree::begin(const std::string& target) {
  std::string shown = target.empty() ? "." : target;
  while (shown.size() > 1 && shown.back() == '/') shown.pop_back();
  std::error_code ec;
  fs::path absolute = fs::absolute(shown, ec).lexically_normal();
  if (ec) return Error(fmt::format("{}: {}", shown, ec.message()));
  if (!absolute.has_filename()) absolute = absolute.parent_path();  // "a/b/" -> "a/b"
  struct stat st {};
  // A link to a directory stands for that directory, which is replaced.
  if (::lstat(absolute.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    absolute = fs::canonical(absolute, ec);
    if (ec) return Error(fmt::format("{}: {}", shown, ec.message()));
  }
  const std::string abs = absolute.string();
  auto [parent, name] = split(abs);
  if (name.empty() || name == "." || name == "..") return Error(fmt::format("{}: not a usable directory name", shown));
  const std::string prefix = staging_prefix(abs);
  remove_stale(parent, prefix);

  Placement placement = Placement::kRename;
  mode_t mode = 0777 & ~current_umask();
  if (::stat(abs.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return Error(fmt::format("{}: exists and is not a directory", shown));
    placement = is_mount_point(abs, st) ? Placement::kInPlace : Placement::kExchange;
    mode = st.st_mode;
    if (placement == Placement::kInPlace) remove_stale(abs, prefix);
  } else if (errno == ENOENT) {
    fs::create_directories(parent, ec);
    if (ec) return Error(fmt::format("{}: cannot create the directory: {}", shown, ec.message()));
  } else {
    return errno_error(shown);
  }
  auto staging = make_staging_dir(placement == Placement::kInPlace ? abs : parent, prefix, mode);
  if (!staging) return staging.error();
  StagedTree tree(shown, abs, *staging, placement);
  if (placement == Placement::kExchange)
    if (auto m = mirror(abs, *staging); !m) return m.error();
  return tree;
}

StagedTree::StagedTree(StagedTree&& o) noexcept
    : target_(std::move(o.target_)),
      absolute_(std::move(o.absolute_)),
      staging_(std::move(o.staging_)),
      placement_(o.placement_),
      written_(std::move(o.written_)),
      removed_(std::move(o.removed_)),
      order_mutex_(std::move(o.order_mutex_)),
      done_(o.done_) {
  o.done_ = true;
}

StagedTree::~StagedTree() {
  if (done_ || staging_.empty()) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

Expected<void> StagedTree::write(std::string_view relative, std::string_view content) {
  if (!safe_relative(relative)) return Error(fmt::format("{}: not a path inside the tree", relative));
  if (auto p = make_parents(staging_, target_, relative); !p) return p.error();
  const std::string path = staging_ + "/" + std::string(relative);
  const std::string shown = fmt::format("{}/{}", target_, relative);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Error(fmt::format("{}: is a directory", shown));
    // The mirrored link goes, never the file it shares with the old tree.
    if (::unlink(path.c_str()) != 0) return errno_error(shown);
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return errno_error(shown);
  for (size_t done = 0; done < content.size();) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Error e = errno_error(shown);
      ::close(fd);
      return e;
    }
    done += size_t(n);
  }
  if (::close(fd) != 0) return errno_error(shown);
  if (placement_ == Placement::kInPlace) {
    std::lock_guard<std::mutex> lock(*order_mutex_);
    written_.emplace_back(relative);
  }
  return {};
}

Expected<void> StagedTree::remove(std::string_view relative) {
  if (!safe_relative(relative)) return Error(fmt::format("{}: not a path inside the tree", relative));
  if (placement_ == Placement::kInPlace) {
    std::lock_guard<std::mutex> lock(*order_mutex_);
    removed_.emplace_back(relative);
    return {};
  }
  const std::string path = staging_ + "/" + std::string(relative);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) return {};  // nothing there, or not a file
  if (::unlink(path.c_str()) != 0) return errno_error(fmt::format("{}/{}", target_, relative));
  return {};
}

Expected<void> StagedTree::commit() {
  switch (placement_) {
    case Placement::kRename:
      if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, absolute_.c_str(), RENAME_NOREPLACE) != 0 &&
          (errno != EINVAL || ::rename(staging_.c_str(), absolute_.c_str()) != 0))
        return errno_error(target_);
      done_ = true;
      return {};
    case Placement::kInPlace:
      return move_in();
    case Placement::kExchange:
      break;
  }
  std::string old = staging_;  // after the exchange it holds the old tree
  if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, absolute_.c_str(), RENAME_EXCHANGE) != 0) {
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) return errno_error(target_);
    // A file system without exchange: two renames, the target briefly absent.
    old = staging_ + "-old";
    if (::rename(absolute_.c_str(), old.c_str()) != 0) return errno_error(target_);
    if (::rename(staging_.c_str(), absolute_.c_str()) != 0) {
      Error e = errno_error(target_);
      (void)::rename(old.c_str(), absolute_.c_str());
      return e;
    }
  }
  done_ = true;
  std::error_code ec;
  fs::remove_all(old, ec);
  return {};
}

Expected<void> StagedTree::move_in() {
  for (const std::string& rel : written_) {
    if (auto p = make_parents(absolute_, target_, rel); !p) return p.error();
    const std::string to = absolute_ + "/" + rel;
    struct stat st {};
    if (::lstat(to.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Error(fmt::format("{}/{}: is a directory", target_, rel));
    if (::rename((staging_ + "/" + rel).c_str(), to.c_str()) != 0) return errno_error(fmt::format("{}/{}", target_, rel));
  }
  done_ = true;
  std::error_code ec;
  fs::remove_all(staging_, ec);
  for (const std::string& rel : removed_) {
    struct stat st {};
    const std::string path = absolute_ + "/" + rel;
    if (::lstat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) ::unlink(path.c_str());
  }
  return {};
}

}  // namespace covkit::util
