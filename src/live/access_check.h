#pragma once
// Why the kernel refused covkit a process, in one line. covkit asks for no
// more than the kernel's ptrace access rules grant (the same user, or root;
// Yama's kernel.yama.ptrace_scope; a process that made itself undumpable is
// root's only); when they refuse, the line says which rule did and what
// would allow it. Root is refused too: without CAP_SYS_PTRACE (a container
// drops it), under Yama's scope 3, or by what root's capabilities do not
// override (a seccomp filter, a security module, a sandbox, another user
// namespace); its line says which, never "only root may".
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "util/expected.h"

namespace covkit::live {

// Whether `e` is a refusal (EPERM/EACCES) rather than another failure.
bool is_refusal(const Error& e);
// "process 123 belongs to user bob (uid 1001): only that user or root may
// read its counters" and the like.
std::string explain_refusal(pid_t pid, const Error& e);
// One line for a failure concerning `pid`: a refusal worded by the rule that
// refused, any other failure as "process PID: what" (its errno kept).
Error about_process(pid_t pid, const Error& e);

// What the line is made of: read from /proc by refusal_facts, or made by
// hand (tests).
struct RefusalFacts {
  pid_t pid = 0;
  int errno_value = 0;
  uid_t euid = 0;                      // covkit's
  pid_t self = 0;                      // covkit's pid
  std::optional<uid_t> uid;            // the process's
  std::string user;                    // "bob (uid 1001)", for the line
  std::optional<long long> tracer;     // the process's TracerPid
  std::optional<int> ptrace_scope;     // Yama's; nullopt without Yama
  std::optional<uint64_t> effective;   // covkit's CapEff
  std::optional<uint64_t> permitted;   // covkit's CapPrm
  std::optional<uint64_t> target_permitted;  // the process's CapPrm
  int seccomp = 0;                     // covkit's seccomp mode (2: a filter)
  bool other_user_namespace = false;   // the process is in another one
};
RefusalFacts refusal_facts(pid_t pid, const Error& e);
std::string explain_refusal(const RefusalFacts& f);

}  // namespace covkit::live
