#pragma once
// The directory `covkit sample record` writes into: prepared like a trace
// recording's (trace/recording_dir.h: a locked marker, an earlier
// recording of its own moved to DIR.old, anything else refused), owning
// only the files of a sample recording.
#include <string>

#include "trace/recording_dir.h"
#include "util/expected.h"

namespace covkit::sample {

// recording.json, IMAGE.cks files and the marker.
bool written_by_sampler(const std::string& name);

Expected<trace::RecordingDir> prepare_sample_dir(const std::string& dir, const std::string& command);

}  // namespace covkit::sample
