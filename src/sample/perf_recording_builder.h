#pragma once
// perf_event_open's records (format/perf_event_records.h) turned into a
// SampleRecording, as the preloaded runtime would have written it: one
// image per process image (a fork starts one with its parent's mappings, an
// exec one of its own), each with its executable file mappings (MMAP2, the
// file's build-id), and the samples of its threads: the IP, the return
// addresses of the user call chain, and the branch stack OLDEST first.
// Records arrive as the kernel wrote them, per CPU, a ring at a time: the
// rings are read often enough that a process's records come in order.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "format/perf_event_records.h"
#include "format/sample_records.h"

namespace covkit::sample {

class PerfRecordingBuilder {
 public:
  // The build-id (lower-case hex) of the file a mapping maps, "" when it
  // has none or cannot be read; asked once per file (path, device, inode).
  // Given the whole record: the file is the one of the record's process,
  // device and inode, not whatever its path names by the time it is read.
  using BuildIdLookup = std::function<std::string(const format::PerfMmap& m)>;

  // `rec`: mode, period, command... already set; images, samples, lost and
  // vector_length are filled in. `root`: the process covkit started, whose
  // first image runs `executable`.
  PerfRecordingBuilder(format::SampleRecording& rec, BuildIdLookup build_id, int32_t root, std::string executable);

  // `now_ns`: CLOCK_REALTIME when the record was read (an image's start).
  void add(const format::PerfRecord& record, uint64_t now_ns);
  // The root process's end, from its wait status.
  void root_ended(bool exited);
  // Which images finish() keeps: all (a recording of covkit's own says
  // every process it saw), or those with samples (an import of a
  // system-wide perf.data would list every process on the machine).
  enum class Images { all, sampled };
  // Orders the images as the recording's files are numbered ((pid, n) order)
  // and their mappings by address. Call once, after the last add.
  void finish(Images keep = Images::all);

 private:
  struct ImageState {
    bool inherited = false;  // its mappings are a copy of its parent's (a fork)
    bool exec_seen = false;  // an exec made it
    size_t samples = 0;
  };

  uint32_t image_of(int32_t pid, uint64_t now_ns);
  uint32_t new_image(int32_t pid, int32_t ppid, uint64_t now_ns);
  void add_mapping(const format::PerfMmap& m, uint64_t now_ns);
  void add_sample(const format::PerfSample& s, uint64_t now_ns);
  void add_comm(const format::PerfComm& c, uint64_t now_ns);
  void add_task(const format::PerfTask& t, uint64_t now_ns);

  format::SampleRecording& rec_;
  BuildIdLookup build_id_;
  const int32_t root_;
  const std::string root_executable_;
  std::map<int32_t, uint32_t> current_;  // pid -> its image now
  std::vector<ImageState> state_;        // by image id
  std::map<std::tuple<std::string, uint64_t, uint64_t>, std::string> build_ids_;  // (path, dev, inode)
};

}  // namespace covkit::sample
