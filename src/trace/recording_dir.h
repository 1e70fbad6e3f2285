#pragma once
// The directory `covkit trace record` writes into. covkit creates it (or
// takes an empty one) and marks it with a CKT_RECORD_MARKER file that stays
// locked (flock) while the recording runs. A directory that holds an
// earlier recording is moved aside to DIR.old, as perf moves perf.data to
// perf.data.old (an older DIR.old recording waits as DIR.older until the
// new one proves to hold something: keep() removes it, discard() puts both
// back); a recording still running, or a directory holding anything covkit
// did not write, is refused. Nothing covkit did not write is ever deleted.
//
// The directory is found as util/output_path.h finds outputs (no symbolic
// link of another user followed on the way or as DIR itself) and is looked
// at, moved aside and created through its parent's descriptor; the new one
// is held open while the recording runs. (The runtime in the recorded
// program writes its files by the path covkit gives it, as that program's
// user: a user who can rename entries in DIR's parent can swap DIR for a
// link during the recording; record into a directory only you and root can
// write when the program runs as root.)
#include <string>

#include "util/expected.h"
#include "util/unique_fd.h"

namespace covkit::trace {

// Which recorder owns a directory: its name in messages and the marker,
// and the files it writes (so `covkit sample record` shares this with
// `covkit trace record`, each refusing the other's recordings).
struct RecorderFiles {
  const char* tool = "covkit trace record";
  bool (*written)(const std::string& name) = nullptr;  // nullptr: written_by_covkit
};

class RecordingDir {
 public:
  RecordingDir(RecordingDir&& other) noexcept;
  RecordingDir& operator=(RecordingDir&&) = delete;
  RecordingDir(const RecordingDir&) = delete;
  ~RecordingDir();  // releases the lock

  const std::string& path() const { return path_; }  // absolute, no trailing '/'
  // Where an earlier recording went ("" when there was none).
  const std::string& moved_to() const { return moved_to_; }

  // A recording that was refused before it began (perf_event_open said no):
  // the directory goes again, with the files covkit wrote into it, and an
  // earlier recording moved aside comes back. Nothing is left behind.
  Expected<void> discard();
  // The recording holds something: the older one parked as DIR.older goes.
  Expected<void> keep();

 private:
  friend Expected<RecordingDir> prepare_recording_dir(const std::string& dir, const std::string& command,
                                                      const RecorderFiles& files);
  RecordingDir(std::string path, std::string moved_to, int lock_fd, util::UniqueFd parent, std::string name,
               util::UniqueFd dir, RecorderFiles files)
      : path_(std::move(path)), moved_to_(std::move(moved_to)), lock_fd_(lock_fd), parent_(std::move(parent)),
        name_(std::move(name)), dir_(std::move(dir)), files_(files) {}
  std::string path_, moved_to_;
  int lock_fd_ = -1;
  util::UniqueFd parent_;  // the directory holding it
  std::string name_;       // its name there
  util::UniqueFd dir_;     // the recording's directory, open
  RecorderFiles files_;
};

// Creates or takes `dir` for a new recording of `command` (written into the
// marker for people who wonder what the directory is). Errors name no file:
// the caller prints `dir` before them.
Expected<RecordingDir> prepare_recording_dir(const std::string& dir, const std::string& command,
                                             const RecorderFiles& files = {});

// A recording that holds nothing (an uninstrumented program, a filter that
// named nothing, an empty sample) must not replace a good one: removes what
// the recorder wrote into `dir` (only its own files: a directory holding
// anything else is left as it is, and said) and moves the earlier recording
// at `moved_to` ("" when there was none) back to `dir`, and the older one
// parked as DIR.older back to DIR.old.
Expected<void> discard_recording(const std::string& dir, const std::string& moved_to, const RecorderFiles& files = {});

// The new recording in `dir` holds something: the older recording parked
// as DIR.older (what DIR.old held) is removed.
Expected<void> keep_recording(const std::string& dir, const RecorderFiles& files = {});

// True when `name` is a file name the runtime or the recorder writes
// (IMAGE.meta, IMAGE-TID[.K].ckt, the marker).
bool written_by_covkit(const std::string& name);

}  // namespace covkit::trace
