#include "util/output_path.h"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

#include <fmt/format.h>

#include "util/foreign_data.h"
#include "util/printable.h"

namespace covkit::util {

namespace {

constexpr int kMaxLinks = 40;   // as the kernel's path walk (ELOOP)
constexpr int kMaxDepth = 512;  // directories below an output tree's root

Error errno_error(const std::string& what, int err) {
  Error e(fmt::format("{}: {}", what, std::strerror(err)));
  e.errno_value = err;
  return e;
}

std::deque<std::string> split_path(std::string_view path) {
  std::deque<std::string> parts;
  for (size_t start = 0; start <= path.size();) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view part = path.substr(start, slash - start);
    if (!part.empty() && part != ".") parts.emplace_back(part);
    start = slash + 1;
  }
  return parts;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

std::string child_path(const std::vector<std::string>& parts, const std::string& name) {
  std::string dir = joined(parts);
  return dir == "/" ? "/" + name : dir + "/" + name;
}

std::string user_text(uid_t uid) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  char buf[1024];
  if (::getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found)
    return fmt::format("user {} ({})", uid, util::printable(pw.pw_name));
  return fmt::format("user {}", uid);
}

// The text of the link held by the O_PATH descriptor `fd`.
Expected<std::string> link_text(int fd, const std::string& shown) {
  char buf[PATH_MAX];
  ssize_t n = ::readlinkat(fd, "", buf, sizeof buf);
  if (n < 0) return errno_error(shown, errno);
  if (n == 0 || size_t(n) >= sizeof buf) return Error(fmt::format("{}: a symbolic link of no usable length", shown));
  return std::string(buf, size_t(n));
}

}  // namespace

bool trusted_link_owner(uid_t owner) {
  // The file-system uid is the writer: covkit's user, or the user whose
  // identity it took (live/dump_output writes a program's own files as that
  // user, whose links then lead nowhere that user could not write anyway).
  return owner == 0 || owner == ::geteuid() || owner == uid_t(::setfsuid(uid_t(-1)));
}

