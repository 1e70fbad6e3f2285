#pragma once
// What the kernel's perf events give covkit: perf_event_paranoid and the
// capabilities that bypass it, software events (sample record --mode pc
// --source perf), a hardware PMU, and which branch-record facility it has
// (Intel LBR, AMD BRS or LbrExtV2, ARM BRBE) for real branch vectors
// (--mode branch --source perf) instead of their emulation.
#include <optional>
#include <string>
#include <vector>

#include "doctor/finding.h"
#include "doctor/machine_view.h"

namespace covkit::doctor {

// The facts, read (and on the machine itself, probed with a counter opened
// on covkit and never enabled) or made by hand in tests.
struct PerfFacts {
  std::optional<int> paranoid;          // nullopt: no perf events in this kernel
  bool privileged = false;              // root, CAP_PERFMON or CAP_SYS_ADMIN
  std::vector<std::string> pmus;        // hardware PMUs of /sys/bus/event_source/devices
  std::string branch_facility;          // "Intel LBR (32 entries)", "AMD BRS", ... or ""
  bool virtual_machine = false;         // the hypervisor CPU flag
  std::optional<std::string> software_probe;  // "" worked, else why not; nullopt: not tried
  std::optional<std::string> branch_probe;    // likewise, a branch-stack sampling counter
};
std::vector<Finding> perf_findings(const PerfFacts& facts);

std::vector<Finding> check_perf(const MachineView& machine);

}  // namespace covkit::doctor
