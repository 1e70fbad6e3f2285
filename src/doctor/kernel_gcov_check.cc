#include "doctor/kernel_gcov_check.h"

#include <fmt/format.h>

#include <sstream>

#include "util/gzip.h"

namespace covkit::doctor {

namespace {

constexpr const char* kKernelGcovUses = "covkit report /sys/kernel/debug/gcov, covkit gcov (the kernel's coverage)";

// Where debugfs is mounted, from /proc/mounts ("" when it is not).
std::string debugfs_mount(const MachineView& m) {
  std::istringstream lines(m.read("/proc/mounts").value_or(""));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string device, point, type;
    words >> device >> point >> type;
    if (type == "debugfs") return point;
  }
  return "";
}

// CONFIG_GCOV_KERNEL in the running kernel's configuration: "y", "n", or
// "" when no configuration was found (/boot/config-RELEASE, /proc/config.gz).
std::string kernel_gcov_config(const MachineView& m) {
  std::string config;
  if (auto release = m.read_line("/proc/sys/kernel/osrelease"))
    config = m.read("/boot/config-" + *release).value_or("");
  if (config.empty())
    if (auto packed = m.read("/proc/config.gz"))
      if (auto text = util::gzip_decompress(*packed, size_t(16) << 20)) config = *text;
  if (config.empty()) return "";
  if (config.find("\nCONFIG_GCOV_KERNEL=y") != std::string::npos) return "y";
  return "n";
}

}  // namespace

Finding check_kernel_gcov(const MachineView& m) {
  Finding f{"kernel gcov", Verdict::kOk, "kernel coverage (debugfs gcov)", "", kKernelGcovUses, ""};
  const std::string mount = debugfs_mount(m);
  const std::string dir = (mount.empty() ? std::string("/sys/kernel/debug") : mount) + "/gcov";
  if (m.exists(dir)) {
    f.detail = fmt::format("{} is there: the running kernel was built with CONFIG_GCOV_KERNEL", dir);
    return f;
  }
  const std::string config = kernel_gcov_config(m);
  f.verdict = Verdict::kMissing;
  if (config == "n") {
    f.detail = "the running kernel was built without CONFIG_GCOV_KERNEL";
    f.remedy = "only kernel developers need it: a kernel built with CONFIG_GCOV_KERNEL=y and GCOV_PROFILE";
  } else if (mount.empty()) {
    f.detail = "debugfs is not mounted" + std::string(config == "y" ? " (the kernel has CONFIG_GCOV_KERNEL)" : "");
    f.remedy = "mount -t debugfs none /sys/kernel/debug (as root)";
  } else {
    f.detail = fmt::format("no {}{}", dir,
                           config.empty() ? " (the kernel's configuration was not found)"
                                          : " although the kernel has CONFIG_GCOV_KERNEL (not readable by this user?)");
    f.remedy = "only kernel developers need it: a kernel built with CONFIG_GCOV_KERNEL=y; read it as root";
  }
  return f;
}

}  // namespace covkit::doctor
