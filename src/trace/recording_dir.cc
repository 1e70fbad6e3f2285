#include "trace/recording_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "format/trace_file_names.h"
#include "runtime/trace/trace_contract.h"
#include "util/foreign_data.h"
#include "util/output_path.h"
#include "util/printable.h"

namespace covkit::trace {

namespace {

using util::UniqueFd;

std::string errno_text(int err) { return std::strerror(err); }

// Creates the marker in the empty directory `dir` and locks it; the descriptor.
Expected<int> create_marker(int dir, const std::string& command, const RecorderFiles& files) {
  int fd = ::openat(dir, CKT_RECORD_MARKER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0644 & util::output_mode_mask());
  if (fd < 0) return Error(fmt::format("cannot create {}: {}", CKT_RECORD_MARKER, errno_text(errno)));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return Error(fmt::format("another {} took the directory at the same moment", files.tool));
  }
  std::string text = fmt::format("{}\ncommand {}\n", files.tool, command);
  if (::write(fd, text.data(), text.size()) < 0) { /* the marker's text is for people only */ }
  return fd;
}

// The marker of a recording, locked: kLive when the recording still runs.
enum class Marker { kAbsent, kIdle, kLive };
Marker probe_marker(int dir) {
  UniqueFd fd(::openat(dir, CKT_RECORD_MARKER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return Marker::kAbsent;
  bool live = ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  return live ? Marker::kLive : Marker::kIdle;  // closing releases the probe's lock
}

// The first entry of `names` in `dir` that covkit did not write (not a
// regular file, or not a name of its files), or "".
std::string foreign_entry(int dir, const std::vector<std::string>& names, const RecorderFiles& files) {
  auto written = files.written ? files.written : written_by_covkit;
  for (const std::string& name : names) {
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) || !written(name))
      return name;
  }
  return "";
}

// Whether `old` in `parent` is an idle earlier recording of this recorder,
// which covkit may move or remove: not a link, its marker unlocked, only its
// own files. Its open descriptor and names when it is.
struct OldRecording {
  UniqueFd dir;
  std::vector<std::string> names;
};
Expected<OldRecording> check_old_recording(int parent, const std::string& old, const std::string& shown,
                                           const RecorderFiles& files) {
  struct stat st {};
  if (::fstatat(parent, old.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return Error(fmt::format("cannot look at {}: {}", util::printable(shown), errno_text(errno)));
  // Not through a link: DIR.old -> elsewhere would have covkit empty a
  // directory it never wrote there (a recording kept elsewhere, say).
  if (S_ISLNK(st.st_mode))
    return Error(fmt::format("{} is a symbolic link, not an earlier recording of {}; move it away",
                             util::printable(shown), files.tool));
  UniqueFd dir(::openat(parent, old.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir.valid() || probe_marker(dir.get()) != Marker::kIdle)
    return Error(fmt::format("{} exists and is not an earlier recording of {}; move it away",
                             util::printable(shown), files.tool));
  auto names = util::entry_names_at(dir.get());
  if (!names) return Error(fmt::format("cannot read {}: {}", util::printable(shown), errno_text(errno)));
  std::string foreign = foreign_entry(dir.get(), *names, files);
  if (!foreign.empty())
    return Error(fmt::format("{} holds {}, which covkit did not write; move it away", util::printable(shown),
                             util::printable(foreign)));
  return OldRecording{std::move(dir), std::move(*names)};
}

bool entry_exists(int parent, const std::string& name) {
  struct stat st {};
  return ::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

// Removes an idle earlier recording `old` of `parent` (absent: nothing to
// do): only files covkit writes.
Expected<void> remove_old_recording(int parent, const std::string& old, const std::string& shown,
                                    const RecorderFiles& files) {
  if (!entry_exists(parent, old)) return {};
  auto rec = check_old_recording(parent, old, shown, files);
  if (!rec) return rec.error();
  for (const std::string& n : rec->names)
    if (::unlinkat(rec->dir.get(), n.c_str(), 0) != 0)
      return Error(fmt::format("cannot remove {}/{}: {}", util::printable(shown), util::printable(n), errno_text(errno)));
  if (::unlinkat(parent, old.c_str(), AT_REMOVEDIR) != 0)
    return Error(fmt::format("cannot remove {}: {}", util::printable(shown), errno_text(errno)));
  return {};
}

}  // namespace

bool written_by_covkit(const std::string& name) {
  return name == CKT_RECORD_MARKER || name == CKT_FILTER_FILE || name == CKT_PATCH_FILE || format::parse_meta_name(name) ||
         format::parse_stream_name(name);
}

RecordingDir::RecordingDir(RecordingDir&& other) noexcept
    : path_(std::move(other.path_)), moved_to_(std::move(other.moved_to_)), lock_fd_(other.lock_fd_),
      parent_(std::move(other.parent_)), name_(std::move(other.name_)), dir_(std::move(other.dir_)),
      files_(other.files_) {
  other.lock_fd_ = -1;
}

RecordingDir::~RecordingDir() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

namespace {

// Empties the recording `dir` (held open) of what covkit wrote, removes its
// name `name` from `parent` if that still holds it, and puts back the
// earlier recording (DIR.old) and the older one parked as DIR.older.
Expected<void> discard_at(int parent, const std::string& name, int dir, const std::string& shown, bool had_old,
                          const RecorderFiles& files) {
  struct stat held {}, named {};
  ::fstat(dir, &held);
  auto names = util::entry_names_at(dir);
  if (!names) return Error(fmt::format("cannot read {}: {}", util::printable(shown), errno_text(errno)));
  // Only what covkit wrote goes; anything else keeps the directory as it is.
  const std::string foreign = foreign_entry(dir, *names, files);
  if (!foreign.empty())
    return Error(fmt::format("{} holds {}, which covkit did not write; left as it is", util::printable(shown),
                             util::printable(foreign)));
  for (const std::string& n : *names)
    if (::unlinkat(dir, n.c_str(), 0) != 0)
      return Error(fmt::format("cannot remove {}/{}: {}", util::printable(shown), util::printable(n), errno_text(errno)));
  if (::fstatat(parent, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) != 0 || named.st_dev != held.st_dev ||
      named.st_ino != held.st_ino)
    return Error(fmt::format("{} was replaced while covkit recorded; left as it is", util::printable(shown)));
  if (::unlinkat(parent, name.c_str(), AT_REMOVEDIR) != 0)
    return Error(fmt::format("cannot remove {}: {}", util::printable(shown), errno_text(errno)));
  if (!had_old) return {};
  const std::string old = name + ".old", parked = name + ".older";
  if (::renameat(parent, old.c_str(), parent, name.c_str()) != 0)
    return Error(fmt::format("cannot move the earlier recording {}.old back to {}: {}", util::printable(shown),
                             util::printable(shown), errno_text(errno)));
  if (entry_exists(parent, parked) && ::renameat(parent, parked.c_str(), parent, old.c_str()) != 0)
    return Error(fmt::format("cannot move the older recording {}.older back to {}.old: {}", util::printable(shown),
                             util::printable(shown), errno_text(errno)));
  return {};
}

}  // namespace

Expected<void> RecordingDir::discard() {
  if (!dir_.valid()) return {};
  if (lock_fd_ >= 0) ::close(lock_fd_);
  lock_fd_ = -1;
  UniqueFd dir = std::move(dir_);
  return discard_at(parent_.get(), name_, dir.get(), path_, !moved_to_.empty(), files_);
}

Expected<void> RecordingDir::keep() {
  if (!parent_.valid()) return {};
  return remove_old_recording(parent_.get(), name_ + ".older", path_ + ".older", files_);
}

Expected<void> discard_recording(const std::string& dir, const std::string& moved_to, const RecorderFiles& files) {
  auto where = util::locate_output(dir, util::MissingParents::kError);
  if (!where) return where.error();
  UniqueFd held(::openat(where->parent.get(), where->name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!held.valid())
    return Error(fmt::format("{} is no longer the recording's directory ({}); left as it is", util::printable(dir),
                             errno_text(errno)));
  return discard_at(where->parent.get(), where->name, held.get(), dir, !moved_to.empty(), files);
}

Expected<void> keep_recording(const std::string& dir, const RecorderFiles& files) {
  auto where = util::locate_output(dir, util::MissingParents::kError);
  if (!where) return where.error();
  return remove_old_recording(where->parent.get(), where->name + ".older", dir + ".older", files);
}

Expected<RecordingDir> prepare_recording_dir(const std::string& dir, const std::string& command,
                                             const RecorderFiles& files) {
  auto where = util::locate_output(dir, util::MissingParents::kCreate);
  if (!where) return where.error();
  const int parent = where->parent.get();
  const std::string& name = where->name;
  const std::string& abs = where->path;

  std::string moved_to;
  bool exists = false;
  struct stat st {};
  if (::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode)) return Error("became a symbolic link while covkit looked at it");
    if (!S_ISDIR(st.st_mode)) return Error("exists and is not a directory");
    exists = true;
    UniqueFd old(::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    auto names = old.valid() ? util::entry_names_at(old.get()) : std::nullopt;
    if (!names) return Error(fmt::format("cannot read the directory: {}", errno_text(errno)));
    if (!names->empty()) {
      switch (probe_marker(old.get())) {
        case Marker::kLive:
          return Error(fmt::format("another {} is recording into it right now; give another -o", files.tool));
        case Marker::kAbsent: {
          std::string first = foreign_entry(old.get(), *names, files);
          if (first.empty()) first = names->front();
          return Error(fmt::format(
              "not empty and not a recording of {} (it holds {}); give another -o or empty it", files.tool,
              util::printable(first)));
        }
        case Marker::kIdle: {
          // The marker alone does not say whose: another recorder's
          // recording (or files added to one) is not moved aside either.
          std::string first = foreign_entry(old.get(), *names, files);
          if (!first.empty())
            return Error(fmt::format("not a recording of {} (it holds {}); give another -o or empty it", files.tool,
                                     util::printable(first)));
          break;
        }
      }
      // An earlier recording: kept as DIR.old, as perf keeps perf.data.old.
      // The one DIR.old held waits as DIR.older until the new recording
      // proves to hold something (keep); an empty one puts both back
      // (discard).
      const std::string old_name = name + ".old", parked = name + ".older";
      moved_to = abs + ".old";
      // DIR.older left by a recording killed before its end.
      if (auto removed = remove_old_recording(parent, parked, abs + ".older", files); !removed)
        return removed.error();
      if (entry_exists(parent, old_name)) {
        if (auto ok = check_old_recording(parent, old_name, moved_to, files); !ok) return ok.error();
        if (::renameat(parent, old_name.c_str(), parent, parked.c_str()) != 0)
          return Error(fmt::format("cannot move the older recording {} aside: {}", util::printable(moved_to),
                                   errno_text(errno)));
      }
      if (::renameat(parent, name.c_str(), parent, old_name.c_str()) != 0)
        return Error(fmt::format("cannot move the earlier recording to {}: {}", util::printable(moved_to),
                                 errno_text(errno)));
      exists = false;
    }
  }
  if (!exists && ::mkdirat(parent, name.c_str(), 0777 & util::output_mode_mask()) != 0 && errno != EEXIST)
    return Error(fmt::format("cannot create the directory: {}", errno_text(errno)));
  UniqueFd made(::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!made.valid()) return Error(fmt::format("cannot open the directory: {}", errno_text(errno)));
  auto names = util::entry_names_at(made.get());
  if (!names || !names->empty())  // someone else's, created between our look and now
    return Error("another program filled the directory while covkit prepared it; give another -o");
  auto fd = create_marker(made.get(), command, files);
  if (!fd) return std::move(fd).error();
  return RecordingDir(abs, moved_to, *fd, std::move(where->parent), name, std::move(made), files);
}

}  // namespace covkit::trace
