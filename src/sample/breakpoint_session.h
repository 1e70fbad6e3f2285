#pragma once
// `covkit sample record --mode breakpoint` from end to end: the recording
// directory prepared as for the other modes, the program run under the
// breakpoint recorder with the CFG plan (cfg_breakpoint_provider), and the
// result saved in the same directory format, so `sample report` reads
// every mode alike.
#include "sample/sample_recorder.h"

namespace covkit::sample {

// `request.mode` must be breakpoint; `skip_prefixes`: modules not planted.
Expected<RecordOutcome, RecordError> record_breakpoint_session(const RecordRequest& request,
                                                                std::vector<std::string> skip_prefixes);

}  // namespace covkit::sample
