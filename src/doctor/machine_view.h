#pragma once
// The machine as `covkit doctor` reads it: files of /proc, /sys, /boot and
// the container markers below a root directory ("/", or a copy of another
// machine's, or a test's faked tree), and whether it may also probe the
// running system (open a perf counter, ptrace a child, time the clock),
// which only makes sense when the root is the machine's own.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace covkit::doctor {

// `text` without leading and trailing blanks and line ends.
std::string trimmed(std::string_view text);

class MachineView {
 public:
  // `root` "/" (the machine itself, probes allowed) or a directory.
  explicit MachineView(std::string root);

  // The text of ROOT/path (path absolute, "/proc/sys/kernel/pid_max"),
  // read to its end (proc files report size 0); nullopt when it cannot be
  // read. At most 1 MiB: these are small files.
  std::optional<std::string> read(std::string_view path) const;
  // Its first line without surrounding blanks.
  std::optional<std::string> read_line(std::string_view path) const;
  std::optional<long long> read_number(std::string_view path) const;
  bool exists(std::string_view path) const;
  // The names in directory ROOT/path, sorted; empty when it cannot be read.
  std::vector<std::string> list(std::string_view path) const;

  // The machine's own root: probes of the live system are meaningful.
  bool live() const { return live_; }
  const std::string& root() const { return root_; }

  // The CPU flags of /proc/cpuinfo's first processor ("flags" on x86,
  // "Features" on ARM), and its vendor ("GenuineIntel", "AuthenticAMD",
  // "ARM" from "CPU implementer 0x41").
  std::vector<std::string> cpu_flags() const;
  bool has_cpu_flag(std::string_view flag) const;
  std::string cpu_vendor() const;

 private:
  std::string path_of(std::string_view path) const;
  std::string root_;
  bool live_;
};

}  // namespace covkit::doctor
