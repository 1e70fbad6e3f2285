// util/short_run_heap behind the executable's own operator new
// (cli/throwing_new.cc, linked into this program as into covkit): the unit
// tests' operator new is the C++ library's and cannot switch, so the heap
// gets a program of its own. Not built with the sanitizers, where the heap
// is compiled out (they must own malloc).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "util/fast_allocator.h"
#include "util/short_run_heap.h"

namespace short_run_heap_test {

// A block of n bytes filled with a pattern of its own, checked before it is
// freed: two blocks given the same memory, or a block given a freed one's
// while that is still in use, show as a changed pattern.
struct Block {
  unsigned char* p = nullptr;
  size_t n = 0;
  unsigned char mark = 0;
};

Block make(size_t n, unsigned char mark) {
  Block b{new unsigned char[n], n, mark};
  std::memset(b.p, mark, n);
  return b;
}

bool intact(const Block& b) {
  for (size_t i = 0; i < b.n; ++i)
    if (b.p[i] != b.mark) return false;
  return true;
}

// Blocks made before the switch (glibc's) are still freed correctly after it.
std::vector<Block>& made_before() {
  static std::vector<Block> blocks;
  return blocks;
}

TEST(ShortRunHeap, ServesOperatorNewAndKeepsBlocksApartAcrossThreads) {
  for (size_t n = 1; n <= 600; n += 37) made_before().push_back(make(n, 0x5a));
  ASSERT_TRUE(covkit::util::operator_new_switchable.load()) << "cli/throwing_new.cc is not linked in";
  ASSERT_TRUE(covkit::util::use_short_run_heap());
  // A second switch, or mimalloc's, is refused: the heap stays the one
  // operator delete asks.
  EXPECT_FALSE(covkit::util::use_short_run_heap());
  EXPECT_FALSE(covkit::util::use_fast_allocator());
  const covkit::util::FastAllocator* heap = covkit::util::fast_allocator.load();
  ASSERT_NE(heap, nullptr);

  constexpr int kThreads = 4, kRounds = 20000;
  std::mutex handed_lock;
  std::vector<Block> handed;  // blocks one thread made and another frees
  bool all_intact = true, all_aligned = true, small_owned = true, large_not_owned = true;
  std::mutex result_lock;
  auto work = [&](int t) {
    std::vector<Block> mine;
    bool ok = true, aligned = true, owned = true, not_owned = true;
    for (int i = 0; i < kRounds; ++i) {
      const size_t n = size_t((i * 7 + t * 13) % 301);  // 0 to 300 bytes: both sides of 256
      Block b = make(n ? n : 1, static_cast<unsigned char>(t * 50 + i % 50 + 1));
      aligned &= (reinterpret_cast<uintptr_t>(b.p) & 15) == 0;
      // operator new[] of n bytes asks for n; blocks of up to 248 bytes
      // (256 with the header) are the heap's, larger ones glibc's.
      if (b.n + 8 <= 256)
        owned &= heap->owns(b.p);
      else
        not_owned &= !heap->owns(b.p);
      mine.push_back(b);
      if (i % 3 == 0) {  // freed here
        Block f = mine[mine.size() / 2];
        mine.erase(mine.begin() + long(mine.size() / 2));
        ok &= intact(f);
        delete[] f.p;
      } else if (i % 3 == 1) {  // handed to whichever thread takes it next
        Block f = mine.back();
        mine.pop_back();
        std::lock_guard<std::mutex> lock(handed_lock);
        handed.push_back(f);
      } else {
        Block f;
        {
          std::lock_guard<std::mutex> lock(handed_lock);
          if (handed.empty()) continue;
          f = handed.back();
          handed.pop_back();
        }
        ok &= intact(f);
        delete[] f.p;
      }
    }
    for (const Block& b : mine) {
      ok &= intact(b);
      delete[] b.p;
    }
    std::lock_guard<std::mutex> lock(result_lock);
    all_intact &= ok;
    all_aligned &= aligned;
    small_owned &= owned;
    large_not_owned &= not_owned;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
  for (std::thread& th : threads) th.join();
  for (const Block& b : handed) {
    all_intact &= intact(b);
    delete[] b.p;
  }
  EXPECT_TRUE(all_intact) << "a block's bytes changed while it was in use";
  EXPECT_TRUE(all_aligned) << "a block not aligned to 16 bytes";
  EXPECT_TRUE(small_owned) << "a block of up to 248 bytes not from the heap";
  EXPECT_TRUE(large_not_owned) << "a block past 248 bytes from the heap";
  for (const Block& b : made_before()) {
    EXPECT_FALSE(heap->owns(b.p));
    EXPECT_TRUE(intact(b));
    delete[] b.p;  // glibc's: given back to glibc, no crash
  }
  made_before().clear();
}

}  // namespace short_run_heap_test
