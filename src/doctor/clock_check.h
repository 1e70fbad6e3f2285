#pragma once
// The clock libcovkit-trace will time calls with, by the runtime's own rule
// (runtime/trace/clock.c): the TSC where it is invariant and the kernel's
// clocksource is tsc; else CLOCK_MONOTONIC, read in the vDSO or, with a
// clocksource it cannot serve (hpet, acpi_pm), by a system call per event.
#include <optional>
#include <string>

#include "doctor/finding.h"
#include "doctor/machine_view.h"

namespace covkit::doctor {

struct ClockFacts {
  std::string clocksource;  // "tsc", "kvm-clock", "" when unknown
  std::string available;    // the kernel's available_clocksource
  bool invariant_tsc = false;
  std::optional<double> ns_per_read;  // measured on the machine itself
};
Finding clock_finding(const ClockFacts& facts);

Finding check_clock(const MachineView& machine);

}  // namespace covkit::doctor
