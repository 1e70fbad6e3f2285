#pragma once
// A sample recording as text (`covkit sample dump`): one line per image,
// mapping, sample, warning; addresses in hex. Stable enough for scripts:
// every line starts with its kind.
#include <string>

#include "format/sample_records.h"

namespace covkit::sample {

std::string recording_text(const format::SampleRecording& rec, bool with_steps);

}  // namespace covkit::sample
