#include "util/short_run_heap.h"

#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "util/sanitizer.h"

namespace covkit::util {

// Not in a sanitized build: AddressSanitizer's allocator must own every
// block (and operator new is the C++ library's there: nothing could switch).
#if !COVKIT_ASAN
namespace {

// A block's size with its 8-byte header, a multiple of 16: at most this
// from the short-run heap, larger from glibc. Small blocks are nearly all
// of the count (tinyxml2.cpp: 3,200 of 3,800 are 256 bytes or less); the
// larger ones glibc lays out as densely as this would and reuses better
// (it joins freed neighbours: the data file's records, freed once counted,
// become the line tables), measured: with blocks to 1 KiB here 8
// fresh pages more, to 4 KiB 13, for 1% fewer instructions each.
constexpr size_t kLargestBlock = 256;
// What a thread takes from the reservation at a time. Memory reserved and
// never written is no page of the process's.
constexpr size_t kChunk = size_t(1) << 20;
// The address space reserved once (not memory: MAP_NORESERVE, and a page
// is only the process's once written); past it, glibc serves.
constexpr size_t kReserve = size_t(1) << 30;
// A free list per block size (size / 16: 2 to 16).
constexpr unsigned kClasses = kLargestBlock / 16 + 1;

// A thread's heap: where its next block goes, and the blocks freed by it.
// At the start of the first chunk it takes.
struct ThreadHeap {
  char* next;  // the next block's header (8 bytes before a 16-aligned block)
  char* end;   // of the chunk
  void* freed[kClasses];
};

char* reserved = nullptr;
std::atomic<size_t> chunks_taken{0};

// Zero-initialised static TLS of the executable: no constructor, no
// destructor, one instruction to reach.
thread_local ThreadHeap* this_thread;

char* take_chunk() {
  const size_t i = chunks_taken.fetch_add(1, std::memory_order_relaxed);
  return i < kReserve / kChunk ? reserved + i * kChunk : nullptr;
}

[[gnu::noinline]] ThreadHeap* start_thread_heap() {
  char* c = take_chunk();
  if (!c) return nullptr;
  ThreadHeap* h = reinterpret_cast<ThreadHeap*>(c);  // fresh pages: the lists are empty
  constexpr size_t kHead = (sizeof(ThreadHeap) + 15) & ~size_t(15);
  h->next = c + kHead + 8;
  h->end = c + kChunk;
  this_thread = h;
  return h;
}

[[gnu::noinline]] bool next_chunk(ThreadHeap* h) {
  char* c = take_chunk();
  if (!c) return false;
  h->next = c + 8;
  h->end = c + kChunk;
  return true;
}

void* heap_malloc(size_t n) {
  // n is below 256 MiB (cli/throwing_new.cc): no overflow.
  size_t s = (n + 8 + 15) & ~size_t(15);
  if (s > kLargestBlock) return std::malloc(n);
  if (s < 32) s = 32;
  ThreadHeap* h = this_thread;
  if (!h) [[unlikely]] {
    h = start_thread_heap();
    if (!h) return std::malloc(n);
  }
  const size_t c = s >> 4;
  if (void* p = h->freed[c]) {
    h->freed[c] = *static_cast<void**>(p);
    return p;
  }
  if (size_t(h->end - h->next) < s) [[unlikely]] {
    if (!next_chunk(h)) return std::malloc(n);
  }
  char* at = h->next;
  h->next += s;
  std::memcpy(at, &s, sizeof s);
  return at + 8;
}

void heap_free(void* p) {
  size_t s;
  std::memcpy(&s, static_cast<char*>(p) - 8, sizeof s);
  ThreadHeap* h = this_thread;
  if (!h) [[unlikely]] {
    h = start_thread_heap();
    if (!h) return;  // the reservation is spent: the block stays unused
  }
  *static_cast<void**>(p) = h->freed[s >> 4];
  h->freed[s >> 4] = p;
}

bool heap_owns(const void* p) { return uintptr_t(p) - uintptr_t(reserved) < kReserve; }

}  // namespace
#endif

bool use_short_run_heap() {
#if COVKIT_ASAN
  return false;
#else
  if (!operator_new_switchable.load(std::memory_order_relaxed)) return false;
  if (fast_allocator.load(std::memory_order_acquire)) return false;  // another one serves
  void* at = ::mmap(nullptr, kReserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (at == MAP_FAILED) return false;
  reserved = static_cast<char*>(at);
  static const FastAllocator heap{heap_malloc, heap_free, heap_owns};
  fast_allocator.store(&heap, std::memory_order_release);
  return true;
#endif
}

}  // namespace covkit::util
