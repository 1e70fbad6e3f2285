// The attributes covkit gives perf_event_open for branch stacks, checked
// against the kernel's acceptance rules for each facility. This VM has no
// PMU, so the kernel itself cannot be asked: the rules below are written
// down (not copied) from Linux's sources, as read for this test:
//   kernel/events/core.c        perf_copy_attr: the generic branch_sample_type checks
//   arch/x86/events/intel/lbr.c intel_pmu_setup_lbr_filter and its software/hardware
//                               filters, the legacy and architectural LBR filter maps
//   arch/x86/events/amd/core.c  amd_pmu_hw_config; amd/brs.c amd_brs_hw_config and
//                               amd_brs_setup_filter; amd/lbr.c amd_pmu_lbr_setup_filter
//   drivers/perf/arm_brbe.c     brbe_branch_attr_valid, brbe_probe, valid_brbe_nr;
//                               arm_pmuv3.c armv8pmu_set_event_filter, caps_is_visible and
//                               branches_show (caps/branches), the PMUV3_INIT_SIMPLE names;
//                               arm_pmu.c armpmu_event_init (no BRBE: EOPNOTSUPP)
// Each rule is also shown to refuse what it should, so that a rule that
// accepts everything cannot pass the facility checks by accident.
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cerrno>
#include <filesystem>
#include <map>

#include "sample/perf_branch_facility.h"
#include "sample/perf_event_session.h"
#include "test_support.h"

