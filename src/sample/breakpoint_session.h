#pragma once
// `covkit sample record --mode breakpoint` from end to end: the recording
// directory prepared as for the other modes, the program run with the CFG
// plan (cfg_breakpoint_provider) either inside the program (request.in_process:
// the preloaded runtime plants and takes the int3s, covkit's plan server
// answers where) or under the ptrace breakpoint recorder (--pid, static
// programs), and the result in the same directory format, so `sample
// report` reads every mode alike.
#include "sample/cfg_breakpoint_provider.h"
#include "sample/sample_recorder.h"

namespace covkit::sample {

// `request.mode` must be breakpoint; `images`: which modules are planted.
// The recording names the images and functions the plan left alone
// (left_out, unplanted), and an attached one (--pid) says so (attached:
// the report then infers only what a window proves).
Expected<RecordOutcome, RecordError> record_breakpoint_session(const RecordRequest& request, ImageSelection images);

}  // namespace covkit::sample