Expected<OutputLocation> locate_output(const std::string& given, MissingParents missing,
                                       std::optional<UntrustedLink>* untrusted) {
  if (given.empty()) return Error("an empty path");
  std::deque<std::string> todo = split_path(given);
  std::vector<std::string> reached;  // the components of `dir`'s absolute path
  UniqueFd dir(::open(given[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return errno_error(given[0] == '/' ? "/" : ".", errno);
  if (given[0] != '/') {
    char cwd[PATH_MAX];
    if (!::getcwd(cwd, sizeof cwd)) return errno_error("the working directory", errno);
    for (std::string& p : split_path(cwd)) reached.push_back(std::move(p));
  }
  int links = 0;
  bool via_link = false;  // the components left came from a link's text
  for (;;) {
    if (todo.empty()) {
      // The path ended on a directory through "." or ".." (or was "/"):
      // the output is that directory, held by its parent.
      if (reached.empty()) return Error(fmt::format("{}: the root directory cannot be an output", printable(given)));
      UniqueFd up(::openat(dir.get(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
      if (!up.valid()) return errno_error(printable(given), errno);
      std::string name = reached.back();
      reached.pop_back();
      return OutputLocation{std::move(up), name, child_path(reached, name), via_link};
    }
    std::string part = std::move(todo.front());
    todo.pop_front();
    if (part == "..") {
      UniqueFd up(::openat(dir.get(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
      if (!up.valid()) return errno_error(joined(reached) + "/..", errno);
      dir = std::move(up);
      if (!reached.empty()) reached.pop_back();
      continue;
    }
    const bool last = todo.empty();
    const std::string here = child_path(reached, part);
    UniqueFd next(::openat(dir.get(), part.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      if (errno != ENOENT) return errno_error(printable(here), errno);
      if (last) return OutputLocation{std::move(dir), part, here, via_link};
      if (missing == MissingParents::kError) return errno_error(printable(here), ENOENT);
      if (::mkdirat(dir.get(), part.c_str(), 0777 & output_mode_mask()) != 0 && errno != EEXIST)
        return Error(fmt::format("{}: cannot create the directory: {}", printable(here), std::strerror(errno)));
      next.reset(::openat(dir.get(), part.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
      if (!next.valid()) return errno_error(printable(here), errno);
    }
    struct stat st {};
    if (::fstat(next.get(), &st) != 0) return errno_error(printable(here), errno);
    if (S_ISLNK(st.st_mode)) {
      auto text = link_text(next.get(), printable(here));
      if (!text) return text.error();
      if (!trusted_link_owner(st.st_uid)) {
        if (untrusted) *untrusted = UntrustedLink{st.st_uid, last};
        return Error(fmt::format("{} is a symbolic link of {} (to {}); covkit does not follow another user's "
                                 "link in an output path",
                                 printable(here), user_text(st.st_uid), printable(*text)));
      }
      if (++links > kMaxLinks) return errno_error(printable(here), ELOOP);
      std::deque<std::string> parts = split_path(*text);
      // A link's own "." at its end ("dir/.") names that directory.
      if (todo.empty()) via_link = true;
      todo.insert(todo.begin(), parts.begin(), parts.end());
      if ((*text)[0] == '/') {
        dir.reset(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (!dir.valid()) return errno_error("/", errno);
        reached.clear();
      }
      continue;
    }
    if (last) return OutputLocation{std::move(dir), part, here, via_link};
    if (!S_ISDIR(st.st_mode)) return errno_error(printable(here), ENOTDIR);
    dir = std::move(next);
    reached.push_back(part);
  }
}

bool plain_relative_path(std::string_view rel) {
  if (rel.empty() || rel.front() == '/') return false;
  for (size_t start = 0; start <= rel.size();) {
    size_t slash = rel.find('/', start);
    if (slash == std::string_view::npos) slash = rel.size();
    std::string_view part = rel.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = slash + 1;
  }
  return true;
}

Expected<std::optional<UniqueFd>> open_parent_below(int root, std::string_view relative, bool create, mode_t mode,
                                                    const std::string& shown_root, std::string* last) {
  if (!plain_relative_path(relative)) return Error(fmt::format("{}: not a path inside the tree", printable(relative)));
  UniqueFd dir(::fcntl(root, F_DUPFD_CLOEXEC, 0));
  if (!dir.valid()) return errno_error(shown_root, errno);
  std::string shown = shown_root;
  size_t start = 0;
  for (int depth = 0;; ++depth) {
    size_t slash = relative.find('/', start);
    if (slash == std::string_view::npos) {
      *last = std::string(relative.substr(start));
      return std::optional<UniqueFd>(std::move(dir));
    }
    if (depth > kMaxDepth)
      return Error(fmt::format("{}: more than {} directories deep below the output tree; refusing to go deeper",
                               printable(shown), kMaxDepth));
    const std::string part(relative.substr(start, slash - start));
    shown += "/" + part;
    start = slash + 1;
    UniqueFd next(::openat(dir.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid() && errno == ENOENT) {
      if (!create) return std::optional<UniqueFd>();
      // Another thread may create it at the same moment: fine if it is a directory.
      if (::mkdirat(dir.get(), part.c_str(), mode) != 0 && errno != EEXIST)
        return Error(fmt::format("{}: cannot create the directory: {}", printable(shown), std::strerror(errno)));
      next.reset(::openat(dir.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    }
    if (!next.valid()) {
      const int err = errno;
      struct stat st {};
      if ((err == ELOOP || err == ENOTDIR) && ::fstatat(dir.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
        return Error(fmt::format("{}: {}; refusing to write through it", printable(shown),
                                 S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory"));
      return errno_error(printable(shown), err);
    }
    dir = std::move(next);
  }
}

Expected<std::optional<std::string>> read_below(int root, std::string_view relative, const std::string& shown_root) {
  std::string name;
  auto parent = open_parent_below(root, relative, false, 0, shown_root, &name);
  if (!parent) return parent.error();
  if (!*parent) return std::optional<std::string>();
  const std::string shown = fmt::format("{}/{}", shown_root, printable(relative));
  UniqueFd fd(::openat((*parent)->get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return std::optional<std::string>();
    if (errno == ELOOP) return Error(fmt::format("{}: a symbolic link; refusing to write through it", shown));
    return errno_error(shown, errno);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return errno_error(shown, errno);
  if (!S_ISREG(st.st_mode)) return Error(fmt::format("{}: not a regular file", shown));
  std::string bytes;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error(shown, errno);
    if (n == 0) break;
    bytes.append(buf, size_t(n));
  }
  return std::optional<std::string>(std::move(bytes));
}

std::optional<std::vector<std::string>> entry_names_at(int dir) {
  // A descriptor of its own: fdopendir takes it, and `dir` stays the caller's.
  UniqueFd list(::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!list.valid()) return std::nullopt;
  DIR* d = ::fdopendir(list.get());
  if (!d) return std::nullopt;
  list.release();
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n != "." && n != "..") names.emplace_back(n);
  }
  ::closedir(d);
  return names;
}

namespace {

void remove_contents_at(int dir, int depth) {
  auto names = entry_names_at(dir);
  if (!names) return;
  for (const std::string& n : *names) {
    if (::unlinkat(dir, n.c_str(), 0) == 0 || (errno != EISDIR && errno != EPERM)) continue;
    if (depth >= kMaxDepth) continue;
    UniqueFd sub(::openat(dir, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!sub.valid()) continue;
    remove_contents_at(sub.get(), depth + 1);
    ::unlinkat(dir, n.c_str(), AT_REMOVEDIR);
  }
}

}  // namespace

void remove_contents(int dir) { remove_contents_at(dir, 0); }

void remove_tree_at(int dir, const std::string& name) {
  if (::unlinkat(dir, name.c_str(), 0) == 0) return;
  UniqueFd sub(::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!sub.valid()) return;
  remove_contents_at(sub.get(), 1);
  ::unlinkat(dir, name.c_str(), AT_REMOVEDIR);
}

void test_stop_point(const char* point) {
  const char* points = std::getenv("COVKIT_TEST_STOP_AT");
  if (!points || !*points) return;
  const std::string_view list = points, wanted = point;
  for (size_t start = 0; start <= list.size();) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    if (list.substr(start, comma - start) == wanted) {
      ::raise(SIGSTOP);
      return;
    }
    start = comma + 1;
  }
}

}  // namespace covkit::util
