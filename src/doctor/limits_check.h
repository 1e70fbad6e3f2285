#pragma once
// The limits that bound what covkit records: process and thread ids, open
// files (a trace has one stream per thread), file size (trace and sample
// files stop at it), locked memory and the perf sample rate (sample
// --source perf's rings and frequency).
#include <vector>

#include "doctor/finding.h"
#include "doctor/machine_view.h"

namespace covkit::doctor {

std::vector<Finding> check_limits(const MachineView& machine);

}  // namespace covkit::doctor
