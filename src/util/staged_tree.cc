#include "util/staged_tree.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include <fmt/format.h>

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
    if (::mkdir(path.c_str(), 0777) != 0) return errno_error(shown);
  }
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

}  // namespace

std::string staging_prefix(const std::string& target) {
  return "." + split(target).second + ".covkit-staging-";
}

Expected<StagedTree> StagedTree::begin(const std::string& target) {
  auto [parent, name] = split(target);
  if (name.empty() || name == "." || name == "..") return Error(fmt::format("{}: not a usable directory name", target));
  const std::string prefix = staging_prefix(target);
  remove_stale(parent, prefix);
  std::random_device random;
  const std::string staging =
      fmt::format("{}/{}{}-{:08x}", parent, prefix, long(::getpid()), uint32_t(random()));
  struct stat st {};
  const bool exists = ::lstat(target.c_str(), &st) == 0;
  if (exists && !S_ISDIR(st.st_mode)) return Error(fmt::format("{}: exists and is not a directory", target));
  if (::mkdir(staging.c_str(), exists ? (st.st_mode & 07777) : 0777) != 0) return errno_error(staging);
  std::string trimmed = target;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  StagedTree tree(std::move(trimmed), staging);
  if (exists)
    if (auto m = mirror(target, staging); !m) return m.error();
  return tree;
}

StagedTree::StagedTree(StagedTree&& o) noexcept
    : target_(std::move(o.target_)), staging_(std::move(o.staging_)), done_(o.done_) {
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
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Error(fmt::format("{}/{}: is a directory", target_, relative));
    // The mirrored link goes, never the file it shares with the old tree.
    if (::unlink(path.c_str()) != 0) return errno_error(fmt::format("{}/{}", target_, relative));
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return errno_error(fmt::format("{}/{}", target_, relative));
  for (size_t done = 0; done < content.size();) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Error e = errno_error(fmt::format("{}/{}", target_, relative));
      ::close(fd);
      return e;
    }
    done += size_t(n);
  }
  if (::close(fd) != 0) return errno_error(fmt::format("{}/{}", target_, relative));
  return {};
}

Expected<void> StagedTree::commit() {
  struct stat st {};
  if (::lstat(target_.c_str(), &st) != 0) {
    if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_NOREPLACE) != 0 &&
        (errno != EINVAL || ::rename(staging_.c_str(), target_.c_str()) != 0))
      return errno_error(target_);
    done_ = true;
    return {};
  }
  if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) != 0) {
    if (errno != EINVAL && errno != ENOSYS) return errno_error(target_);
    // A file system without exchange: two renames, the target briefly absent.
    const std::string old = staging_ + "-old";
    if (::rename(target_.c_str(), old.c_str()) != 0) return errno_error(target_);
    if (::rename(staging_.c_str(), target_.c_str()) != 0) {
      Error e = errno_error(target_);
      (void)::rename(old.c_str(), target_.c_str());
      return e;
    }
    std::error_code ec;
    fs::remove_all(old, ec);
    done_ = true;
    return {};
  }
  // The staging name now holds the old tree.
  std::error_code ec;
  fs::remove_all(staging_, ec);
  done_ = true;
  return {};
}

}  // namespace covkit::util
