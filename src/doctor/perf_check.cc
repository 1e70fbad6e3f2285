#include "doctor/perf_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "live/proc_files.h"
#include "sample/perf_event_session.h"

namespace covkit::doctor {

namespace {

constexpr int kCapSysAdmin = 21;
constexpr int kCapPerfmon = 38;

constexpr const char* kSoftwareUses = "sample record --mode pc --source perf, sample record --pid in pc mode";
constexpr const char* kBranchUses =
    "sample record --mode branch --source perf (real branch vectors), sample import-perf of perf record -b";

// Hardware PMUs among the event sources: the CPU's ("cpu", "cpu_core" and
// "cpu_atom" on hybrid Intel parts, "armv8_pmuv3_0", "armv8_cortex_a72"...),
// not the kernel's software, tracepoint, breakpoint or uprobe sources.
std::vector<std::string> cpu_pmus(const MachineView& m) {
  std::vector<std::string> pmus;
  for (const std::string& name : m.list("/sys/bus/event_source/devices"))
    if (name == "cpu" || name.starts_with("cpu_") || name.starts_with("armv8") || name.starts_with("armv7"))
      pmus.push_back(name);
  return pmus;
}

// The branch-record facility: the PMU's caps/branches (LBR depth on Intel,
// BRBE's on ARM) or AMD's CPU flags.
std::string branch_facility(const MachineView& m, const std::vector<std::string>& pmus) {
  const std::string vendor = m.cpu_vendor();
  if (m.has_cpu_flag("amd_lbr_v2")) return "AMD LbrExtV2";
  if (m.has_cpu_flag("brs")) return "AMD BRS";
  for (const std::string& pmu : pmus) {
    auto depth = m.read_number("/sys/bus/event_source/devices/" + pmu + "/caps/branches");
    if (!depth || *depth <= 0) continue;
    if (vendor == "GenuineIntel") return fmt::format("Intel LBR ({} entries)", *depth);
    if (vendor.starts_with("ARM")) return fmt::format("ARM BRBE ({} entries)", *depth);
    return fmt::format("a branch stack of {} entries", *depth);
  }
  if (m.has_cpu_flag("arch_lbr")) return "Intel architectural LBR";
  return "";
}

}  // namespace

std::vector<Finding> perf_findings(const PerfFacts& f) {
  std::vector<Finding> out;
  if (!f.paranoid) {
    out.push_back({"perf events", Verdict::kMissing, "perf events",
                   "no /proc/sys/kernel/perf_event_paranoid: a kernel without perf events (or a sandbox hiding them)",
                   kSoftwareUses, "a kernel with CONFIG_PERF_EVENTS; else sample's runtime samples instead"});
    return out;
  }
  const int level = *f.paranoid;
  const std::string bypass = f.privileged ? "; covkit is privileged (root, CAP_PERFMON or CAP_SYS_ADMIN), which "
                                            "bypasses it"
                                          : "";
  Finding paranoid{"perf events", Verdict::kInfo, fmt::format("kernel.perf_event_paranoid {}", level),
                   fmt::format("{}{}",
                               level <= -1  ? "no restriction"
                               : level == 0 ? "CPU-wide and kernel profiling allowed to all users"
                               : level == 1 ? "user and kernel space of one's own processes"
                               : level == 2 ? "user space of one's own processes"
                                            : "no perf events for unprivileged users (Debian's level)",
                               bypass),
                   kSoftwareUses, ""};
  const bool allowed = f.privileged || level <= 2;
  paranoid.verdict = allowed ? Verdict::kOk : Verdict::kMissing;
  if (!allowed) paranoid.remedy = "sudo sysctl kernel.perf_event_paranoid=2, run covkit as root, or give it CAP_PERFMON";
  out.push_back(paranoid);

  Finding software{"perf events", Verdict::kOk, "software events (cpu-clock)", "", kSoftwareUses, ""};
  if (f.software_probe) {
    software.verdict = f.software_probe->empty() ? Verdict::kOk : Verdict::kMissing;
    software.detail = f.software_probe->empty() ? "a cpu-clock counter opens on this machine" : *f.software_probe;
  } else {
    software.verdict = allowed ? Verdict::kOk : Verdict::kMissing;
    software.detail = allowed ? "permitted at this level (not probed)" : "not permitted at this level";
  }
  if (software.verdict != Verdict::kOk) software.remedy = allowed ? "" : paranoid.remedy;
  if (software.verdict != Verdict::kOk && software.remedy.empty())
    software.remedy = "sample record --source runtime samples inside the program instead";
  out.push_back(software);

  Finding pmu{"perf events", Verdict::kOk, "hardware PMU", "", "hardware events, real branch records", ""};
  if (f.pmus.empty()) {
    pmu.verdict = Verdict::kMissing;
    pmu.detail = f.virtual_machine ? "none: a virtual machine whose hypervisor passes no PMU through"
                                   : "none under /sys/bus/event_source/devices";
    pmu.remedy = f.virtual_machine ? "a VM with a virtual PMU (KVM: -cpu host,pmu=on; VMware: virtualize CPU "
                                     "performance counters), or bare metal"
                                   : "a kernel with the CPU's PMU driver";
  } else {
    pmu.detail = fmt::format("{}", fmt::join(f.pmus, ", "));
  }
  out.push_back(pmu);

  Finding branch{"perf events", Verdict::kOk, "branch records", "", kBranchUses, ""};
  const std::string facility = f.branch_facility.empty() ? "no LBR, BRS or BRBE" : f.branch_facility;
  if (f.branch_probe && f.branch_probe->empty()) {
    branch.detail = facility + ": a branch-stack counter opens on this machine";
  } else if (f.branch_probe || f.branch_facility.empty() || f.pmus.empty()) {
    branch.verdict = Verdict::kMissing;
    branch.detail = facility;
    if (f.branch_probe) branch.detail += ": " + *f.branch_probe;
    branch.remedy = "none needed for coverage: sample record --mode branch emulates branch vectors by "
                    "single-stepping (slower; --source runtime), and --mode breakpoint is exact";
    if (!f.pmus.empty() && !f.branch_facility.empty() && !allowed) branch.remedy = paranoid.remedy;
  } else {
    branch.verdict = allowed ? Verdict::kOk : Verdict::kMissing;
    branch.detail = facility + (allowed ? " (not probed)" : ", not permitted at this paranoid level");
    if (!allowed) branch.remedy = paranoid.remedy;
  }
  out.push_back(branch);
  return out;
}

std::vector<Finding> check_perf(const MachineView& m) {
  PerfFacts f;
  if (auto level = m.read_number("/proc/sys/kernel/perf_event_paranoid")) f.paranoid = int(*level);
  const std::string status = m.read("/proc/self/status").value_or("");
  if (auto caps = live::status_mask(status, "CapEff"))
    f.privileged = ((*caps >> kCapPerfmon) & 1) || ((*caps >> kCapSysAdmin) & 1);
  f.pmus = cpu_pmus(m);
  f.branch_facility = branch_facility(m, f.pmus);
  f.virtual_machine = m.has_cpu_flag("hypervisor");
  if (m.live() && f.paranoid) {
    auto software = sample::probe_perf(sample::PerfEventKind::cpu_clock);
    f.software_probe = software ? "" : software.error().message;
    auto branch = sample::probe_perf(sample::PerfEventKind::branch_stack);
    f.branch_probe = branch ? "" : branch.error().message;
  }
  return perf_findings(f);
}

}  // namespace covkit::doctor
