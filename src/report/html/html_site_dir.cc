#include "report/html/html_site_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <unordered_set>
#include <vector>

#include "util/file_io.h"
#include "util/printable.h"

namespace covkit::report::html {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMarkerHeader = "covkit html report: the files covkit wrote (it replaces them as a whole)";

std::string shown(const std::string& path) { return util::printable(path); }

std::string errno_text(int err) { return std::strerror(err); }

// Names of the entries of `dir` ("." and ".." left out); nullopt with errno
// set when it cannot be read.
std::optional<std::vector<std::string>> list_entries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return std::nullopt;
  std::vector<std::string> names;
  errno = 0;
  while (dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n != "." && n != "..") names.emplace_back(n);
  }
  const int err = errno;
  ::closedir(d);
  if (err) {
    errno = err;
    return std::nullopt;
  }
  return names;
}

// Without following a symbolic link: a link named like a page is removed as
// a link.
bool is_directory(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// A name covkit itself could have written: one plain component. A marker is
// read from a directory anyone may have edited, so nothing else is trusted.
bool plain_name(std::string_view n) { return !n.empty() && n != "." && n != ".." && n.find('/') == n.npos; }

// The names a site's marker lists (the marker itself included).
std::unordered_set<std::string> marker_names(const std::string& dir) {
  std::unordered_set<std::string> names;
  std::optional<util::FileData> data = util::read_file(dir + '/' + std::string(kMarkerFileName));
  if (!data) return names;
  std::string_view text(reinterpret_cast<const char*>(data->bytes.data()), data->bytes.size());
  if (!text.starts_with(kMarkerHeader)) return names;
  names.emplace(kMarkerFileName);
  size_t pos = text.find('\n');
  while (pos != std::string_view::npos && pos + 1 < text.size()) {
    size_t end = text.find('\n', pos + 1);
    std::string_view n = text.substr(pos + 1, (end == std::string_view::npos ? text.size() : end) - pos - 1);
    if (plain_name(n)) names.emplace(n);
    pos = end;
  }
  return names;
}

// Removes every entry of a directory covkit created for itself, then the
// directory (never recursing: covkit writes no subdirectories).
void remove_own_directory(const std::string& dir) {
  if (auto names = list_entries(dir))
    for (const std::string& n : *names) ::unlink((dir + '/' + n).c_str());
  ::rmdir(dir.c_str());
}

// ".NAME.covkit-tmp.1a2b3c4d" beside `absolute` (".covkit-tmp." marks
// covkit's temporary files, as util::write_file_atomic names them), created empty; its mode is
// `mode` (the replaced directory's) or the umask's default.
std::optional<std::string> make_staging_dir(const fs::path& absolute, std::optional<mode_t> mode, int* err) {
  std::random_device rd;
  std::mt19937_64 rng((uint64_t(rd()) << 32) ^ rd() ^ uint64_t(::getpid()));
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string path = (absolute.parent_path() /
                        ("." + absolute.filename().string() + ".covkit-tmp." + fmt::format("{:08x}", uint32_t(rng()))))
                           .string();
    if (::mkdir(path.c_str(), 0777) == 0) {
      if (mode) ::chmod(path.c_str(), *mode & 07777);
      return path;
    }
    if (errno != EEXIST) break;
  }
  *err = errno;
  return std::nullopt;
}

// Swaps the two directories; falls back to two renames where the file
// system has no RENAME_EXCHANGE (a short moment without `target` then).
bool exchange(const std::string& staging, const std::string& target, std::string& old_site, int* err) {
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
    old_site = staging;
    return true;
  }
  if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
    *err = errno;
    return false;
  }
  old_site = staging + ".old";
  if (::rename(target.c_str(), old_site.c_str()) != 0) {
    *err = errno;
    return false;
  }
  if (::rename(staging.c_str(), target.c_str()) != 0) {
    *err = errno;
    ::rename(old_site.c_str(), target.c_str());
    return false;
  }
  return true;
}

}  // namespace

StagedSite::StagedSite(std::string target, std::string absolute, std::string staging, bool replaces)
    : target_(std::move(target)), absolute_(std::move(absolute)), staging_(std::move(staging)), replaces_(replaces) {}

StagedSite::StagedSite(StagedSite&& o) noexcept
    : target_(std::move(o.target_)),
      absolute_(std::move(o.absolute_)),
      staging_(std::move(o.staging_)),
      replaces_(o.replaces_),
      committed_(o.committed_) {
  o.committed_ = true;  // the moved-from object owns nothing
}

StagedSite::~StagedSite() {
  if (!committed_ && !staging_.empty()) remove_own_directory(staging_.substr(0, staging_.size() - 1));
}

