#include "util/mapped_file.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

namespace covkit::util {

namespace {

// The guard's table: fixed size and lock-free to read, because the SIGBUS
// handler reads it and may run in any thread at any moment.
struct Slot {
  std::atomic<bool> used{false};
  std::atomic<uintptr_t> begin{0};
  std::atomic<size_t> size{0};
  char path[480]{};
};
constexpr int kSlots = 64;
constinit Slot g_slots[kSlots];  // in .bss: no work (page faults) before main()
struct sigaction g_previous;

void write_all(const char* s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= size_t(w);
  }
}

void on_sigbus(int sig, siginfo_t* info, void* context) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
  for (Slot& s : g_slots) {
    if (!s.used.load(std::memory_order_acquire)) continue;
    const uintptr_t begin = s.begin.load(std::memory_order_acquire);
    if (at < begin || at - begin >= s.size.load(std::memory_order_acquire)) continue;
    write_all("covkit: ");
    write_all(s.path);
    write_all(": the file shrank while covkit read it (is a program still writing it?)\n");
    ::_exit(1);
  }
  // Not one of ours: whatever handled SIGBUS before (a sanitizer, the default).
  ::sigaction(SIGBUS, &g_previous, nullptr);
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) g_previous.sa_sigaction(sig, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
  }
  // SIG_DFL: returning re-executes the faulting access, which now kills.
}

void install_guard() {
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGBUS, &sa, &g_previous);
}

int claim_slot(const void* data, size_t size, const std::string& path) {
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!g_slots[i].used.compare_exchange_strong(expected, true)) continue;
    Slot& s = g_slots[i];
    // Filled before the range is published: the handler matches on the range.
    s.size.store(0, std::memory_order_release);
    const size_t n = std::min(path.size(), sizeof s.path - 1);
    std::memcpy(s.path, path.data(), n);
    s.path[n] = '\0';
    s.begin.store(reinterpret_cast<uintptr_t>(data), std::memory_order_release);
    s.size.store(size, std::memory_order_release);
    return i;
  }
  return -1;
}

}  // namespace

Mapping map_file(int fd, size_t size, const std::string& path) {
  static std::once_flag once;
  std::call_once(once, install_guard);
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return {};
  int slot = claim_slot(p, size, path);
  if (slot < 0) {
    ::munmap(p, size);
    return {};
  }
  ::madvise(p, size, MADV_SEQUENTIAL);  // readers go front to back
  return Mapping{static_cast<const uint8_t*>(p), size, slot};
}

void unmap_file(const Mapping& m) {
  if (m.slot < 0) return;
  Slot& s = g_slots[m.slot];
  s.size.store(0, std::memory_order_release);  // unpublish before the pages go
  ::munmap(const_cast<uint8_t*>(m.data), m.size);
  s.used.store(false, std::memory_order_release);
}

}  // namespace covkit::util
