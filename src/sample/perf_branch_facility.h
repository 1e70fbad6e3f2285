#pragma once
// Which hardware branch stack this machine has, and the counter covkit asks
// each one for. The kernel's drivers accept different attributes: Intel's
// LBR (legacy and architectural) and AMD's LbrExtV2 take any sampling event
// with a branch filter; AMD's BRS (Zen 3) only the retired-taken-branches
// event at a fixed period (its driver refuses frequency mode) and no filter
// but "any"; Arm's BRBE refuses the transaction and call-stack filters.
// tests/unit/perf_branch_facility_test.cc checks every attribute made here
// against those rules, written down from the kernel's sources.
//
// And why a counter was refused: "this machine has no branch stack (or no
// PMU)" and "not permitted" are facts about the machine, on which covkit
// falls back to its emulation; every other refusal (an attribute the
// kernel finds invalid for a PMU that is there) is covkit's defect, and
// reported as one.
#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <vector>

namespace covkit::sample {

enum class BranchFacility { none, intel_lbr, intel_arch_lbr, amd_brs, amd_lbr_v2, arm_brbe };

const char* facility_name(BranchFacility f);

// What the machine says about its PMUs, read once (tests build their own).
struct PmuFacts {
  std::vector<std::string> pmus;  // /sys/bus/event_source/devices
  // caps/branches of a core PMU: entries of its branch stack, 0 when none.
  // The kernel shows it only where its driver found one: x86's intel/lbr.c
  // and amd/core.c (lbr_nr), arm_pmuv3.c where arm_brbe.c probed BRBE
  // (8, 16, 32 or 64 records).
  int branch_depth = 0;
  bool x86 = false, arm64 = false;
  bool intel = false, amd = false;  // /proc/cpuinfo vendor_id
  // /proc/cpuinfo flags (x86): arch_lbr, brs (Zen 3), amd_lbr_v2 (Zen 4).
  bool arch_lbr = false, amd_brs = false, amd_lbr_v2 = false;
  // Architectural LBR filters by privilege level (CPUID leaf 0x1C, EBX bit
  // 0): without it the kernel refuses a user-only branch filter.
  bool arch_lbr_cpl = true;
};

PmuFacts read_pmu_facts();
// The same from a sysfs `devices` folder and /proc/cpuinfo's text, on an
// x86 or arm64 machine (the unit test lays out machines it cannot run on).
PmuFacts pmu_facts_from(const std::string& devices, const std::string& cpuinfo, bool x86, bool arm64);
BranchFacility branch_facility(const PmuFacts& facts);

// The kernel's event for branch stacks on `f`: type, config, period or
// frequency, and the branch filter (user-space branches of every kind).
struct BranchEvent {
  uint32_t type = PERF_TYPE_HARDWARE;
  uint64_t config = PERF_COUNT_HW_CPU_CYCLES;
  bool freq = true;
  uint64_t period_or_freq = 4000;
  uint64_t branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY;
};

// AMD's retired taken branches (PPR Fam19h event 0xC4), the only event BRS
// samples on.
inline constexpr uint64_t kAmdRetiredTakenBranches = 0xc4;
// Taken branches per ns, roughly, where a period must be counted in them
// (BRS): a 3 GHz core taking a branch every ~12 cycles.
inline constexpr uint64_t kNsPerTakenBranch = 4;

// `period_ns` is the mean time between samples; `depth` the branch stack's
// entries (BRS's period must exceed it).
BranchEvent branch_event_for(BranchFacility f, uint64_t period_ns, int depth);

// Why perf_event_open refused a counter.
enum class RefusalKind {
  absent,         // no PMU, or no branch stack on it, or no perf events at all: emulate
  not_permitted,  // perf_event_paranoid, capabilities: emulate, and say so
  failed,         // anything else (the kernel found covkit's attributes wrong, ...): fail
};

// `err` from perf_event_open (or 0 for "no facility found"), for a branch
// stack counter (branch = true) or the cpu-clock software event.
RefusalKind classify_refusal(int err, bool branch, BranchFacility facility);

}  // namespace covkit::sample
