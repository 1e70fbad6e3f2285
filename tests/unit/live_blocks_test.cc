// blocks/live_blocks: a running process's inline counters and pc table read
// through its memory into a block file's module; sections that leave the
// module, tables of another length and addresses outside its code (a
// hostile or damaged process) refused in one line.
#include "blocks/live_blocks.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

namespace covkit::blocks {
namespace live_blocks_test {

class InlineProcess : public live::MemorySource {
 public:
  Expected<void> read(uint64_t address, void* out, size_t len) const override {
    for (const auto& [start, bytes] : pieces)
      if (address >= start && address + len <= start + bytes.size()) {
        std::memcpy(out, bytes.data() + (address - start), len);
        return {};
      }
    return Error("unmapped");
  }
  std::map<uint64_t, std::vector<uint8_t>> pieces;
};

constexpr uint64_t kBias = 0x555500000000, kCode = kBias + 0x1000, kData = kBias + 0x4000;

live::ModuleBounds inline_bounds() {
  return live::ModuleBounds({{kBias, kBias + 0x1000, false, false},
                             {kCode, kCode + 0x1000, false, true},
                             {kData, kData + 0x1000, true, false}});
}

// Three counters at kData, their table at kData + 0x100.
InlineProcess inline_process(std::vector<uint64_t> pcs) {
  InlineProcess p;
  std::vector<uint8_t> data(0x1000);
  data[0] = 7, data[1] = 0, data[2] = 255;
  for (size_t i = 0; i < pcs.size(); ++i) {
    uint64_t entry[2] = {pcs[i], i == 0 ? 1u : 0u};
    std::memcpy(data.data() + 0x100 + 16 * i, entry, 16);
  }
  p.pieces[kData] = data;
  return p;
}

InlineSections three_counters() {
  InlineSections s;
  s.counters = kData;
  s.counters_size = 3;
  s.pcs = kData + 0x100;
  s.pcs_size = 48;
  return s;
}

TEST(LiveBlocks, ReadsCountersWithTheirBlocksAddresses) {
  auto p = inline_process({kCode + 0x10, kCode + 0x24, kCode + 0x40});
  auto m = read_inline_module("/srv/prog", kBias, three_counters(), inline_bounds(), p);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->path, "/srv/prog");
  ASSERT_EQ(m->blocks.size(), 3u);
  EXPECT_EQ(m->blocks[0].address, 0x1010u);
  EXPECT_EQ(m->blocks[0].count, 7u);
  EXPECT_EQ(m->blocks[0].kind, BlockKind::kWrapped);
  EXPECT_EQ(m->blocks[1].count, 0u);
  EXPECT_EQ(m->blocks[2].address, 0x1040u);
  EXPECT_EQ(m->blocks[2].count, 255u);
  auto flags = three_counters();
  flags.flags = true;
  auto f = read_inline_module("/srv/prog", kBias, flags, inline_bounds(), p);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->blocks[2].kind, BlockKind::kFlag);
  EXPECT_EQ(f->blocks[2].count, 1u);  // any byte but 0 ran
}

TEST(LiveBlocks, RefusesWhatAHostileProcessHolds) {
  auto good = inline_process({kCode + 0x10, kCode + 0x24, kCode + 0x40});
  struct Case {
    InlineSections s;
    const char* says;
  };
  auto outside = three_counters();
  outside.counters = kCode;  // not writable
  auto table_out = three_counters();
  table_out.pcs = kData + 0xff0;  // runs past the module
  auto short_table = three_counters();
  short_table.pcs_size = 32;
  auto none = three_counters();
  none.counters_size = 0;
  auto huge = three_counters();
  huge.counters_size = uint64_t(1) << 40;
  huge.pcs_size = huge.counters_size * 16;
  for (const Case& c : {Case{outside, "outside its writable memory"}, Case{table_out, "outside its memory"},
                        Case{short_table, "32 bytes for 3 counters"}, Case{none, "0 inline counters"},
                        Case{huge, "inline counters: not a number"}}) {
    auto m = read_inline_module("/srv/prog", kBias, c.s, inline_bounds(), good);
    ASSERT_FALSE(m) << c.says;
    EXPECT_NE(m.error().message.find(c.says), std::string::npos) << m.error().message;
  }
  // A table entry pointing into data (or anywhere but its code).
  auto bad = inline_process({kCode + 0x10, kData + 8, kCode + 0x40});
  auto m = read_inline_module("/srv/prog", kBias, three_counters(), inline_bounds(), bad);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("entry 1"), std::string::npos) << m.error().message;
}

}  // namespace live_blocks_test
}  // namespace covkit::blocks