namespace covkit {
namespace perf_branch_facility_test {

using sample::BranchFacility;

// A machine as the kernel's drivers see it.
struct Machine {
  BranchFacility facility = BranchFacility::none;
  bool pmu = true;          // a hardware PMU at all (PERF_TYPE_HARDWARE/RAW have a taker)
  int depth = 16;           // x86_pmu.lbr_nr, BRBE's record count
  bool kernel_ok = false;   // perf_allow_kernel: paranoid <= 1 or CAP_PERFMON
  bool arch_cpl = true, arch_filter = true, arch_call_stack = true;  // CPUID 0x1C
  bool lbr_call_stack = true;  // legacy LBR: Haswell and later
};

constexpr uint64_t kPlmAll = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV;
constexpr uint64_t kPermPlm = PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV;
constexpr uint64_t kAmdCycles = 0x76;  // PERF_COUNT_HW_CPU_CYCLES on AMD Fam17h and later

bool sampling(const perf_event_attr& a) { return a.freq ? a.sample_freq != 0 : a.sample_period != 0; }

// intel/lbr.c: the bits whose filter-map entry is "not supported".
uint64_t intel_unsupported(const Machine& m) {
  if (m.facility == BranchFacility::intel_lbr)  // Haswell/Skylake map: every defined type has an entry
    return m.lbr_call_stack ? 0 : PERF_SAMPLE_BRANCH_CALL_STACK;
  uint64_t no = 0;  // architectural LBR, after intel_pmu_arch_lbr_init
  if (!m.arch_cpl || !m.arch_filter || !m.arch_call_stack) no |= PERF_SAMPLE_BRANCH_CALL_STACK;
  if (!m.arch_cpl && !m.arch_filter) return 0;  // no hardware filter map at all: software filtering only
  if (!m.arch_cpl) no |= PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL;
  else if (!m.arch_filter)
    no |= PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_ANY_RETURN | PERF_SAMPLE_BRANCH_ANY_CALL |
          PERF_SAMPLE_BRANCH_IND_CALL | PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_IND_JUMP | PERF_SAMPLE_BRANCH_CALL;
  return no;
}

int intel_rules(const Machine& m, uint64_t mask) {
  if (m.depth <= 0) return EOPNOTSUPP;
  if (mask & PERF_SAMPLE_BRANCH_CALL_STACK) {
    const bool has = m.facility == BranchFacility::intel_lbr ? m.lbr_call_stack : m.arch_call_stack && m.arch_cpl && m.arch_filter;
    if (!has) return EOPNOTSUPP;
    if (mask & ~(kPlmAll | PERF_SAMPLE_BRANCH_CALL_STACK)) return EINVAL;
  }
  return (mask & intel_unsupported(m)) ? EOPNOTSUPP : 0;
}

int amd_brs_rules(const Machine& m, const perf_event_attr& a, uint64_t mask) {
  if (!sampling(a)) return EINVAL;
  const uint64_t event = a.type == PERF_TYPE_RAW ? (a.config & 0xff) : a.config == PERF_COUNT_HW_CPU_CYCLES ? kAmdCycles : 0;
  if (event != sample::kAmdRetiredTakenBranches) return EINVAL;  // retired taken branches only
  if (a.freq) return EINVAL;                                      // no frequency mode
  if (a.sample_period <= uint64_t(m.depth)) return EINVAL;        // the depth is taken off the period
  if ((mask & ~kPlmAll) != PERF_SAMPLE_BRANCH_ANY) return EINVAL;  // no filtering
  return 0;
}

int amd_lbr_v2_rules(const perf_event_attr& a, uint64_t mask) {
  if (!sampling(a)) return EINVAL;
  const uint64_t no = PERF_SAMPLE_BRANCH_ABORT_TX | PERF_SAMPLE_BRANCH_IN_TX | PERF_SAMPLE_BRANCH_NO_TX |
                      PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES;
  return (mask & no) ? EOPNOTSUPP : 0;
}

int arm_brbe_rules(const Machine& m, const perf_event_attr& a, uint64_t mask) {
  if (m.depth <= 0) return EOPNOTSUPP;
  const uint64_t excluded = PERF_SAMPLE_BRANCH_ABORT_TX | PERF_SAMPLE_BRANCH_IN_TX | PERF_SAMPLE_BRANCH_NO_TX |
                            PERF_SAMPLE_BRANCH_CALL_STACK | (1ULL << 19) /* PERF_SAMPLE_BRANCH_COUNTERS */;
  const uint64_t types = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_ANY_RETURN |
                         PERF_SAMPLE_BRANCH_IND_CALL | PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_IND_JUMP |
                         PERF_SAMPLE_BRANCH_CALL;
  if (mask & excluded) return EOPNOTSUPP;
  if (!(mask & types)) return EOPNOTSUPP;
  if (a.exclude_host || (a.exclude_user && a.exclude_kernel)) return EOPNOTSUPP;
  return 0;
}

// 0 when the kernel would open the counter, else its errno.
int kernel_verdict(const Machine& m, perf_event_attr a) {
  if (!(a.sample_type & PERF_SAMPLE_BRANCH_STACK)) return 0;
  uint64_t mask = a.branch_sample_type;
  if (mask & ~uint64_t(PERF_SAMPLE_BRANCH_MAX - 1)) return EINVAL;  // defined bits only
  if (!(mask & ~kPlmAll)) return EINVAL;                            // at least one branch type
  if (!(mask & kPlmAll)) {  // the privilege levels come from the event's exclusions
    if (!a.exclude_kernel) mask |= PERF_SAMPLE_BRANCH_KERNEL;
    if (!a.exclude_user) mask |= PERF_SAMPLE_BRANCH_USER;
    if (!a.exclude_hv) mask |= PERF_SAMPLE_BRANCH_HV;
  }
  if ((mask & kPermPlm) && !m.kernel_ok) return EACCES;
  if (a.type != PERF_TYPE_HARDWARE && a.type != PERF_TYPE_RAW) return EOPNOTSUPP;  // software events have no branch stack
  if (!m.pmu) return ENOENT;
  switch (m.facility) {
    case BranchFacility::none: return EOPNOTSUPP;  // lbr_nr == 0 on x86, no BRBE on Arm
    case BranchFacility::intel_lbr:
    case BranchFacility::intel_arch_lbr: return intel_rules(m, mask);
    case BranchFacility::amd_brs: return amd_brs_rules(m, a, mask);
    case BranchFacility::amd_lbr_v2: return amd_lbr_v2_rules(a, mask);
    case BranchFacility::arm_brbe: return arm_brbe_rules(m, a, mask);
  }
  return EINVAL;
}

perf_event_attr covkit_attr(BranchFacility f, uint64_t period_ns, int depth = 16) {
  sample::PerfEventConfig c;
  c.kind = sample::PerfEventKind::branch_stack;
  c.facility = f;
  c.branch_depth = depth;
  c.period_ns = period_ns;
  return sample::perf_event_attributes(c, 64 * 4096);
}

Machine machine(BranchFacility f, int depth = 16) {
  Machine m;
  m.facility = f;
  m.depth = depth;
  return m;
}

constexpr BranchFacility kFacilities[] = {BranchFacility::intel_lbr, BranchFacility::intel_arch_lbr,
                                          BranchFacility::amd_brs, BranchFacility::amd_lbr_v2,
                                          BranchFacility::arm_brbe};

TEST(PerfBranchFacility, EveryFacilityAcceptsCovkitsAttributesAtEveryPeriod) {
  for (BranchFacility f : kFacilities)
    for (uint64_t period : {100'000ull, 250'000ull, 1'000'000ull, 80'000'000ull})
      for (int depth : {8, 16, 32, 64}) {
        const perf_event_attr a = covkit_attr(f, period, depth);
        EXPECT_EQ(kernel_verdict(machine(f, depth), a), 0)
            << sample::facility_name(f) << " period " << period << " depth " << depth;
        // User space only: no kernel permission needed, no kernel branch.
        EXPECT_TRUE(a.exclude_kernel);
        EXPECT_EQ(a.branch_sample_type & kPermPlm, 0u);
        EXPECT_TRUE(a.sample_type & PERF_SAMPLE_BRANCH_STACK);
      }
}

TEST(PerfBranchFacility, AmdBrsGetsRetiredTakenBranchesAtAFixedPeriod) {
  const perf_event_attr a = covkit_attr(BranchFacility::amd_brs, 250'000);
  EXPECT_EQ(a.type, uint32_t(PERF_TYPE_RAW));
  EXPECT_EQ(a.config, sample::kAmdRetiredTakenBranches);
  EXPECT_FALSE(a.freq);
  EXPECT_EQ(a.sample_period, 250'000 / sample::kNsPerTakenBranch);
  // The shortest period still exceeds BRS's depth.
  EXPECT_GT(covkit_attr(BranchFacility::amd_brs, 1, 16).sample_period, 16u);
}

TEST(PerfBranchFacility, TheRulesRefuseWhatTheKernelRefuses) {
  // What covkit asked every PMU for before it knew the facility: cycles
  // at a frequency. BRS's driver refuses it twice over.
  const perf_event_attr generic = covkit_attr(BranchFacility::intel_lbr, 250'000);
  EXPECT_EQ(kernel_verdict(machine(BranchFacility::amd_brs), generic), EINVAL);
  perf_event_attr a = covkit_attr(BranchFacility::amd_brs, 250'000);
  a.freq = 1;
  EXPECT_EQ(kernel_verdict(machine(BranchFacility::amd_brs), a), EINVAL);
  a = covkit_attr(BranchFacility::amd_brs, 250'000);
  a.sample_period = 16;
  EXPECT_EQ(kernel_verdict(machine(BranchFacility::amd_brs), a), EINVAL);
  a = covkit_attr(BranchFacility::amd_brs, 250'000);
  a.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY_CALL;
  EXPECT_EQ(kernel_verdict(machine(BranchFacility::amd_brs), a), EINVAL);
  // Filters a facility does not have.
  a = covkit_attr(BranchFacility::amd_lbr_v2, 250'000);
  a.branch_sample_type |= PERF_SAMPLE_BRANCH_NO_CYCLES;
  EXPECT_EQ(kernel_verdict(machine(BranchFacility::amd_lbr_v2), a), EOPNOTSUPP);
  a = covkit_attr(BranchFacility::arm_brbe, 250'000);
  a.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK;
  EXPECT_EQ(kernel_verdict(machine(BranchFacility::arm_brbe), a), EOPNOTSUPP);
  a = covkit_attr(BranchFacility::arm_brbe, 250'000);
  a.exclude_user = 1;
  EXPECT_EQ(kernel_verdict(machine(BranchFacility::arm_brbe), a), EOPNOTSUPP);
  a = covkit_attr(BranchFacility::intel_lbr, 250'000);
  a.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_COND;
  EXPECT_EQ(kernel_verdict(machine(BranchFacility::intel_lbr), a), EINVAL);
  // Architectural LBR without privilege filtering cannot keep to user space.
  Machine no_cpl = machine(BranchFacility::intel_arch_lbr);
  no_cpl.arch_cpl = false;
  EXPECT_EQ(kernel_verdict(no_cpl, covkit_attr(BranchFacility::intel_arch_lbr, 250'000)), EOPNOTSUPP);
  Machine no_filter = machine(BranchFacility::intel_arch_lbr);
  no_filter.arch_filter = false;
  EXPECT_EQ(kernel_verdict(no_filter, covkit_attr(BranchFacility::intel_arch_lbr, 250'000)), EOPNOTSUPP);
  // Generic rules: a privilege level alone, undefined bits, kernel branches
  // (also when left to the exclusions) without permission.
  a = covkit_attr(BranchFacility::intel_lbr, 250'000);
  a.branch_sample_type = PERF_SAMPLE_BRANCH_USER;
  EXPECT_EQ(kernel_verdict(machine(BranchFacility::intel_lbr), a), EINVAL);
  a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_MAX;
  EXPECT_EQ(kernel_verdict(machine(BranchFacility::intel_lbr), a), EINVAL);
  a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
  a.exclude_kernel = 0;
  EXPECT_EQ(kernel_verdict(machine(BranchFacility::intel_lbr), a), EACCES);
  // No PMU, or one without a branch stack.
  Machine vm;
  vm.pmu = false;
  EXPECT_EQ(kernel_verdict(vm, generic), ENOENT);
  EXPECT_EQ(kernel_verdict(machine(BranchFacility::none), generic), EOPNOTSUPP);
  EXPECT_EQ(kernel_verdict(machine(BranchFacility::intel_lbr, 0), generic), EOPNOTSUPP);
}

sample::PmuFacts facts(bool intel, bool amd, int depth) {
  sample::PmuFacts f;
  f.x86 = true;
  f.intel = intel;
  f.amd = amd;
  f.branch_depth = depth;
  return f;
}

TEST(PerfBranchFacility, TheFacilityFromTheMachinesFacts) {
  EXPECT_EQ(sample::branch_facility(facts(true, false, 32)), BranchFacility::intel_lbr);
  sample::PmuFacts f = facts(true, false, 32);
  f.arch_lbr = true;
  EXPECT_EQ(sample::branch_facility(f), BranchFacility::intel_arch_lbr);
  f.arch_lbr_cpl = false;
  EXPECT_EQ(sample::branch_facility(f), BranchFacility::none);
  f = facts(false, true, 16);
  f.amd_brs = true;
  EXPECT_EQ(sample::branch_facility(f), BranchFacility::amd_brs);
  f.amd_lbr_v2 = true;  // the kernel prefers LbrExtV2
  EXPECT_EQ(sample::branch_facility(f), BranchFacility::amd_lbr_v2);
  // CPU flags without a depth the kernel lists: a VM without the PMU.
  f.branch_depth = 0;
  EXPECT_EQ(sample::branch_facility(f), BranchFacility::none);
  sample::PmuFacts arm;
  arm.arm64 = true;
  arm.branch_depth = 64;
  EXPECT_EQ(sample::branch_facility(arm), BranchFacility::arm_brbe);
}

// A machine's /sys/bus/event_source/devices as its kernel lays it out:
// each PMU a folder; `caps` files with their text.
struct SysfsPmu {
  std::string name;
  std::map<std::string, std::string> caps;
};

sample::PmuFacts facts_of(const std::vector<SysfsPmu>& pmus, const std::string& cpuinfo, bool arm64) {
  testing::TempDir dir;
  for (const SysfsPmu& p : pmus) {
    const std::string caps = dir / (p.name + "/caps");
    std::error_code ec;
    std::filesystem::create_directories(caps, ec);
    EXPECT_FALSE(ec) << caps;
    for (const auto& [file, text] : p.caps) EXPECT_TRUE(testing::write_text(caps + "/" + file, text));
  }
  return sample::pmu_facts_from(dir.path(), cpuinfo, !arm64, arm64);
}

// arm_pmuv3.c's caps: slots, bus_slots, bus_width always (0x%08x), and
// "branches" (the BRBE record count, %d) only where brbe_probe() accepted
// the CPU's BRBE: ID_AA64DFR0_EL1.BRBE implemented (v1 or v1p1), BRBIDR0
// format 0, a 20-bit cycle count, 8, 16, 32 or 64 records.
std::map<std::string, std::string> arm_caps(int brbe_records) {
  std::map<std::string, std::string> caps = {
      {"slots", "0x00000008\n"}, {"bus_slots", "0x00000000\n"}, {"bus_width", "0x00000000\n"}};
  if (brbe_records) caps["branches"] = std::to_string(brbe_records) + "\n";
  return caps;
}

const std::vector<SysfsPmu> kArmCommon = {{"software", {}}, {"tracepoint", {}}, {"breakpoint", {}},
                                          {"arm_spe_0", {}}, {"arm_cmn_0", {}}};
const char* const kArmCpuinfo = "processor\t: 0\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd evtstrm\n"
                                "CPU implementer\t: 0x41\nCPU part\t: 0xd84\n";

TEST(PerfBranchFacility, ArmBrbeIsWhatArmPmuv3ShowsInCaps) {
  for (int records : {8, 16, 32, 64})
    for (const char* pmu : {"armv9_neoverse_v3", "armv9_cortex_x925", "armv8_pmuv3_0"}) {
      std::vector<SysfsPmu> pmus = kArmCommon;
      pmus.push_back({pmu, arm_caps(records)});
      const sample::PmuFacts f = facts_of(pmus, kArmCpuinfo, true);
      EXPECT_EQ(f.branch_depth, records) << pmu;
      EXPECT_EQ(sample::branch_facility(f), BranchFacility::arm_brbe) << pmu;
      // and covkit's counter for it is one BRBE's driver accepts
      EXPECT_EQ(kernel_verdict(machine(BranchFacility::arm_brbe, records), covkit_attr(BranchFacility::arm_brbe,
                                                                                       250'000, records)),
                0);
    }
  // big.LITTLE: one PMU per CPU kind, BRBE on one only.
  std::vector<SysfsPmu> mixed = kArmCommon;
  mixed.push_back({"armv9_cortex_a520", arm_caps(0)});
  mixed.push_back({"armv9_cortex_x4", arm_caps(32)});
  EXPECT_EQ(facts_of(mixed, kArmCpuinfo, true).branch_depth, 32);
}

TEST(PerfBranchFacility, ArmWithoutBrbeHasNoBranchStack) {
  // A CPU without BRBE, or a kernel without arm_brbe.c (before 2025, or
  // CONFIG_ARM64_BRBE off): caps without "branches"; armpmu_event_init
  // then refuses every branch stack with EOPNOTSUPP.
  std::vector<SysfsPmu> pmus = kArmCommon;
  pmus.push_back({"armv8_neoverse_n1", arm_caps(0)});
  sample::PmuFacts f = facts_of(pmus, kArmCpuinfo, true);
  EXPECT_EQ(f.branch_depth, 0);
  EXPECT_EQ(sample::branch_facility(f), BranchFacility::none);
  EXPECT_EQ(kernel_verdict(machine(BranchFacility::none), covkit_attr(BranchFacility::arm_brbe, 250'000)),
            EOPNOTSUPP);
  EXPECT_EQ(sample::classify_refusal(EOPNOTSUPP, true, sample::branch_facility(f)), sample::RefusalKind::absent);
  // No PMU at all (a VM): nothing but the software PMUs.
  f = facts_of({{"software", {}}, {"tracepoint", {}}}, kArmCpuinfo, true);
  EXPECT_EQ(sample::branch_facility(f), BranchFacility::none);
  // A "branches" file on a PMU that is not a CPU's is no branch stack.
  pmus = kArmCommon;
  pmus.push_back({"arm_dsu_0", {{"branches", "64\n"}}});
  EXPECT_EQ(facts_of(pmus, kArmCpuinfo, true).branch_depth, 0);
}

TEST(PerfBranchFacility, X86FactsFromSysfsAndCpuinfo) {
  const std::string amd = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
                          "flags\t\t: fpu vme avx512f brs\n";
  // This VM: an AMD CPU that lists brs, no PMU driver, no caps/branches.
  sample::PmuFacts f = facts_of({{"software", {}}, {"tracepoint", {}}, {"kprobe", {}}}, amd, false);
  EXPECT_TRUE(f.amd && f.amd_brs);
  EXPECT_EQ(sample::branch_facility(f), BranchFacility::none);
  // amd/core.c shows x86_pmu.lbr_nr where BRS was set up.
  f = facts_of({{"cpu", {{"branches", "16\n"}}}, {"software", {}}}, amd, false);
  EXPECT_EQ(sample::branch_facility(f), BranchFacility::amd_brs);
  const std::string intel = "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu pse arch_lbr\n";
  f = facts_of({{"cpu_core", {{"branches", "32\n"}}}, {"cpu_atom", {{"branches", "32\n"}}}}, intel, false);
  EXPECT_TRUE(f.arch_lbr);
  EXPECT_EQ(f.branch_depth, 32);
  EXPECT_EQ(sample::branch_facility(f), BranchFacility::intel_arch_lbr);
}

TEST(PerfBranchFacility, RefusalsThatAreFactsAndRefusalsThatAreFailures) {
  using sample::RefusalKind;
  using sample::classify_refusal;
  // No PMU (ENOENT), a PMU without a branch stack (EOPNOTSUPP): absent.
  EXPECT_EQ(classify_refusal(ENOENT, true, BranchFacility::none), RefusalKind::absent);
  EXPECT_EQ(classify_refusal(EOPNOTSUPP, true, BranchFacility::none), RefusalKind::absent);
  EXPECT_EQ(classify_refusal(ENOSYS, true, BranchFacility::none), RefusalKind::absent);
  EXPECT_EQ(classify_refusal(EACCES, true, BranchFacility::intel_lbr), RefusalKind::not_permitted);
  EXPECT_EQ(classify_refusal(EPERM, false, BranchFacility::none), RefusalKind::not_permitted);
  // Invalid attributes, or a refusal on a machine that lists a branch
  // stack: covkit's attributes are wrong, never "no hardware".
  EXPECT_EQ(classify_refusal(EINVAL, true, BranchFacility::none), RefusalKind::failed);
  for (BranchFacility f : kFacilities) {
    EXPECT_EQ(classify_refusal(EINVAL, true, f), RefusalKind::failed);
    EXPECT_EQ(classify_refusal(EOPNOTSUPP, true, f), RefusalKind::failed);
    EXPECT_EQ(classify_refusal(ENOENT, true, f), RefusalKind::failed);
  }
  // Software events exist wherever perf_event_open does.
  EXPECT_EQ(classify_refusal(ENOENT, false, BranchFacility::none), RefusalKind::failed);
  EXPECT_EQ(classify_refusal(EINVAL, false, BranchFacility::none), RefusalKind::failed);
}

TEST(PerfBranchFacility, CpuClockAttributesAskForNoBranchStack) {
  sample::PerfEventConfig c;
  c.kind = sample::PerfEventKind::cpu_clock;
  c.period_ns = 10'000'000;
  const perf_event_attr a = sample::perf_event_attributes(c, 4096);
  EXPECT_EQ(a.type, uint32_t(PERF_TYPE_SOFTWARE));
  EXPECT_EQ(a.config, uint64_t(PERF_COUNT_SW_CPU_CLOCK));
  EXPECT_FALSE(a.sample_type & PERF_SAMPLE_BRANCH_STACK);
  EXPECT_EQ(a.sample_period, 10'000'000u);
  EXPECT_EQ(a.wakeup_watermark, 1024u);
}

}  // namespace perf_branch_facility_test
}  // namespace covkit
