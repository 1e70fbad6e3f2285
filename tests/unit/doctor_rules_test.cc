// doctor/: the rules that turn a machine's facts into covkit doctor's lines
// (ptrace, perf events, the trace clock), from facts made by hand; reading
// them from faked /proc and /sys trees is tests/doctor's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "doctor/clock_check.h"
#include "doctor/perf_check.h"
#include "doctor/ptrace_check.h"

namespace covkit::doctor {
namespace doctor_rules_test {

// A copy: callers pass the findings as a temporary.
Finding find(const std::vector<Finding>& all, const std::string& what) {
  for (const Finding& f : all)
    if (f.what.find(what) != std::string::npos) return f;
  ADD_FAILURE() << "no finding about " << what;
  static const Finding none;
  return none;
}

PtraceFacts user(int scope) {
  PtraceFacts f;
  f.yama_scope = scope;
  return f;
}

TEST(DoctorPtrace, RootWithCapabilityTracesAnyProcess) {
  PtraceFacts f = user(1);
  f.root = f.cap_sys_ptrace = true;
  f.child_probe = 0;
  const auto all = ptrace_findings(f);
  EXPECT_EQ(find(all, "children").verdict, Verdict::kOk);
  const Finding& other = find(all, "did not start");
  EXPECT_EQ(other.verdict, Verdict::kOk);
  EXPECT_NE(other.detail.find("any process, of any user"), std::string::npos) << other.detail;
  EXPECT_NE(other.enables.find("live dump"), std::string::npos);
}

TEST(DoctorPtrace, UserUnderScopeOneHasOnlyChildren) {
  const auto all = ptrace_findings(user(1));
  EXPECT_EQ(find(all, "children").verdict, Verdict::kOk);
  const Finding& other = find(all, "did not start");
  EXPECT_EQ(other.verdict, Verdict::kMissing);
  EXPECT_NE(other.detail.find("only covkit's own descendants"), std::string::npos) << other.detail;
  EXPECT_NE(other.remedy.find("ptrace_scope=0"), std::string::npos) << other.remedy;
}

TEST(DoctorPtrace, UserUnderScopeZeroHasTheirOwnProcesses) {
  const Finding& other = find(ptrace_findings(user(0)), "did not start");
  EXPECT_EQ(other.verdict, Verdict::kLimited);
  EXPECT_NE(other.detail.find("own user only"), std::string::npos) << other.detail;
}

TEST(DoctorPtrace, ScopeTwoNeedsTheCapabilityEvenForChildren) {
  const auto all = ptrace_findings(user(2));
  EXPECT_EQ(find(all, "children").verdict, Verdict::kMissing);
  EXPECT_EQ(find(all, "did not start").verdict, Verdict::kMissing);
}

TEST(DoctorPtrace, ScopeThreeRefusesEveryoneUntilReboot) {
  PtraceFacts f = user(3);
  f.root = f.cap_sys_ptrace = true;
  for (const Finding& line : ptrace_findings(f)) {
    EXPECT_EQ(line.verdict, Verdict::kMissing);
    EXPECT_NE(line.remedy.find("reboot"), std::string::npos) << line.remedy;
  }
}

TEST(DoctorPtrace, ContainerRootWithoutCapabilityIsToldToAddIt) {
  PtraceFacts f;  // no Yama
  f.root = true;
  f.container = "docker";
  const Finding& other = find(ptrace_findings(f), "did not start");
  EXPECT_EQ(other.verdict, Verdict::kLimited);
  EXPECT_NE(other.detail.find("in a docker container"), std::string::npos) << other.detail;
  EXPECT_NE(other.remedy.find("--cap-add=SYS_PTRACE"), std::string::npos) << other.remedy;
}

TEST(DoctorPtrace, AFailedProbeOutweighsTheRules) {
  PtraceFacts f = user(0);
  f.root = f.cap_sys_ptrace = true;
  f.seccomp = 2;
  f.child_probe = 1;  // EPERM
  for (const Finding& line : ptrace_findings(f)) {
    EXPECT_EQ(line.verdict, Verdict::kMissing);
    EXPECT_NE(line.detail.find("PTRACE_SEIZE of a child failed"), std::string::npos) << line.detail;
    EXPECT_NE(line.detail.find("under a seccomp filter"), std::string::npos) << line.detail;
  }
}

TEST(DoctorPerf, NoPerfEventsAtAll) {
  const auto all = perf_findings(PerfFacts{});
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].verdict, Verdict::kMissing);
}

