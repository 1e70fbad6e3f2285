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

#include "report/html/html_site_marker.h"
#include "util/file_io.h"
#include "util/printable.h"

namespace covkit::report::html {

namespace {

namespace fs = std::filesystem;

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

// Removes every entry of a directory covkit created for itself, then the
// directory (never recursing: covkit writes no subdirectories).
void remove_own_directory(const std::string& dir) {
  if (auto names = list_entries(dir))
    for (const std::string& n : *names) ::unlink((dir + '/' + n).c_str());
  ::rmdir(dir.c_str());
}

// A new empty directory "<where>/<prefix>1a2b3c4d" (".covkit-tmp." in the
// prefix marks covkit's temporary files, as util::write_file_atomic names
// them); its mode is `mode` (the replaced directory's) or the umask's default.
std::optional<std::string> make_staging_dir(const fs::path& where, const std::string& prefix,
                                            std::optional<mode_t> mode, int* err) {
  std::random_device rd;
  std::mt19937_64 rng((uint64_t(rd()) << 32) ^ rd() ^ uint64_t(::getpid()));
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string path = (where / (prefix + fmt::format("{:08x}", uint32_t(rng())))).string();
    if (::mkdir(path.c_str(), 0777) == 0) {
      if (mode) ::chmod(path.c_str(), *mode & 07777);
      return path;
    }
    if (errno != EEXIST) break;
  }
  *err = errno;
  return std::nullopt;
}

// A directory that cannot be renamed because something is mounted on it.
bool is_mount_point(const fs::path& dir, const struct stat& st) {
  struct stat up {};
  if (::stat(dir.parent_path().c_str(), &up) != 0) return false;
  return up.st_dev != st.st_dev || up.st_ino == st.st_ino;
}

// Swaps the two directories; falls back to two renames where the file
// system has no RENAME_EXCHANGE (a short moment without `target` then).
bool swap_directories(const std::string& staging, const std::string& target, std::string& old_site, int* err) {
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

// The entries of the site in `dir` that its marker does not list (a user's
// files), leaving out `skip`; an error when one has the name of a new file.
Expected<std::vector<std::string>> foreign_entries(const std::string& dir, const std::string& shown_dir,
                                                   const std::unordered_set<std::string>& previous,
                                                   std::span<const std::string> written, std::string_view skip) {
  const std::unordered_set<std::string> now(written.begin(), written.end());
  auto entries = list_entries(dir);
  if (!entries) return Error(fmt::format("cannot read directory {}: {}", shown(shown_dir), errno_text(errno)));
  std::vector<std::string> foreign;
  for (std::string& n : *entries) {
    if (previous.count(n) || n == skip) continue;
    if (now.count(n))
      return Error(fmt::format(
          "{}/{} was not written by covkit but the new report has a file of that name: move it away and run again",
          shown(shown_dir), shown(n)));
    foreign.push_back(std::move(n));
  }
  return foreign;
}

}  // namespace

StagedSite::StagedSite(std::string target, std::string absolute, std::string staging, Placement placement)
    : target_(std::move(target)),
      absolute_(std::move(absolute)),
      staging_(std::move(staging)),
      placement_(placement) {}

StagedSite::StagedSite(StagedSite&& o) noexcept
    : target_(std::move(o.target_)),
      absolute_(std::move(o.absolute_)),
      staging_(std::move(o.staging_)),
      placement_(o.placement_),
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

