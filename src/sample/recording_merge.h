#pragma once
// Several recordings of one program (runs of a test suite, `covkit sample
// report DIR...`) as one: images renumbered one after another, samples and
// hits moved along. The analysis then sees all the evidence at once, so the
// inference works on the union and the estimated counts add up.
#include <vector>

#include "format/sample_records.h"

namespace covkit::sample {

// The mode, period and vector length are the first recording's; differing
// ones are noted in `warnings` (the evidence still adds up: a block that ran
// ran, however it was seen).
format::SampleRecording merge_recordings(std::vector<format::SampleRecording> recordings);

}  // namespace covkit::sample
