#include "util/staged_file_cleanup.h"

#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

namespace covkit::util {

namespace {

// A fixed table of names in static memory: the handler may only read
// memory and unlinkat (async-signal-safe), and nothing is allocated for it.
// Names are relative to their directory's descriptor: the directory the
// output was created in, whatever was renamed meanwhile.
// Outputs written at once are few (a report's formats, a trace view).
enum : int { kFree, kFilling, kTracked };
struct StagedName {
  std::atomic<int> state{kFree};
  int dir{};  // meaningful only while tracked (zero, so the table stays in .bss)
  char name[PATH_MAX]{};
};
constexpr int kStagedNames = 32;
// constinit: zeroed at load time, as .bss. Initialised at run time (as GCC
// did while `name` had no initialiser), it cost every command 32 page
// faults before main().
constinit StagedName slots[kStagedNames];
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_staged_and_die(int sig) {
  for (StagedName& s : slots)
    if (s.state.load() == kTracked) ::unlinkat(s.dir, s.name, 0);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers() {
  for (int sig : kSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
    struct sigaction sa {};
    sa.sa_handler = remove_staged_and_die;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace

bool track_staged_file(int dir, const char* path) {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
  const size_t n = std::strlen(path);
  if (n >= PATH_MAX) return false;
  for (StagedName& s : slots) {
    int expected = kFree;
    if (!s.state.compare_exchange_strong(expected, kFilling)) continue;
    s.dir = dir;
    std::memcpy(s.name, path, n + 1);
    s.state.store(kTracked);
    return true;
  }
  return false;
}

void untrack_staged_file(int dir, const char* path) {
  for (StagedName& s : slots) {
    if (s.state.load() != kTracked || s.dir != dir || std::strcmp(s.name, path) != 0) continue;
    int expected = kTracked;
    if (s.state.compare_exchange_strong(expected, kFree)) return;
  }
}

}  // namespace covkit::util
