// sample/breakpoint_site_cache: sites kept per build-id come back exactly;
// a torn, foreign or unnamed entry is a miss, never wrong sites.
#include "sample/breakpoint_site_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace covkit::sample {
namespace sample_site_cache_test {

TEST(BreakpointSiteCache, StoredSitesComeBack) {
  testing::TempDir tmp;
  const std::string dir = tmp / "a/b/cache";  // created on the first store
  const std::vector<uint64_t> sites = {0x1000, 0x1004, 0xffffffffffffULL};
  EXPECT_FALSE(load_cached_sites(dir, "abcdef01"));
  store_cached_sites(dir, "abcdef01", sites);
  auto back = load_cached_sites(dir, "abcdef01");
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, sites);
  EXPECT_FALSE(load_cached_sites(dir, "abcdef02"));  // another build
  store_cached_sites(dir, "00", {});
  ASSERT_TRUE(load_cached_sites(dir, "00"));
  EXPECT_TRUE(load_cached_sites(dir, "00")->empty());
}

TEST(BreakpointSiteCache, NoBuildIdOrAStrangeOneIsNeverCached) {
  testing::TempDir tmp;
  store_cached_sites(tmp.path(), "", {1, 2});
  EXPECT_FALSE(load_cached_sites(tmp.path(), ""));
  store_cached_sites(tmp.path(), "../escape", {1, 2});
  EXPECT_FALSE(load_cached_sites(tmp.path(), "../escape"));
  EXPECT_FALSE(load_cached_sites("", "abcd"));
}

TEST(BreakpointSiteCache, TornOrForeignFilesAreMisses) {
  testing::TempDir tmp;
  store_cached_sites(tmp.path(), "beef", {1, 2, 3});
  std::string file;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path())) file = e.path().string();
  ASSERT_NE(file.find("beef.v" + std::to_string(kBreakpointSitesVersion) + "-"), std::string::npos) << file;
  const std::vector<uint8_t> raw = testing::read_bytes(file);
  const std::string bytes(raw.begin(), raw.end());
  ASSERT_EQ(bytes.size(), 16u + 3 * 8);
  for (size_t cut : {0ul, 8ul, 15ul, 17ul, bytes.size() - 1}) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes.substr(0, cut);
    EXPECT_FALSE(load_cached_sites(tmp.path(), "beef")) << cut;
  }
  std::string foreign = bytes;
  foreign[0] = 'X';
  std::ofstream(file, std::ios::binary | std::ios::trunc) << foreign;
  EXPECT_FALSE(load_cached_sites(tmp.path(), "beef"));
}

}  // namespace
}  // namespace covkit::sample
