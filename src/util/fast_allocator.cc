#include "util/fast_allocator.h"

#include <sys/stat.h>

#include <cstdint>

#include "util/sanitizer.h"
#include "util/shared_library.h"

namespace covkit::util {

namespace {

const FastAllocator* load_mimalloc() {
#if defined(COVKIT_MIMALLOC_SONAME) && !COVKIT_ASAN
  auto library = SharedLibrary::open(COVKIT_MIMALLOC_SONAME, "for speed (mimalloc)");
  if (!library) return nullptr;  // glibc's malloc serves: slower, as correct
  static FastAllocator mimalloc;
  if (!library->bind(mimalloc.malloc, "mi_malloc") || !library->bind(mimalloc.free, "mi_free") ||
      !library->bind(mimalloc.owns, "mi_is_in_heap_region"))
    return nullptr;
  return &mimalloc;
#else
  return nullptr;
#endif
}

}  // namespace

bool use_fast_allocator() {
  if (!operator_new_switchable.load(std::memory_order_relaxed)) return false;
  static const FastAllocator* const loaded = load_mimalloc();
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
