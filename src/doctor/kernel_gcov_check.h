#pragma once
// The Linux kernel's own coverage (CONFIG_GCOV_KERNEL): its .gcda files in
// debugfs, which covkit gcov and covkit report read as a kernel-style tree.
#include "doctor/finding.h"
#include "doctor/machine_view.h"

namespace covkit::doctor {

Finding check_kernel_gcov(const MachineView& machine);

}  // namespace covkit::doctor
