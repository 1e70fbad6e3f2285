#include "util/fast_allocator.h"

#include <fcntl.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "util/sanitizer.h"
#include "util/shared_library.h"

namespace covkit::util {

namespace {

#if defined(COVKIT_MIMALLOC_SONAME) && !COVKIT_ASAN
// Fields of /proc/self/stat: the threads (field 20) and the start of the
// program break (start_brk, field 47); the command name, field 2, may hold
// spaces and parentheses: counted from the last ')'. False when they cannot
// be read. Read without stdio, whose buffers would come from the heap being
// measured.
struct SelfStat {
  long threads = 0;
  uintptr_t break_start = 0;
};
bool read_self_stat(SelfStat& out) {
  const int fd = ::open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  size_t n = 0;
  for (ssize_t got; n < sizeof buf - 1 && (got = ::read(fd, buf + n, sizeof buf - 1 - n)) != 0;) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) break;
    n += size_t(got);
  }
  ::close(fd);
  buf[n] = '\0';
  const char* at = std::strrchr(buf, ')');
  if (!at) return false;
  // Fields 3 to 47 follow, one space before each.
  for (int field = 2; field < 47; ++field) {
    at = std::strchr(at + 1, ' ');
    if (!at) return false;
    if (field + 1 == 20) out.threads = std::strtol(at + 1, nullptr, 10);
  }
  out.break_start = uintptr_t(std::strtoull(at + 1, nullptr, 10));
  return true;
}

// Fills the allocator's glibc range when every block glibc's malloc holds
// now is in its main arena, all of it in the heap below the program break:
// no block of its own mapping (hblks) and no other arena (a thread's, which
// mallinfo2 would count in `arena` too), the arena's bytes exactly those
// from the break's start to the break. Otherwise nothing changes (and
// operator delete asks mimalloc). Only while covkit has one thread: another
// thread could take a block from glibc (its own arena) between this look
// and the switch, and that block would then go to mimalloc's free.
void bound_glibc_blocks(FastAllocator& a) {
  SelfStat self;
  if (!read_self_stat(self) || self.threads != 1) return;
  const uintptr_t start = self.break_start;
  const uintptr_t end = uintptr_t(::sbrk(0));
  const struct mallinfo2 info = ::mallinfo2();
  if (uintptr_t(::sbrk(0)) != end || info.hblks != 0) return;
  if (start == 0 || start > end || end - start != info.arena) return;
  a.glibc_from = start;
  a.glibc_size = end - start;
  a.glibc_bounded = true;
}

#endif

const FastAllocator* load_mimalloc() {
#if defined(COVKIT_MIMALLOC_SONAME) && !COVKIT_ASAN
  auto library = SharedLibrary::open(COVKIT_MIMALLOC_SONAME, "for speed (mimalloc)");
  if (!library) return nullptr;  // glibc's malloc serves: slower, as correct
  static FastAllocator mimalloc;
  if (!library->bind(mimalloc.malloc, "mi_malloc") || !library->bind(mimalloc.free, "mi_free") ||
      !library->bind(mimalloc.owns, "mi_is_in_heap_region"))
    return nullptr;
  bound_glibc_blocks(mimalloc);
  return &mimalloc;
#else
  return nullptr;
#endif
}

}  // namespace

bool use_fast_allocator() {
  if (!operator_new_switchable.load(std::memory_order_relaxed)) return false;
  static const FastAllocator* const loaded = load_mimalloc();
  // Another heap's blocks (util/short_run_heap.h) are freed by asking it
  // whether they are its own: it must stay the one operator new knows.
  if (const FastAllocator* now = fast_allocator.load(std::memory_order_acquire); now && now != loaded) return false;
  if (loaded) fast_allocator.store(loaded, std::memory_order_release);
  return loaded != nullptr;
}

bool use_fast_allocator_for(std::span<const std::string> files, uint64_t worth_it) {
  uint64_t bytes = 0;
  for (const std::string& f : files) {
    struct stat st;
    if (::stat(f.c_str(), &st) == 0 && S_ISREG(st.st_mode)) bytes += uint64_t(st.st_size);
    if (bytes >= worth_it) return use_fast_allocator();
  }
  return false;
}

}  // namespace covkit::util
