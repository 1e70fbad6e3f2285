#include "sample/perf_branch_facility.h"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace covkit::sample {

namespace {

// The core PMUs' names: "cpu" on x86 ("cpu_core"/"cpu_atom" on hybrid
// Intel parts); on Arm the names arm_pmuv3.c gives its CPU PMUs
// ("armv8_cortex_a76", "armv9_neoverse_n2", ...; "armv8_pmuv3_0" when
// probed from ACPI). Only those can show a BRBE depth: other Arm PMUs (SPE,
// uncore) have no branch stack.
bool is_core_pmu(const std::string& name) {
  return name == "cpu" || name == "cpu_core" || name == "cpu_atom" || name.rfind("armv8_", 0) == 0 ||
         name.rfind("armv9_", 0) == 0;
}

int read_int(const std::filesystem::path& p) {
  std::ifstream in(p);
  int v = 0;
  return (in >> v) ? v : 0;
}

bool has_word(const std::string& line, const char* word) {
  std::istringstream words(line);
  std::string w;
  while (words >> w)
    if (w == word) return true;
  return false;
}

}  // namespace

const char* facility_name(BranchFacility f) {
  switch (f) {
    case BranchFacility::intel_lbr: return "Intel LBR";
    case BranchFacility::intel_arch_lbr: return "Intel architectural LBR";
    case BranchFacility::amd_brs: return "AMD BRS";
    case BranchFacility::amd_lbr_v2: return "AMD LbrExtV2";
    case BranchFacility::arm_brbe: return "Arm BRBE";
    case BranchFacility::none: break;
  }
  return "no branch stack";
}

PmuFacts pmu_facts_from(const std::string& devices, const std::string& cpuinfo, bool x86, bool arm64) {
  PmuFacts f;
  f.x86 = x86;
  f.arm64 = arm64;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(devices, ec)) {
    const std::string name = entry.path().filename().string();
    f.pmus.push_back(name);
    if (is_core_pmu(name)) f.branch_depth = std::max(f.branch_depth, read_int(entry.path() / "caps" / "branches"));
  }
  std::istringstream lines(cpuinfo);
  std::string line;
  bool vendor = false, flags = false;
  while ((!vendor || !flags) && std::getline(lines, line)) {
    if (!vendor && line.rfind("vendor_id", 0) == 0) {
      vendor = true;
      f.intel = line.find("GenuineIntel") != std::string::npos;
      f.amd = line.find("AuthenticAMD") != std::string::npos;
    } else if (!flags && line.rfind("flags", 0) == 0) {
      flags = true;
      f.arch_lbr = has_word(line, "arch_lbr");
      f.amd_brs = has_word(line, "brs");
      f.amd_lbr_v2 = has_word(line, "amd_lbr_v2");
    }
  }
  return f;
}

PmuFacts read_pmu_facts() {
#if defined(__x86_64__) || defined(__i386__)
  const bool x86 = true, arm64 = false;
#elif defined(__aarch64__)
  const bool x86 = false, arm64 = true;
#else
  const bool x86 = false, arm64 = false;
#endif
  std::ifstream in("/proc/cpuinfo");
  std::ostringstream cpuinfo;
  cpuinfo << in.rdbuf();
  PmuFacts f = pmu_facts_from("/sys/bus/event_source/devices", cpuinfo.str(), x86, arm64);
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (f.arch_lbr && __get_cpuid_count(0x1c, 0, &a, &b, &c, &d)) f.arch_lbr_cpl = (b & 1) != 0;
#endif
  return f;
}

BranchFacility branch_facility(const PmuFacts& f) {
  // The kernel lists a depth only where its driver found a branch stack:
  // the CPU's flags alone (a VM may show them without a PMU) say nothing.
  if (f.branch_depth <= 0) return BranchFacility::none;
  // On Arm the depth is BRBE's: arm_pmuv3.c shows caps/branches only when
  // brbe_probe() found a BRBE it supports (a kernel without the driver, or
  // a CPU without BRBE, shows none, and branch stacks are refused there).
  if (f.arm64) return BranchFacility::arm_brbe;
  if (f.intel) {
    if (!f.arch_lbr) return BranchFacility::intel_lbr;
    // Without privilege filtering the kernel refuses a user-only filter,
    // and covkit never records kernel branches.
    return f.arch_lbr_cpl ? BranchFacility::intel_arch_lbr : BranchFacility::none;
  }
  if (f.amd) {
    // The kernel takes LbrExtV2 where the CPU has it, BRS otherwise.
    if (f.amd_lbr_v2) return BranchFacility::amd_lbr_v2;
    if (f.amd_brs) return BranchFacility::amd_brs;
  }
  return BranchFacility::none;
}

BranchEvent branch_event_for(BranchFacility f, uint64_t period_ns, int depth) {
  BranchEvent e;
  const uint64_t period = period_ns ? period_ns : 1;
  if (f == BranchFacility::amd_brs) {
    // BRS: retired taken branches only, a fixed period above its depth,
    // the "any" filter only (privilege bits aside).
    e.type = PERF_TYPE_RAW;
    e.config = kAmdRetiredTakenBranches;
    e.freq = false;
    e.period_or_freq = std::max<uint64_t>(uint64_t(std::max(depth, 16)) + 1, period / kNsPerTakenBranch);
    return e;
  }
  // Cycles at a frequency: the kernel keeps the rate whatever the clock.
  e.period_or_freq = std::max<uint64_t>(1, 1'000'000'000 / period);
  return e;
}

RefusalKind classify_refusal(int err, bool branch, BranchFacility facility) {
  if (err == EACCES || err == EPERM) return RefusalKind::not_permitted;
  if (err == ENOSYS) return RefusalKind::absent;  // no perf events, or a seccomp filter
  if (!branch) return RefusalKind::failed;        // software events exist wherever perf_event_open does
  if (facility != BranchFacility::none) {
    // A branch stack the kernel listed, taken by someone else (a guest's
    // LBR): not ours to fix.
    return err == EBUSY ? RefusalKind::absent : RefusalKind::failed;
  }
  // No PMU: ENOENT (no PMU takes hardware events); a PMU without a branch
  // stack: EOPNOTSUPP; a PMU that went away: ENODEV.
  if (err == 0 || err == ENOENT || err == EOPNOTSUPP || err == ENODEV) return RefusalKind::absent;
  return RefusalKind::failed;
}

}  // namespace covkit::sample
