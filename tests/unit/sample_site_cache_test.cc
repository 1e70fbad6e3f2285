// sample/breakpoint_site_cache: what is kept per build-id (line
// information, the sites of a whole run and of a window, the functions left
// out) comes back exactly; a torn, foreign or unnamed entry is a miss,
// never wrong sites.
#include "sample/breakpoint_site_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace covkit::sample {
namespace sample_site_cache_test {

CachedSites some_sites() {
  CachedSites s;
  s.has_lines = true;
  s.whole_run_known = true;
  s.whole_run = {0x1000, 0x1004, 0xffffffffffffULL};
  s.window = {};
  s.skipped = {"f: bytes at 0x1010 are no instruction", "g: the instruction at 0x2000 overlaps another"};
  return s;
}

TEST(BreakpointSiteCache, StoredSitesComeBack) {
  testing::TempDir tmp;
  const std::string dir = tmp / "a/b/cache";  // created on the first store
  const CachedSites sites = some_sites();
  EXPECT_FALSE(load_cached_sites(dir, "abcdef01"));
  store_cached_sites(dir, "abcdef01", sites);
  auto back = load_cached_sites(dir, "abcdef01");
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->has_lines);
  EXPECT_TRUE(back->whole_run_known);
  EXPECT_FALSE(back->window_known);
  EXPECT_EQ(back->whole_run, sites.whole_run);
  EXPECT_EQ(back->skipped, sites.skipped);
  EXPECT_FALSE(load_cached_sites(dir, "abcdef02"));  // another build
  store_cached_sites(dir, "00", {});  // a build without lines, nothing analyzed
  ASSERT_TRUE(load_cached_sites(dir, "00"));
  EXPECT_FALSE(load_cached_sites(dir, "00")->has_lines);
  EXPECT_FALSE(load_cached_sites(dir, "00")->whole_run_known);
  EXPECT_TRUE(load_cached_sites(dir, "00")->skipped.empty());
}

TEST(BreakpointSiteCache, NoBuildIdOrAStrangeOneIsNeverCached) {
  testing::TempDir tmp;
  store_cached_sites(tmp.path(), "", some_sites());
  EXPECT_FALSE(load_cached_sites(tmp.path(), ""));
  store_cached_sites(tmp.path(), "../escape", some_sites());
  EXPECT_FALSE(load_cached_sites(tmp.path(), "../escape"));
  EXPECT_FALSE(load_cached_sites("", "abcd"));
}

TEST(BreakpointSiteCache, TornOrForeignFilesAreMisses) {
  testing::TempDir tmp;
  store_cached_sites(tmp.path(), "beef", some_sites());
  std::string file;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path())) file = e.path().string();
  ASSERT_NE(file.find("beef.v" + std::to_string(kBreakpointSitesVersion) + "-"), std::string::npos) << file;
  const std::vector<uint8_t> raw = testing::read_bytes(file);
  const std::string bytes(raw.begin(), raw.end());
  ASSERT_TRUE(load_cached_sites(tmp.path(), "beef"));
  for (size_t cut : {0ul, 8ul, 15ul, 17ul, 40ul, bytes.size() - 1}) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes.substr(0, cut);
    EXPECT_FALSE(load_cached_sites(tmp.path(), "beef")) << cut;
  }
  std::string foreign = bytes;
  foreign[0] = 'X';
  std::ofstream(file, std::ios::binary | std::ios::trunc) << foreign;
  EXPECT_FALSE(load_cached_sites(tmp.path(), "beef"));
  std::string longer = bytes + "x";  // more than the layout says
  std::ofstream(file, std::ios::binary | std::ios::trunc) << longer;
  EXPECT_FALSE(load_cached_sites(tmp.path(), "beef"));
  std::string huge = bytes;  // a count far beyond the file
  huge[16] = '\xff';
  std::ofstream(file, std::ios::binary | std::ios::trunc) << huge;
  EXPECT_FALSE(load_cached_sites(tmp.path(), "beef"));
}

}  // namespace
}  // namespace covkit::sample
