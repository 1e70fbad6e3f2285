// The journal of `covkit live dump --reset` (live/dump_journal): what it
// holds reads back as written; cut short anywhere (covkit killed while
// writing it) or damaged, a record counts only if it is whole, and nothing
// counts before the header. Journals of a live covkit (locked) are left
// alone; a journal directory another user could write is refused. And the
// block cache that discovery reads the process through (live/memory_cache)
// gives the bytes the process holds, never a block across an unmapped edge.
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include "live/dump_journal.h"
#include "live/memory_cache.h"

namespace covkit::live {
namespace live_journal_test {

JournalHeader sample_header() {
  JournalHeader h;
  h.kind = JournalKind::kDump;
  h.id = "0123456789abcdef";
  h.created = 1700000000;
  h.boot_id = "b0b0-1";
  h.marker = {0x80001234u, 0x80001235u};
  h.directory = "/tmp/out dir";
  h.separate = true;
  JournalProcess p;
  p.pid = 4242;
  p.start_time = 987654321;
  p.roots = {0x555500001000, 0x7f0000002000};
  p.place.uid = 1000;
  p.place.gid = 100;
  p.place.cwd = "/home/me";
  p.place.gcov_prefix = "/prefix";
  p.place.gcov_prefix_strip = 2;
  p.files = {{"/b/a.gcda", {1, 2, 3, 4, 5}}, {"/b/b.gcda", std::vector<uint8_t>(1000, 7)}};
  h.processes.push_back(p);
  p.pid = 4243;
  p.files.clear();
  h.processes.push_back(p);
  return h;
}

std::string scratch_dir() {
  char name[] = "/tmp/covkit-journal-test-XXXXXX";
  EXPECT_NE(::mkdtemp(name), nullptr);
  return name;
}

std::vector<uint8_t> file_bytes(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  std::vector<uint8_t> out;
  if (!f) return out;
  int c;
  while ((c = std::fgetc(f)) != EOF) out.push_back(uint8_t(c));
  std::fclose(f);
  return out;
}

// A state directory for one test, through COVKIT_STATE_DIR.
struct StateDir {
  StateDir() : path(scratch_dir()) { ::setenv("COVKIT_STATE_DIR", path.c_str(), 1); }
  ~StateDir() {
    ::unsetenv("COVKIT_STATE_DIR");
    std::filesystem::remove_all(path);
  }
  std::string path;
};

TEST(LiveJournal, ReadsBackWhatWasWritten) {
  StateDir state;
  JournalHeader h = sample_header();
  auto j = Journal::create(h);
  ASSERT_TRUE(j) << j.error().message;
  ASSERT_TRUE(j->resets_done({4242}));
  ASSERT_TRUE(j->committing({{"/tmp/out dir/4242/b/a.gcda", "00ff"}}));
  ASSERT_TRUE(j->renaming({2, {"/b/a.gcda", "/b/b.gcda"}, {11, 0x1234567890ull}}));
  JournalRecords r = decode_journal(file_bytes(j->path()));
  ASSERT_TRUE(r.header);
  EXPECT_EQ(r.header->id, h.id);
  EXPECT_EQ(r.header->boot_id, h.boot_id);
  EXPECT_EQ(r.header->marker.done, h.marker.done);
  EXPECT_EQ(r.header->directory, h.directory);
  EXPECT_TRUE(r.header->separate);
  ASSERT_EQ(r.header->processes.size(), 2u);
  EXPECT_EQ(r.header->processes[0].roots, h.processes[0].roots);
  EXPECT_EQ(r.header->processes[0].place.cwd, "/home/me");
  EXPECT_EQ(r.header->processes[0].place.gcov_prefix_strip, 2);
  EXPECT_EQ(r.header->processes[0].files, h.processes[0].files);
  EXPECT_TRUE(r.header->processes[1].files.empty());
  ASSERT_TRUE(r.resets_done);
  EXPECT_EQ(*r.resets_done, std::vector<pid_t>{4242});
  ASSERT_EQ(r.committing.size(), 1u);
  EXPECT_EQ(r.committing[0][0].second, "00ff");
  ASSERT_TRUE(r.renaming);
  EXPECT_EQ(r.renaming->round, 2u);
  EXPECT_EQ(r.renaming->paths.size(), 2u);
  EXPECT_EQ(r.renaming->inodes, (std::vector<uint64_t>{11, 0x1234567890ull}));
  j->remove();
  EXPECT_FALSE(std::filesystem::exists(j->path()));
}

// A renaming record as a covkit of before the staged files' inodes wrote
// it (round and paths, nothing after) reads back with no inodes: the next
// dump then goes by the temporary files alone, as that covkit did.
TEST(LiveJournal, RoundWithoutInodesOfAnOlderCovkit) {
  StateDir state;
  auto j = Journal::create(sample_header());
  ASSERT_TRUE(j);
  std::vector<uint8_t> bytes = file_bytes(j->path());
  auto put = [](std::vector<uint8_t>& out, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(uint8_t(v >> (8 * i)));
  };
  std::vector<uint8_t> payload;
  put(payload, 3, 4);  // round
  put(payload, 1, 8);  // one path
  const std::string path = "/b/a.gcda";
  put(payload, path.size(), 8);
  payload.insert(payload.end(), path.begin(), path.end());
  std::vector<uint8_t> record;
  put(record, 3, 4);  // the renaming record's tag
  put(record, payload.size(), 8);
  record.insert(record.end(), payload.begin(), payload.end());
  put(record, uint32_t(::crc32(0, record.data(), uInt(record.size()))), 4);
  bytes.insert(bytes.end(), record.begin(), record.end());
  JournalRecords r = decode_journal(bytes);
  ASSERT_TRUE(r.renaming);
  EXPECT_EQ(r.renaming->round, 3u);
  EXPECT_EQ(r.renaming->paths, std::vector<std::string>{path});
  EXPECT_TRUE(r.renaming->inodes.empty());
  j->remove();
}

TEST(LiveJournal, CutShortAnywhereKeepsOnlyWholeRecords) {
  StateDir state;
  auto j = Journal::create(sample_header());
  ASSERT_TRUE(j);
  ASSERT_TRUE(j->resets_done({4242, 4243}));
  const std::vector<uint8_t> whole = file_bytes(j->path());
  const size_t header_end = whole.size() - (16 + 8 + 8);  // the resets record: 16 + count + 2 pids
  for (size_t cut = 0; cut <= whole.size(); ++cut) {
    JournalRecords r = decode_journal(std::vector<uint8_t>(whole.begin(), whole.begin() + long(cut)));
    EXPECT_EQ(r.header.has_value(), cut >= header_end) << "cut at " << cut;
    EXPECT_EQ(r.resets_done.has_value(), cut == whole.size()) << "cut at " << cut;
  }
  j->remove();
}

TEST(LiveJournal, DamagedRecordsCountAsUnwritten) {
  StateDir state;
  auto j = Journal::create(sample_header());
  ASSERT_TRUE(j);
  ASSERT_TRUE(j->resets_done({4242}));
  const std::vector<uint8_t> whole = file_bytes(j->path());
  for (size_t at = 0; at < whole.size(); at += 7) {
    std::vector<uint8_t> bad = whole;
    bad[at] ^= 0x40;
    JournalRecords r = decode_journal(bad);
    // A flipped bit in the header drops everything; in the last record, that record.
    if (r.header) {
      EXPECT_EQ(r.header->id, "0123456789abcdef");
    }
    if (r.resets_done) {
      EXPECT_EQ(*r.resets_done, (std::vector<pid_t>{4242}));
    }
    EXPECT_FALSE(r.header && r.resets_done) << "byte " << at << " flipped and every record still read";
  }
  j->remove();
}

TEST(LiveJournal, LockedJournalsBelongToTheirCovkit) {
  StateDir state;
  auto live = Journal::create(sample_header());
  ASSERT_TRUE(live);
  auto dir = journal_directory(false);
  ASSERT_TRUE(dir);
  // Locked by its (live) writer: not left.
  EXPECT_TRUE(left_journals(*dir, nullptr).empty());
  // An empty journal of a command that gave up is removed with it.
  {
    auto empty = Journal::open("00000000000000aa");
    ASSERT_TRUE(empty);
  }
  EXPECT_FALSE(std::filesystem::exists(*dir + "/00000000000000aa.journal"));
  // A journal whose writer died (its file, unlocked) is left, and read.
  const std::string dead = *dir + "/00000000000000bb.journal";
  {
    std::vector<uint8_t> bytes = file_bytes(live->path());
    FILE* f = std::fopen(dead.c_str(), "wb");
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  auto left = left_journals(*dir, nullptr);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].path(), dead);
  ASSERT_TRUE(left[0].records().header);
  // While this covkit holds it, another one does not see it.
  EXPECT_TRUE(left_journals(*dir, nullptr).empty());
  left[0].remove();
  live->remove();
}

TEST(LiveJournal, RefusesADirectoryOthersMayWrite) {
  StateDir state;
  ASSERT_EQ(::chmod(state.path.c_str(), 0777), 0);
  auto dir = journal_directory();
  ASSERT_FALSE(dir);
  EXPECT_NE(dir.error().message.find("others may write"), std::string::npos) << dir.error().message;
}

// A process image of a few mappings, counting the reads that reach it.
class Counted : public MemorySource {
 public:
  std::map<uint64_t, std::vector<uint8_t>> maps;
  mutable int reads = 0;
  Expected<void> read(uint64_t address, void* out, size_t len) const override {
    ++reads;
    for (const auto& [start, bytes] : maps)
      if (address >= start && address + len <= start + bytes.size()) {
        std::memcpy(out, bytes.data() + (address - start), len);
        return {};
      }
    return Error("unmapped");
  }
};

TEST(LiveMemoryCache, ReadsInBlocksWithinTheMappings) {
  Counted image;
  std::vector<Mapping> maps;
  for (uint64_t start : {uint64_t(0x10000), uint64_t(0x40000)}) {
    std::vector<uint8_t> bytes(0x18000);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t((start + i) * 7 >> 3);
    image.maps[start] = bytes;
    Mapping m;
    m.start = start;
    m.end = start + bytes.size();
    m.readable = true;
    maps.push_back(m);
  }
  CachedMemory cache(image, maps);
  // Many small reads in one block: one read of the image.
  for (uint64_t at = 0x10000; at < 0x10000 + 4096; at += 40) {
    uint8_t got[40];
    ASSERT_TRUE(cache.read(at, got, sizeof got));
    EXPECT_EQ(0, std::memcmp(got, image.maps[0x10000].data() + (at - 0x10000), sizeof got));
  }
  EXPECT_EQ(image.reads, 1);
  // A piece across two blocks of one mapping.
  uint8_t across[64];
  ASSERT_TRUE(cache.read(0x20000 - 32, across, sizeof across));
  EXPECT_EQ(0, std::memcmp(across, image.maps[0x10000].data() + (0x20000 - 32 - 0x10000), sizeof across));
  // The last block of a mapping ends with it (0x28000), and a read past the
  // mapping's end fails as the image's own read does.
  uint8_t tail[16];
  ASSERT_TRUE(cache.read(0x28000 - 16, tail, sizeof tail));
  EXPECT_FALSE(cache.read(0x28000 - 8, tail, sizeof tail));
  EXPECT_FALSE(cache.read(0x30000, tail, sizeof tail));
}

}  // namespace live_journal_test
}  // namespace covkit::live