TEST(DoctorPerf, DebiansLevelThreeRefusesAnUnprivilegedUser) {
  PerfFacts f;
  f.paranoid = 3;
  f.pmus = {"cpu"};
  f.branch_facility = "Intel LBR (32 entries)";
  const auto all = perf_findings(f);
  EXPECT_EQ(find(all, "perf_event_paranoid").verdict, Verdict::kMissing);
  EXPECT_EQ(find(all, "software events").verdict, Verdict::kMissing);
  const Finding& branch = find(all, "branch records");
  EXPECT_EQ(branch.verdict, Verdict::kMissing);
  EXPECT_NE(branch.remedy.find("perf_event_paranoid=2"), std::string::npos) << branch.remedy;
}

TEST(DoctorPerf, PrivilegeBypassesTheLevel) {
  PerfFacts f;
  f.paranoid = 3;
  f.privileged = true;
  f.pmus = {"cpu"};
  f.branch_facility = "AMD BRS";
  const auto all = perf_findings(f);
  EXPECT_EQ(find(all, "perf_event_paranoid").verdict, Verdict::kOk);
  const Finding& branch = find(all, "branch records");
  EXPECT_EQ(branch.verdict, Verdict::kOk);
  EXPECT_NE(branch.detail.find("AMD BRS"), std::string::npos);
}

TEST(DoctorPerf, AVirtualMachineWithoutAPmuIsToldWhatReplacesIt) {
  PerfFacts f;
  f.paranoid = 2;
  f.virtual_machine = true;
  f.software_probe = "";
  f.branch_probe = "no hardware counters for branch stacks here";
  const auto all = perf_findings(f);
  EXPECT_EQ(find(all, "software events").verdict, Verdict::kOk);
  const Finding& pmu = find(all, "hardware PMU");
  EXPECT_EQ(pmu.verdict, Verdict::kMissing);
  EXPECT_NE(pmu.detail.find("virtual machine"), std::string::npos) << pmu.detail;
  const Finding& branch = find(all, "branch records");
  EXPECT_EQ(branch.verdict, Verdict::kMissing);
  EXPECT_NE(branch.remedy.find("single-stepping"), std::string::npos) << branch.remedy;
  EXPECT_NE(branch.detail.find("no hardware counters"), std::string::npos) << branch.detail;
}

TEST(DoctorPerf, AProbeThatWorksIsTheAnswer) {
  PerfFacts f;
  f.paranoid = 1;
  f.pmus = {"cpu"};
  f.branch_facility = "Intel LBR (32 entries)";
  f.software_probe = f.branch_probe = "";
  const Finding& branch = find(perf_findings(f), "branch records");
  EXPECT_EQ(branch.verdict, Verdict::kOk);
  EXPECT_NE(branch.detail.find("opens on this machine"), std::string::npos);
}

TEST(DoctorClock, InvariantTscWithTheTscClocksourceIsTheTsc) {
  const Finding f = clock_finding({"tsc", "tsc hpet acpi_pm", true, std::nullopt});
  EXPECT_EQ(f.verdict, Verdict::kOk);
  EXPECT_NE(f.detail.find("the TSC"), std::string::npos) << f.detail;
}

TEST(DoctorClock, KvmClockIsReadInTheVdso) {
  const Finding f = clock_finding({"kvm-clock", "kvm-clock tsc hpet acpi_pm", true, 41.0});
  EXPECT_EQ(f.verdict, Verdict::kOk);
  EXPECT_NE(f.detail.find("vDSO"), std::string::npos) << f.detail;
  EXPECT_NE(f.detail.find("41 ns"), std::string::npos) << f.detail;
  EXPECT_NE(f.remedy.find("echo tsc"), std::string::npos) << f.remedy;
}

TEST(DoctorClock, HpetCostsASystemCallPerEvent) {
  const Finding f = clock_finding({"hpet", "hpet acpi_pm", false, std::nullopt});
  EXPECT_EQ(f.verdict, Verdict::kLimited);
  EXPECT_NE(f.detail.find("system call"), std::string::npos) << f.detail;
}

}  // namespace doctor_rules_test
}  // namespace covkit::doctor
