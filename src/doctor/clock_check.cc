#include "doctor/clock_check.h"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <chrono>

namespace covkit::doctor {

namespace {

constexpr const char* kClockUses = "trace record (the time of every call and return)";

// Clocksources whose time the vDSO reads without entering the kernel.
bool vdso_clocksource(const std::string& name) {
  return name == "tsc" || name == "kvm-clock" || name == "hyperv_clocksource_tsc_page" || name == "arch_sys_counter" ||
         name == "xen";
}

// The cost of one CLOCK_MONOTONIC read here: the best of a few rounds.
double measure_clock_read() {
  constexpr int kReads = 20000;
  double best = 1e9;
  for (int round = 0; round < 5; ++round) {
    timespec ts{};
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kReads; ++i) clock_gettime(CLOCK_MONOTONIC, &ts);
    const std::chrono::duration<double, std::nano> spent = std::chrono::steady_clock::now() - start;
    best = std::min(best, spent.count() / kReads);
  }
  return best;
}

}  // namespace

Finding clock_finding(const ClockFacts& f) {
  Finding out{"clock", Verdict::kOk, "trace clock", "", kClockUses, ""};
  const std::string cost = f.ns_per_read ? fmt::format(" (a CLOCK_MONOTONIC read costs {:.0f} ns here)", *f.ns_per_read) : "";
  const std::string source = f.clocksource.empty() ? "an unknown clocksource" : "clocksource " + f.clocksource;
  if (f.invariant_tsc && f.clocksource == "tsc") {
    out.detail = fmt::format("the TSC ({}, invariant TSC): a few ns per event{}", source, cost);
    return out;
  }
  const bool tsc_available = f.available.find("tsc") != std::string::npos;
  if (vdso_clocksource(f.clocksource)) {
    out.detail = fmt::format("CLOCK_MONOTONIC through the vDSO ({}{}){}", source,
                             f.invariant_tsc ? "" : ", no invariant TSC", cost);
    if (tsc_available && f.invariant_tsc)
      out.remedy = "the TSC is cheaper: echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource "
                   "(if the kernel trusts it)";
    return out;
  }
  out.verdict = Verdict::kLimited;
  out.detail = fmt::format("CLOCK_MONOTONIC by a system call per event ({}: the vDSO cannot read it){}", source, cost);
  out.remedy = tsc_available ? "echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource"
                             : "tracing costs several times more here; a clocksource the vDSO reads (tsc, "
                               "kvm-clock) would not";
  return out;
}

Finding check_clock(const MachineView& m) {
  ClockFacts f;
  f.clocksource = m.read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource").value_or("");
  f.available = m.read_line("/sys/devices/system/clocksource/clocksource0/available_clocksource").value_or("");
  // The kernel's flags for CPUID 0x80000007's invariant-TSC bit, which the runtime reads.
  f.invariant_tsc = m.has_cpu_flag("nonstop_tsc") && m.has_cpu_flag("constant_tsc");
  if (m.live()) f.ns_per_read = measure_clock_read();
  return clock_finding(f);
}

}  // namespace covkit::doctor
