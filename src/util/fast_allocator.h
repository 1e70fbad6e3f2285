#pragma once
// mimalloc for the commands that allocate heavily, loaded when one of them
// starts. Reading thousands of objects is allocation-bound, and mimalloc
// takes a third less CPU there than glibc's malloc; but linked, it is loaded
// and set up by every command and costs `covkit gcov` on one file or
// `covkit --version` a third of its start-up (50 page faults: a fresh page
// for each size class; bench/startup_vs_gcov.py). So covkit's operator new
// (cli/throwing_new.cc, in the executable only) uses glibc's malloc until a
// command calls use_fast_allocator(), and mimalloc from then on; operator
// delete gives each block back to the allocator that owns it.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace covkit::util {

struct FastAllocator {
  void* (*malloc)(size_t);
  void (*free)(void*);
  bool (*owns)(const void*);  // mi_is_in_heap_region: the block is mimalloc's
  // When every block glibc's malloc had handed out at the switch lies in
  // its heap below the program break, [glibc_from, glibc_from +
  // glibc_size) holds them all and none of mimalloc's (which maps its
  // memory elsewhere, never there): operator delete then tells the two
  // apart by the address instead of asking mimalloc (21 instructions a
  // delete: 9.7 M of the zstd report's 1,120 M), and every block after the
  // switch is mimalloc's, the largest too.
  bool glibc_bounded = false;
  uintptr_t glibc_from = 0, glibc_size = 0;
};

// The allocator operator new uses; nullptr: glibc's malloc.
inline std::atomic<const FastAllocator*> fast_allocator{nullptr};

// Loads mimalloc (once; thread-safe) and makes operator new use it. Call it
// before the threads of a heavy command start, so that they allocate from
// it too. Without mimalloc (not installed, a sanitized build, a test
// program whose operator new is the C++ library's) nothing changes: true
// only when operator new now uses it.
bool use_fast_allocator();

// use_fast_allocator() when the files a command is about to read add up to
// `worth_it` bytes or more (sizes from stat; names that are not files count
// nothing): below that, loading and setting up mimalloc (~0.3 ms) costs
// more than it saves (gcov and gprof on one small file, measured by
// bench/startup_vs_gcov.py and bench/gprof_vs_gnu.py).
bool use_fast_allocator_for(std::span<const std::string> files, uint64_t worth_it = uint64_t(1) << 20);

// Set by the executable's operator new (cli/throwing_new.cc): only then is
// loading mimalloc of use.
inline std::atomic<bool> operator_new_switchable{false};

}  // namespace covkit::util
