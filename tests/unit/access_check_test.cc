// live/access_check: the one line that says why the kernel refused covkit a
// process, from the facts /proc gives (made by hand here). Root is refused
// too, and its line must name the real reason, never "only root may".
#include "live/access_check.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

namespace covkit::live {
namespace access_check_test {

constexpr uint64_t kAllCaps = 0x1ffffffffffull;
constexpr uint64_t kNoSysPtrace = kAllCaps & ~(uint64_t(1) << 19);

RefusalFacts root_refused(pid_t pid = 1) {
  RefusalFacts f;
  f.pid = pid;
  f.errno_value = EACCES;
  f.euid = 0;
  f.self = 4242;
  f.uid = 0;
  f.user = "root (uid 0)";
  f.tracer = 0;
  f.effective = f.permitted = kAllCaps;
  f.target_permitted = kAllCaps;
  return f;
}

bool has(const std::string& line, const std::string& part) { return line.find(part) != std::string::npos; }

// covkit as root with CAP_SYS_PTRACE refused (a sandbox's Landlock, a
// security module): it said "only root may read it then".
TEST(ExplainRefusal, RootWithCapSysPtraceIsRefusedByWhatRootDoesNotOverride) {
  const std::string line = explain_refusal(root_refused());
  EXPECT_FALSE(has(line, "only root")) << line;
  EXPECT_EQ(line,
            "the kernel refused access to process 1 (Permission denied), although covkit runs as root with "
            "CAP_SYS_PTRACE: not the ptrace rules refused it but a security module (AppArmor, SELinux, Landlock) or "
            "a sandbox covkit runs in; run covkit where it may trace the process (in its container, outside the "
            "sandbox)");
  RefusalFacts seccomp = root_refused();
  seccomp.seccomp = 2;
  EXPECT_TRUE(has(explain_refusal(seccomp), "covkit runs under a seccomp filter")) << explain_refusal(seccomp);
  RefusalFacts other_ns = root_refused();
  other_ns.other_user_namespace = true;
  EXPECT_TRUE(has(explain_refusal(other_ns), "process 1 is in another user namespace")) << explain_refusal(other_ns);
}

// Root without CAP_SYS_PTRACE (a container's default): the rule that needed it.
TEST(ExplainRefusal, RootWithoutCapSysPtraceSaysWhichRuleNeededIt) {
  RefusalFacts f = root_refused(77);
  f.effective = f.permitted = kNoSysPtrace;
  f.target_permitted = kNoSysPtrace;
  f.uid = 65534;
  f.user = "nobody (uid 65534)";
  std::string line = explain_refusal(f);
  EXPECT_EQ(line,
            "the kernel refused access to process 77 (Permission denied): covkit runs as root but without the "
            "CAP_SYS_PTRACE capability, which root needs to trace another user's process (process 77 belongs to "
            "user nobody (uid 65534)); give covkit that capability (a container drops it: docker run "
            "--cap-add=SYS_PTRACE)");
  f.uid = 0;
  f.target_permitted = kAllCaps;  // holds CAP_SYS_PTRACE, which covkit lacks
  EXPECT_TRUE(has(explain_refusal(f), "a process holding capabilities it lacks (process 77 may use 0x1ffffffffff, "
                                      "covkit 0x1fffff7ffff)"))
      << explain_refusal(f);
  f.target_permitted = 0;
  EXPECT_TRUE(has(explain_refusal(f), "made itself undumpable")) << explain_refusal(f);
  EXPECT_FALSE(has(explain_refusal(f), "only root")) << explain_refusal(f);
  f.ptrace_scope = 1;
  EXPECT_TRUE(has(explain_refusal(f), "kernel.yama.ptrace_scope 1 requires")) << explain_refusal(f);
  f.ptrace_scope = 2;
  EXPECT_TRUE(has(explain_refusal(f), "kernel.yama.ptrace_scope 2 requires of every tracer")) << explain_refusal(f);
}

// Yama's scope 3 refuses root too; it was only looked at for other users.
TEST(ExplainRefusal, YamaScopeThreeRefusesRootToo) {
  RefusalFacts f = root_refused();
  f.ptrace_scope = 3;
  EXPECT_EQ(explain_refusal(f),
            "the kernel refused access to process 1: kernel.yama.ptrace_scope is 3 (no process may be traced, not "
            "even by root, until the next boot)");
}

// Other users keep their lines.
TEST(ExplainRefusal, OtherUsersLinesAsBefore) {
  RefusalFacts f = root_refused(9);
  f.euid = 1000;
  f.uid = 1001;
  f.user = "bob (uid 1001)";
  EXPECT_EQ(explain_refusal(f), "process 9 belongs to user bob (uid 1001); only that user or root may read its counters");
  f.uid = 1000;
  f.tracer = 12;
  EXPECT_TRUE(has(explain_refusal(f), "already traced by process 12")) << explain_refusal(f);
  f.tracer = 0;
  f.ptrace_scope = 1;
  EXPECT_TRUE(has(explain_refusal(f), "run covkit as root, or set it to 0 with sysctl")) << explain_refusal(f);
  f.ptrace_scope.reset();
  EXPECT_EQ(explain_refusal(f),
            "the kernel refused access to process 9 (Permission denied): it may have made itself undumpable "
            "(setuid, prctl PR_SET_DUMPABLE); only root may read it then");
}

}  // namespace access_check_test
}  // namespace covkit::live
