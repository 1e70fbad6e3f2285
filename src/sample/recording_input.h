#pragma once
// What `sample report`, `sample compare` and `sample dump` read: a
// recording directory (covkit sample record -o DIR), or a perf.data file,
// imported on the fly as `sample import-perf` would save it.
#include <string>

#include "format/sample_records.h"
#include "util/expected.h"

namespace covkit::sample {

// `path`: a directory, or a regular file that starts with perf.data's
// magic. The Error's message does not name the path (the caller does).
Expected<format::SampleRecording> read_recording_input(const std::string& path);

}  // namespace covkit::sample
