// operator new and delete of the covkit executable (not of the tests, nor of
// sanitized builds, whose runtime must own them): glibc's malloc until a
// heavy command switches to mimalloc (util/fast_allocator.h says why), and
// std::bad_alloc when memory runs out, which each command turns into one
// line (run_guarded): mimalloc's own operator new would abort.
#include <cstdint>
#include <cstdlib>
#include <new>

#include "util/fast_allocator.h"

namespace {

// Tells use_fast_allocator() that switching has an effect here.
const bool registered = [] {
  covkit::util::operator_new_switchable.store(true, std::memory_order_relaxed);
  return true;
}();

// mimalloc serves a block of a gigabyte or more from outside its regions,
// and mi_is_in_heap_region() then says it is not mimalloc's: freed by
// glibc, it aborted covkit (`free(): invalid pointer`) at the end of a
// report of a 1 GB tracefile. Such blocks are rare and each an mmap of its
// own for either allocator: glibc's, from far below that size on, unless
// glibc's blocks are told apart by their addresses (glibc_bounded), which
// needs every block after the switch to be mimalloc's.
constexpr std::size_t kGlibcFrom = std::size_t(256) << 20;

void* allocate(std::size_t n) noexcept {
  if (n == 0) n = 1;
  const covkit::util::FastAllocator* fast = covkit::util::fast_allocator.load(std::memory_order_acquire);
  return fast && (n < kGlibcFrom || fast->glibc_bounded) ? fast->malloc(n) : std::malloc(n);
}

void release(void* p) noexcept {
  if (!p) return;
  // A block allocated before the switch is glibc's: each goes back to its own.
  const covkit::util::FastAllocator* fast = covkit::util::fast_allocator.load(std::memory_order_acquire);
  if (!fast) {
    std::free(p);
  } else if (fast->glibc_bounded) {
    if (uintptr_t(p) - fast->glibc_from < fast->glibc_size)
      std::free(p);
    else
      fast->free(p);
  } else if (fast->owns(p)) {
    fast->free(p);
  } else {
    std::free(p);
  }
}

}  // namespace

void* operator new(std::size_t n) {
  if (void* p = allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
