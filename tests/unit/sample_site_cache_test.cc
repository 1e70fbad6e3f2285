// sample/breakpoint_site_cache: what is kept per build-id (line
// information, the sites of a whole run and of a window, the functions left
// out) comes back exactly, for the content it was computed from only; a
// torn, foreign or unnamed entry, or one of another content under the same
// build-id, is a miss, never wrong sites.
#include "sample/breakpoint_site_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace covkit::sample {
namespace sample_site_cache_test {

const std::string kDigest = "0123456789abcdef0123456789abcdef";

CachedSites some_sites() {
  CachedSites s;
  s.digest = kDigest;
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
  EXPECT_FALSE(load_cached_sites(dir, "abcdef01", kDigest));
  store_cached_sites(dir, "abcdef01", sites);
  auto back = load_cached_sites(dir, "abcdef01", kDigest);
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->has_lines);
  EXPECT_TRUE(back->whole_run_known);
  EXPECT_FALSE(back->window_known);
  EXPECT_EQ(back->whole_run, sites.whole_run);
  EXPECT_EQ(back->skipped, sites.skipped);
  EXPECT_FALSE(load_cached_sites(dir, "abcdef02", kDigest));  // another build
  CachedSites bare;  // a build without lines, nothing analyzed
  bare.digest = kDigest;
  store_cached_sites(dir, "00", bare);
  ASSERT_TRUE(load_cached_sites(dir, "00", kDigest));
  EXPECT_FALSE(load_cached_sites(dir, "00", kDigest)->has_lines);
  EXPECT_FALSE(load_cached_sites(dir, "00", kDigest)->whole_run_known);
  EXPECT_TRUE(load_cached_sites(dir, "00", kDigest)->skipped.empty());
}

// Another user's binary that copied a build-id: its entry is never taken
// for the real binary's (whose content differs), and an entry without a
// digest is never kept.
TEST(BreakpointSiteCache, AnotherContentUnderTheSameBuildIdIsAMiss) {
  testing::TempDir tmp;
  store_cached_sites(tmp.path(), "abcdef01", some_sites());
  EXPECT_TRUE(load_cached_sites(tmp.path(), "abcdef01", kDigest));
  EXPECT_FALSE(load_cached_sites(tmp.path(), "abcdef01", "fedcba9876543210fedcba9876543210"));
  EXPECT_FALSE(load_cached_sites(tmp.path(), "abcdef01", ""));
  CachedSites undigested = some_sites();
  undigested.digest.clear();
  store_cached_sites(tmp.path(), "abcdef02", undigested);
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path()) || !load_cached_sites(tmp.path(), "abcdef02", kDigest));
  EXPECT_EQ(file_digest(std::span<const uint8_t>()), "d41d8cd98f00b204e9800998ecf8427e");  // MD5 of nothing
}

// A file of the entry's stamp is taken without its digest being computed;
// any other file only by its digest; an unknown stamp never vouches.
TEST(BreakpointSiteCache, AStampVouchesOnlyForItsOwnFile) {
  testing::TempDir tmp;
  CachedSites sites = some_sites();
  sites.stamp = {1, 2, 3, 4, 5};
  store_cached_sites(tmp.path(), "abcdef01", sites);
  int asked = 0;
  const auto wrong = [&] { ++asked; return std::string("fedcba9876543210fedcba9876543210"); };
  const auto right = [&] { ++asked; return kDigest; };
  auto same = load_cached_sites(tmp.path(), "abcdef01", FileStamp{1, 2, 3, 4, 5}, wrong);
  ASSERT_TRUE(same);
  EXPECT_EQ(asked, 0);
  EXPECT_EQ(same->stamp, (FileStamp{1, 2, 3, 4, 5}));
  EXPECT_FALSE(load_cached_sites(tmp.path(), "abcdef01", FileStamp{1, 2, 3, 4, 6}, wrong));  // changed since
  EXPECT_TRUE(load_cached_sites(tmp.path(), "abcdef01", FileStamp{1, 9, 3, 4, 5}, right));   // a copy
  EXPECT_EQ(asked, 2);
  sites.stamp = {};
  store_cached_sites(tmp.path(), "abcdef02", sites);
  EXPECT_FALSE(load_cached_sites(tmp.path(), "abcdef02", FileStamp{}, wrong));
}

TEST(BreakpointSiteCache, NoBuildIdOrAStrangeOneIsNeverCached) {
  testing::TempDir tmp;
  store_cached_sites(tmp.path(), "", some_sites());
  EXPECT_FALSE(load_cached_sites(tmp.path(), "", kDigest));
  store_cached_sites(tmp.path(), "../escape", some_sites());
  EXPECT_FALSE(load_cached_sites(tmp.path(), "../escape", kDigest));
  EXPECT_FALSE(load_cached_sites("", "abcd", kDigest));
}

TEST(BreakpointSiteCache, TornOrForeignFilesAreMisses) {
  testing::TempDir tmp;
  store_cached_sites(tmp.path(), "beef", some_sites());
  std::string file;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path())) file = e.path().string();
  ASSERT_NE(file.find("beef.v" + std::to_string(kBreakpointSitesVersion) + "-"), std::string::npos) << file;
  const std::vector<uint8_t> raw = testing::read_bytes(file);
  const std::string bytes(raw.begin(), raw.end());
  ASSERT_TRUE(load_cached_sites(tmp.path(), "beef", kDigest));
  for (size_t cut : {0ul, 8ul, 15ul, 17ul, 40ul, 50ul, 60ul, bytes.size() - 1}) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes.substr(0, cut);
    EXPECT_FALSE(load_cached_sites(tmp.path(), "beef", kDigest)) << cut;
  }
  std::string foreign = bytes;
  foreign[0] = 'X';
  std::ofstream(file, std::ios::binary | std::ios::trunc) << foreign;
  EXPECT_FALSE(load_cached_sites(tmp.path(), "beef", kDigest));
  std::string longer = bytes + "x";  // more than the layout says
  std::ofstream(file, std::ios::binary | std::ios::trunc) << longer;
  EXPECT_FALSE(load_cached_sites(tmp.path(), "beef", kDigest));
  std::string huge = bytes;  // a count far beyond the file (the whole run's, after magic, digest and flags)
  huge[8 + 8 + 32 + 5 * 8 + 8 + 7] = '\x7f';
  std::ofstream(file, std::ios::binary | std::ios::trunc) << huge;
  EXPECT_FALSE(load_cached_sites(tmp.path(), "beef", kDigest));
}

}  // namespace
}  // namespace covkit::sample
