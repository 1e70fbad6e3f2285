#include "doctor/doctor_report.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "doctor/clock_check.h"
#include "doctor/compiler_check.h"
#include "doctor/kernel_gcov_check.h"
#include "doctor/limits_check.h"
#include "doctor/perf_check.h"
#include "doctor/ptrace_check.h"
#include "util/printable.h"

namespace covkit::doctor {

namespace {

// "x86_64, 2 CPUs, AuthenticAMD": the architecture of the machine itself;
// a faked tree's CPUs from its cpuinfo.
std::string machine_line(const MachineView& m) {
  std::string arch = "?";
  long cpus = 0;
  if (m.live()) {
    utsname u{};
    if (::uname(&u) == 0) arch = u.machine;
    cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  } else {
    const std::string info = m.read("/proc/cpuinfo").value_or("");
    for (size_t at = info.find("processor"); at != std::string::npos; at = info.find("\nprocessor", at + 1)) ++cpus;
    arch = "";
  }
  std::string line = arch;
  if (cpus > 0) line += fmt::format("{}{} CPU{}", line.empty() ? "" : ", ", cpus, cpus == 1 ? "" : "s");
  if (const std::string vendor = m.cpu_vendor(); !vendor.empty()) line += ", " + vendor;
  return line;
}

}  // namespace

const char* verdict_word(Verdict v) {
  switch (v) {
    case Verdict::kOk: return "ok";
    case Verdict::kLimited: return "limited";
    case Verdict::kMissing: return "missing";
    case Verdict::kInfo: return "info";
  }
  return "info";
}

Examination examine(const MachineView& m, const std::string& path, const std::string& scratch) {
  Examination e;
  e.kernel = "Linux " + m.read_line("/proc/sys/kernel/osrelease").value_or("(release unknown)");
  e.machine = machine_line(m);
  auto add = [&](std::vector<Finding> more) {
    for (Finding& f : more) e.findings.push_back(std::move(f));
  };
  add(check_compilers(path, scratch));
  add(check_ptrace(m));
  add(check_perf(m));
  add({check_kernel_gcov(m)});
  add({check_clock(m)});
  add(check_limits(m));
  return e;
}

std::string render_text(const Examination& e, const std::string& covkit_version) {
  std::string out = fmt::format("covkit {} on {}{}\n", covkit_version, e.kernel,
                                e.machine.empty() ? "" : " (" + e.machine + ")");
  std::string area;
  for (const Finding& f : e.findings) {
    if (f.area != area) {
      area = f.area;
      out += fmt::format("\n{}\n", area);
    }
    // What a faked tree or a compiler said may hold control characters.
    out += fmt::format("  {:<8}{}: {}\n", verdict_word(f.verdict), util::printable(f.what), util::printable(f.detail));
    if (!f.enables.empty()) out += fmt::format("  {:<8}for: {}\n", "", f.enables);
    if (!f.remedy.empty() && f.verdict != Verdict::kOk) out += fmt::format("  {:<8}to enable: {}\n", "", f.remedy);
    else if (!f.remedy.empty()) out += fmt::format("  {:<8}better: {}\n", "", f.remedy);
  }
  return out;
}

std::string render_json(const Examination& e, const std::string& covkit_version) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : e.findings)
    findings.push_back({{"area", f.area},
                        {"status", verdict_word(f.verdict)},
                        {"what", f.what},
                        {"detail", f.detail},
                        {"enables", f.enables},
                        {"remedy", f.remedy}});
  nlohmann::json j = {{"covkit", covkit_version}, {"kernel", e.kernel}, {"machine", e.machine}, {"findings", findings}};
  // Bytes from a faked tree or a compiler's message may not be UTF-8.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace covkit::doctor
