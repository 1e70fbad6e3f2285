#include "trace/recording_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "format/trace_file_names.h"
#include "runtime/trace/trace_contract.h"
#include "util/printable.h"

namespace covkit::trace {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int err) { return std::strerror(err); }

// Creates the marker in an empty directory and locks it; the descriptor.
Expected<int> create_marker(const std::string& dir, const std::string& command, const RecorderFiles& files) {
  std::string path = dir + "/" + CKT_RECORD_MARKER;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return Error(fmt::format("cannot create {}: {}", CKT_RECORD_MARKER, errno_text(errno)));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return Error(fmt::format("another {} took the directory at the same moment", files.tool));
  }
  std::string text = fmt::format("{}\ncommand {}\n", files.tool, command);
  if (::write(fd, text.data(), text.size()) < 0) { /* the marker's text is for people only */ }
  return fd;
}

// The marker of a recording, locked: -1 when the recording still runs.
enum class Marker { kAbsent, kIdle, kLive };
Marker probe_marker(const std::string& dir) {
  std::string path = dir + "/" + CKT_RECORD_MARKER;
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Marker::kAbsent;
  bool live = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // releases the probe's lock
  return live ? Marker::kLive : Marker::kIdle;
}

// The first entry of `dir` that covkit did not write, or "".
std::string foreign_entry(const std::string& dir, const RecorderFiles& files, std::error_code& ec) {
  auto written = files.written ? files.written : written_by_covkit;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    std::string name = it->path().filename().string();
    if (!it->is_regular_file(type_ec) || it->is_symlink(type_ec) || !written(name)) return name;
  }
  return "";
}

bool empty_dir(const std::string& dir, std::error_code& ec) {
  return fs::directory_iterator(dir, ec) == fs::directory_iterator();
}

// Whether `old` is an idle earlier recording of this recorder, which covkit
// may move or remove: not a link, its marker unlocked, only its own files.
Expected<void> check_old_recording(const std::string& old, const RecorderFiles& files) {
  std::error_code ec;
  // Not through a link: DIR.old -> elsewhere would have covkit empty a
  // directory it never wrote there (a recording kept elsewhere, say).
  if (fs::is_symlink(fs::symlink_status(old, ec)))
    return Error(fmt::format("{} is a symbolic link, not an earlier recording of {}; move it away",
                             util::printable(old), files.tool));
  if (probe_marker(old) != Marker::kIdle)
    return Error(fmt::format("{} exists and is not an earlier recording of {}; move it away",
                             util::printable(old), files.tool));
  std::string foreign = foreign_entry(old, files, ec);
  if (ec) return Error(fmt::format("cannot read {}: {}", util::printable(old), ec.message()));
  if (!foreign.empty())
    return Error(fmt::format("{} holds {}, which covkit did not write; move it away", util::printable(old),
                             util::printable(foreign)));
  return {};
}

// Removes an idle earlier recording at `old`: only files covkit writes.
Expected<void> remove_old_recording(const std::string& old, const RecorderFiles& files) {
  if (auto ok = check_old_recording(old, files); !ok) return ok.error();
  std::error_code ec;
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(old, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(it->path());
  for (const fs::path& f : entries)
    if (!fs::remove(f, ec) || ec)
      return Error(fmt::format("cannot remove {}: {}", util::printable(f.string()), ec.message()));
  if (!fs::remove(old, ec) || ec)
    return Error(fmt::format("cannot remove {}: {}", util::printable(old), ec.message()));
  return {};
}

}  // namespace

Expected<void> discard_recording(const std::string& dir, const std::string& moved_to, const RecorderFiles& files) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(dir, ec)))
    return Error(fmt::format("{} is now a symbolic link; left as it is", util::printable(dir)));
  const std::string foreign = foreign_entry(dir, files, ec);
  if (ec) return Error(fmt::format("cannot read {}: {}", util::printable(dir), ec.message()));
  if (!foreign.empty())
    return Error(fmt::format("{} holds {}, which covkit did not write; left as it is", util::printable(dir),
                             util::printable(foreign)));
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(it->path());
  for (const fs::path& f : entries)
    if (!fs::remove(f, ec) || ec)
      return Error(fmt::format("cannot remove {}: {}", util::printable(f.string()), ec.message()));
  if (!fs::remove(dir, ec) || ec) return Error(fmt::format("cannot remove {}: {}", util::printable(dir), ec.message()));
  if (moved_to.empty()) return {};
  if (::rename(moved_to.c_str(), dir.c_str()) != 0)
    return Error(fmt::format("cannot move the earlier recording {} back to {}: {}", util::printable(moved_to),
                             util::printable(dir), errno_text(errno)));
  const std::string parked = dir + ".older";
  if (fs::exists(fs::symlink_status(parked, ec)) && ::rename(parked.c_str(), moved_to.c_str()) != 0)
    return Error(fmt::format("cannot move the older recording {} back to {}: {}", util::printable(parked),
                             util::printable(moved_to), errno_text(errno)));
  return {};
}

