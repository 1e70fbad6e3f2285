// operator new for the covkit executable when it is linked with mimalloc.
// mimalloc's own operator new aborts on failure (its C build cannot throw,
// and ignores std::set_new_handler), so a huge input would end covkit with
// SIGABRT and no word. These call malloc (mimalloc's, as fast) and throw
// std::bad_alloc, which each command turns into one line (run_guarded).
// Not in sanitizer builds, whose runtime must own new and delete.
#include <cstdlib>
#include <new>

void* operator new(std::size_t n) {
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n ? n : 1); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n ? n : 1); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
