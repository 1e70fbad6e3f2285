#pragma once
// Writing a sample recording directory (docs/sample-format.md) from memory:
// recording.json, and for recordings covkit makes itself (breakpoint mode,
// perf imports) one IMAGE.cks file per image in the runtime's own record
// layout, so that read_sample_recording reads both alike.
#include <string>

#include "format/sample_records.h"
#include "util/expected.h"

namespace covkit::format {

// recording.json: mode, period, vector length, command, start time, covkit
// version, and the recording's own `lost` and `warnings`.
Expected<void> write_recording_json(const std::string& dir, const SampleRecording& rec);

// recording.json and the images' files into `dir` (created when missing;
// existing files of the same names are replaced). Image i is written as
// "<pid>-<n>.cks", n counting the earlier images of the same pid; a reader
// numbers images in (pid, n) order, so ids survive a round trip when the
// images are in that order already.
Expected<void> write_sample_recording(const std::string& dir, const SampleRecording& rec);

}  // namespace covkit::format
