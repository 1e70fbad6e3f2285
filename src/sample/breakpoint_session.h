#pragma once
// `covkit sample record --mode breakpoint` from end to end: the recording
// directory prepared as for the other modes, the program run with the CFG
// plan (cfg_breakpoint_provider) either inside the program (request.in_process:
// the preloaded runtime plants and takes the int3s, covkit's plan server
// answers where) or under the ptrace breakpoint recorder (--pid, static
// programs), and the result in the same directory format, so `sample
// report` reads every mode alike.
#include "sample/sample_recorder.h"

namespace covkit::sample {

// `request.mode` must be breakpoint; `skip_prefixes`: modules not planted.
Expected<RecordOutcome, RecordError> record_breakpoint_session(const RecordRequest& request,
                                                                std::vector<std::string> skip_prefixes);

}  // namespace covkit::sample
