#include "util/fast_allocator.h"

#include <sys/stat.h>

#include <cstdint>

#include "util/sanitizer.h"
#include "util/shared_library.h"

#if defined(COVKIT_MIMALLOC_SONAME) && !COVKIT_ASAN
#include <mimalloc.h>  // its declarations only: the library is loaded when a command asks for it
#endif

namespace covkit::util {

namespace {

#if defined(COVKIT_MIMALLOC_SONAME) && !COVKIT_ASAN
decltype(&::mi_option_set) option_set = nullptr;  // bound when a command asks for FastHeap::kLargePages
#endif

const FastAllocator* load_mimalloc(FastHeap heap) {
#if defined(COVKIT_MIMALLOC_SONAME) && !COVKIT_ASAN
  auto library = SharedLibrary::open(COVKIT_MIMALLOC_SONAME, "for speed (mimalloc)");
  if (!library) return nullptr;  // glibc's malloc serves: slower, as correct
  static FastAllocator mimalloc;
  if (!library->bind(mimalloc.malloc, "mi_malloc") || !library->bind(mimalloc.free, "mi_free") ||
      !library->bind(mimalloc.owns, "mi_is_in_heap_region"))
    return nullptr;
  // Set before the first allocation from it; read by mimalloc as it takes memory.
  if (heap == FastHeap::kLargePages && library->bind(option_set, "mi_option_set")) {
    option_set(mi_option_large_os_pages, 1);
    option_set(mi_option_eager_commit_delay, 0);
  }
  return &mimalloc;
#else
  (void)heap;
  return nullptr;
#endif
}

}  // namespace

bool use_fast_allocator(FastHeap heap) {
  if (!operator_new_switchable.load(std::memory_order_relaxed)) return false;
  static const FastAllocator* const loaded = load_mimalloc(heap);
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