Expected<StagedSite> StagedSite::begin(const std::string& out_dir) {
  const std::string target = out_dir.empty() ? "." : out_dir;
  std::error_code ec;
  fs::path absolute = fs::absolute(target, ec).lexically_normal();
  if (!absolute.has_filename()) absolute = absolute.parent_path();  // "a/b/" -> "a/b"
  if (ec) return Error(fmt::format("cannot use {} for the HTML report: {}", shown(target), ec.message()));
  // A symbolic link to a directory: the site replaces the directory it names.
  struct stat link {};
  if (::lstat(absolute.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    absolute = fs::canonical(absolute, ec);
    if (ec) return Error(fmt::format("cannot use {} for the HTML report: {}", shown(target), ec.message()));
  }
  if (absolute == absolute.root_path())  // no parent to stage beside
    return Error(
        fmt::format("cannot write the HTML report into {}: give --html a directory of its own", shown(target)));

  struct stat st {};
  std::optional<mode_t> mode;
  if (::stat(absolute.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return Error(fmt::format("cannot create directory {}: not a directory", shown(target)));
    auto entries = list_entries(absolute.string());
    if (!entries) return Error(fmt::format("cannot read directory {}: {}", shown(target), errno_text(errno)));
    if (!entries->empty() && marker_names(absolute.string()).empty())
      return Error(fmt::format(
          "{} is not empty and holds no covkit HTML report ({} is missing): give --html a new or empty directory",
          shown(target), kMarkerFileName));
    mode = st.st_mode;
  } else if (errno == ENOENT || errno == ENOTDIR) {
    fs::create_directories(absolute.parent_path(), ec);
    if (ec) return Error(fmt::format("cannot create directory {}: {}", shown(target), ec.message()));
  } else {
    return Error(fmt::format("cannot use {} for the HTML report: {}", shown(target), errno_text(errno)));
  }
  int err = 0;
  std::optional<std::string> staging = make_staging_dir(absolute, mode, &err);
  if (!staging)
    return Error(fmt::format("cannot create a directory beside {} to write the HTML report in: {}", shown(target),
                             errno_text(err)));
  return StagedSite(target, absolute.string(), *staging + '/', mode.has_value());
}

Expected<void> StagedSite::commit(std::span<const std::string> written) {
  std::string marker(kMarkerHeader);
  marker += '\n';
  for (const std::string& n : written) marker += n + '\n';
  std::string why;
  if (!util::write_file_atomic(staging_ + std::string(kMarkerFileName), marker, &why))
    return Error(fmt::format("cannot write {}/{}: {}", shown(target_), kMarkerFileName, why));

  const std::string staging = staging_.substr(0, staging_.size() - 1);
  std::vector<std::string> foreign;  // a user's files in the previous site: carried over
  std::unordered_set<std::string> previous;
  if (replaces_) {
    previous = marker_names(absolute_);
    const std::unordered_set<std::string> now(written.begin(), written.end());
    auto entries = list_entries(absolute_);
    if (!entries) return Error(fmt::format("cannot read directory {}: {}", shown(target_), errno_text(errno)));
    for (std::string& n : *entries) {
      if (previous.count(n)) continue;
      if (now.count(n))
        return Error(
            fmt::format("{}/{} was not written by covkit but the new report has a file of that name: move it "
                        "away and run again",
                        shown(target_), shown(n)));
      foreign.push_back(std::move(n));
    }
  }

  int err = 0;
  std::string old_site;
  if (replaces_ ? !exchange(staging, absolute_, old_site, &err) : ::rename(staging.c_str(), absolute_.c_str()) != 0) {
    if (!err) err = errno;
    return Error(fmt::format("cannot move the HTML report into {}: {}", shown(target_), errno_text(err)));
  }
  committed_ = true;
  if (old_site.empty()) return {};

  // The new site is in place. Carry the user's files over, then remove the
  // previous site's own files and its directory.
  std::vector<std::string> stuck;
  for (const std::string& n : foreign)
    if (::rename((old_site + '/' + n).c_str(), (absolute_ + '/' + n).c_str()) != 0) stuck.push_back(n);
  for (const std::string& n : previous)
    if (!is_directory(old_site + '/' + n)) ::unlink((old_site + '/' + n).c_str());
  if (::rmdir(old_site.c_str()) != 0 && !stuck.empty())
    return Error(
        fmt::format("the HTML report is in {}, but {} of the files that were there could not be moved into "
                    "it; they are in {}",
                    shown(target_), stuck.size(), shown(old_site)));
  return {};
}

}  // namespace covkit::report::html