  struct stat st {};
  Placement placement = Placement::kRename;
  if (::stat(absolute.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return Error(fmt::format("cannot create directory {}: not a directory", shown(target)));
    auto entries = list_entries(absolute.string());
    if (!entries) return Error(fmt::format("cannot read directory {}: {}", shown(target), errno_text(errno)));
    if (!entries->empty() && marker_names(absolute.string()).empty())
      return Error(fmt::format(
          "{} is not empty and holds no covkit HTML report ({} is missing): give --html a new or empty directory",
          shown(target), kMarkerFileName));
    placement = is_mount_point(absolute, st) ? Placement::kInPlace : Placement::kExchange;
  } else if (errno == ENOENT || errno == ENOTDIR) {
    fs::create_directories(absolute.parent_path(), ec);
    if (ec) return Error(fmt::format("cannot create directory {}: {}", shown(target), ec.message()));
  } else {
    return Error(fmt::format("cannot use {} for the HTML report: {}", shown(target), errno_text(errno)));
  }

  int err = 0;
  std::optional<std::string> staging =
      placement == Placement::kInPlace
          ? make_staging_dir(absolute, ".covkit-tmp.", std::nullopt, &err)
          : make_staging_dir(absolute.parent_path(), "." + absolute.filename().string() + ".covkit-tmp.",
                             placement == Placement::kExchange ? std::optional<mode_t>(st.st_mode) : std::nullopt,
                             &err);
  if (!staging)
    return Error(fmt::format("cannot create a directory to write the HTML report {} in: {}", shown(target),
                             errno_text(err)));
  return StagedSite(target, absolute.string(), *staging + '/', placement);
}

Expected<void> StagedSite::commit(std::span<const std::string> written) {
  if (auto w = util::write_file_atomic(staging_ + std::string(kMarkerFileName), marker_text(written)); !w)
    return Error(fmt::format("cannot write {}/{}: {}", shown(target_), kMarkerFileName, w.error().message));
  switch (placement_) {
    case Placement::kRename:
      if (::rename(staging_.substr(0, staging_.size() - 1).c_str(), absolute_.c_str()) != 0)
        return Error(fmt::format("cannot move the HTML report into {}: {}", shown(target_), errno_text(errno)));
      committed_ = true;
      return {};
    case Placement::kExchange:
      return exchange_in(written);
    case Placement::kInPlace:
      return move_in(written);
  }
  return {};
}

Expected<void> StagedSite::exchange_in(std::span<const std::string> written) {
  const std::unordered_set<std::string> previous = marker_names(absolute_);
  Expected<std::vector<std::string>> foreign = foreign_entries(absolute_, target_, previous, written, "");
  if (!foreign) return foreign.error();
  int err = 0;
  std::string old_site;
  if (!swap_directories(staging_.substr(0, staging_.size() - 1), absolute_, old_site, &err))
    return Error(fmt::format("cannot move the HTML report into {}: {}", shown(target_), errno_text(err)));
  committed_ = true;
  // The new site is in place. Carry the user's files over, then remove the
  // previous site's own files and its directory.
  std::vector<std::string> stuck;
  for (const std::string& n : *foreign)
    if (::rename((old_site + '/' + n).c_str(), (absolute_ + '/' + n).c_str()) != 0) stuck.push_back(n);
  for (const std::string& n : previous)
    if (!is_directory(old_site + '/' + n)) ::unlink((old_site + '/' + n).c_str());
  if (::rmdir(old_site.c_str()) != 0 && !stuck.empty())
    return Error(fmt::format(
        "the HTML report is in {}, but {} of the files that were there could not be moved into it; they are in {}",
        shown(target_), stuck.size(), shown(old_site)));
  return {};
}

// A mount point: the staged files move in one by one (each rename atomic;
// the index, last in `written`, switches readers to the new site). The
// marker lists the old and new files meanwhile, so that a run killed half
// way leaves nothing the next run would take for a user's file.
Expected<void> StagedSite::move_in(std::span<const std::string> written) {
  const std::unordered_set<std::string> previous = marker_names(absolute_);
  const std::string staging = staging_.substr(0, staging_.size() - 1);
  const std::string staging_name = fs::path(staging).filename().string();
  Expected<std::vector<std::string>> foreign = foreign_entries(absolute_, target_, previous, written, staging_name);
  if (!foreign) return foreign.error();
  std::vector<std::string> both(previous.begin(), previous.end());
  both.insert(both.end(), written.begin(), written.end());
  const std::string marker = absolute_ + '/' + std::string(kMarkerFileName);
  if (auto w = util::write_file_atomic(marker, marker_text(both)); !w)
    return Error(fmt::format("cannot write {}/{}: {}", shown(target_), kMarkerFileName, w.error().message));
  for (const std::string& n : written)
    if (::rename((staging_ + n).c_str(), (absolute_ + '/' + n).c_str()) != 0)
      return Error(fmt::format("cannot move {} into {}: {}", shown(n), shown(target_), errno_text(errno)));
  if (::rename((staging_ + std::string(kMarkerFileName)).c_str(), marker.c_str()) != 0)
    return Error(fmt::format("cannot move {} into {}: {}", kMarkerFileName, shown(target_), errno_text(errno)));
  committed_ = true;
  ::rmdir(staging.c_str());
  const std::unordered_set<std::string> now(written.begin(), written.end());
  for (const std::string& n : previous)
    if (!now.count(n) && n != kMarkerFileName && !is_directory(absolute_ + '/' + n))
      ::unlink((absolute_ + '/' + n).c_str());
  return {};
}

}  // namespace covkit::report::html
