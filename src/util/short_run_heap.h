#pragma once
// A heap for a short command that allocates thousands of small blocks and
// keeps nearly all of them to its end (`covkit gcov` on an object: the
// graphs, a function's arrays, the line tables). glibc's malloc serves such
// a run from the top of its heap at ~165 instructions a block (tinyxml2.cpp:
// 3,900 blocks, 9% of the run's instructions); this one bumps a pointer.
// Blocks are laid out as densely as glibc's (8 bytes of size before each,
// 16-byte alignment), so no more fresh pages are touched; a freed block
// goes on a list of its size class, for the next block of that class.
// Blocks past 256 bytes are glibc's (few, and glibc reuses their memory
// better: it joins freed neighbours).
#include "util/fast_allocator.h"

namespace covkit::util {

// Makes operator new use the short-run heap (cli/throwing_new.cc; blocks
// made before stay glibc's and go back to it). Call it before the command
// starts threads. False (nothing changes) where operator new cannot switch
// (sanitized builds, tests) or the address space for it cannot be reserved
// (ulimit -v, strict overcommit).
bool use_short_run_heap();

}  // namespace covkit::util