Expected<void> keep_recording(const std::string& dir, const RecorderFiles& files) {
  const std::string parked = dir + ".older";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(parked, ec))) return {};
  return remove_old_recording(parked, files);
}

bool written_by_covkit(const std::string& name) {
  return name == CKT_RECORD_MARKER || name == CKT_FILTER_FILE || name == CKT_PATCH_FILE || format::parse_meta_name(name) ||
         format::parse_stream_name(name);
}

RecordingDir::RecordingDir(RecordingDir&& other) noexcept
    : path_(std::move(other.path_)), moved_to_(std::move(other.moved_to_)), lock_fd_(other.lock_fd_) {
  other.lock_fd_ = -1;
}

RecordingDir::~RecordingDir() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

Expected<RecordingDir> prepare_recording_dir(const std::string& dir, const std::string& command,
                                             const RecorderFiles& files) {
  std::error_code ec;
  std::string abs = fs::absolute(dir, ec).lexically_normal().string();
  if (ec) abs = dir;
  while (abs.size() > 1 && abs.back() == '/') abs.pop_back();

  std::string moved_to;
  if (fs::exists(abs, ec)) {
    if (!fs::is_directory(abs, ec)) return Error("exists and is not a directory");
    bool empty = empty_dir(abs, ec);
    if (ec) return Error(fmt::format("cannot read the directory: {}", ec.message()));
    if (!empty) {
      switch (probe_marker(abs)) {
        case Marker::kLive:
          return Error(fmt::format("another {} is recording into it right now; give another -o", files.tool));
        case Marker::kAbsent: {
          std::string first = foreign_entry(abs, files, ec);
          if (first.empty()) first = fs::directory_iterator(abs, ec)->path().filename().string();
          return Error(fmt::format(
              "not empty and not a recording of {} (it holds {}); give another -o or empty it", files.tool,
              util::printable(first)));
        }
        case Marker::kIdle: {
          // The marker alone does not say whose: another recorder's
          // recording (or files added to one) is not moved aside either.
          std::string first = foreign_entry(abs, files, ec);
          if (!first.empty())
            return Error(fmt::format("not a recording of {} (it holds {}); give another -o or empty it", files.tool,
                                     util::printable(first)));
          break;
        }
      }
      // An earlier recording: kept as DIR.old, as perf keeps perf.data.old.
      // The one DIR.old held waits as DIR.older until the new recording
      // proves to hold something (keep_recording); an empty one puts both
      // back (discard_recording).
      moved_to = abs + ".old";
      const std::string parked = abs + ".older";
      if (fs::exists(fs::symlink_status(parked, ec))) {  // left by a recording killed before its end
        auto removed = remove_old_recording(parked, files);
        if (!removed) return removed.error();
      }
      if (fs::exists(fs::symlink_status(moved_to, ec))) {
        if (auto ok = check_old_recording(moved_to, files); !ok) return ok.error();
        if (::rename(moved_to.c_str(), parked.c_str()) != 0)
          return Error(fmt::format("cannot move the older recording {} aside: {}", util::printable(moved_to),
                                   errno_text(errno)));
      }
      if (::rename(abs.c_str(), moved_to.c_str()) != 0)
        return Error(fmt::format("cannot move the earlier recording to {}: {}", util::printable(moved_to),
                                 errno_text(errno)));
    }
  }
  fs::create_directories(abs, ec);
  if (ec) return Error(fmt::format("cannot create the directory: {}", ec.message()));
  if (!empty_dir(abs, ec))  // someone else's, created between our look and now
    return Error("another program filled the directory while covkit prepared it; give another -o");
  auto fd = create_marker(abs, command, files);
  if (!fd) return std::move(fd).error();
  return RecordingDir(abs, moved_to, *fd);
}

}  // namespace covkit::trace
