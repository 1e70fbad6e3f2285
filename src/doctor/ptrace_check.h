#pragma once
// Whether covkit may ptrace: its own children (sample record's ptrace
// breakpoint handler) and processes it did not start (live dump/reset/report
// PID, trace attach, sample record --pid). From Yama's ptrace_scope,
// covkit's user and capabilities, seccomp and the container it may run in;
// on the machine itself, also a real PTRACE_SEIZE of a child.
#include <optional>
#include <string>
#include <vector>

#include "doctor/finding.h"
#include "doctor/machine_view.h"

namespace covkit::doctor {

std::vector<Finding> check_ptrace(const MachineView& machine);

// What ptrace_scope, user and capabilities allow: the rules, apart from
// reading them (tests give them by hand).
struct PtraceFacts {
  bool root = false;                 // effective uid 0
  bool cap_sys_ptrace = false;       // in the effective set
  std::optional<int> yama_scope;     // nullopt: no Yama
  int seccomp = 0;                   // 2: a filter (containers' default profiles)
  std::string container;             // "docker", "podman", "lxc", ... or ""
  bool user_namespace = false;       // uid map is not the whole range
  std::optional<int> child_probe;    // errno of PTRACE_SEIZE on a child (0: it worked); nullopt: not tried
};
std::vector<Finding> ptrace_findings(const PtraceFacts& facts);

}  // namespace covkit::doctor
