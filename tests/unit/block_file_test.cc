// blocks/block_file: the runtime's block files read back; damaged and
// hostile ones refused with the line at fault.
#include "blocks/block_file.h"

#include <gtest/gtest.h>

namespace covkit::blocks {
namespace block_file_test {

TEST(BlockFile, ReadsModulesAndBlocks) {
  auto f = parse_block_file(
      "covkit-blocks 1\npid 42\ndropped 1 2 3 4 0\nmodule 0x5555 /usr/bin/my prog\nb 1180 7\nw 11ae 255\n"
      "module 0x7f00 /lib/x.so\nf 10 1\nend\n");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->pid, 42);
  EXPECT_EQ(f->dropped_pcs, 1u);
  EXPECT_EQ(f->mismatched_tables, 4u);
  ASSERT_EQ(f->modules.size(), 2u);
  EXPECT_EQ(f->modules[0].path, "/usr/bin/my prog");
  EXPECT_EQ(f->modules[0].bias, 0x5555u);
  ASSERT_EQ(f->modules[0].blocks.size(), 2u);
  EXPECT_EQ(f->modules[0].blocks[0].address, 0x1180u);
  EXPECT_EQ(f->modules[0].blocks[0].count, 7u);
  EXPECT_EQ(f->modules[0].blocks[1].kind, BlockKind::kWrapped);
  EXPECT_EQ(f->modules[1].blocks[0].kind, BlockKind::kFlag);
}

TEST(BlockFile, ReadsTheBlocksOfUnloadedModulesWhenCounted) {
  // Runtimes since the count write six numbers; earlier ones five.
  auto f = parse_block_file("covkit-blocks 1\npid 1\ndropped 0 0 0 0 7 3\nend\n");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->dropped_trace, 7u);
  EXPECT_EQ(f->unmapped_blocks, 3u);
  auto seven = parse_block_file("covkit-blocks 1\npid 1\ndropped 0 0 0 0 7 3 1\nend\n");
  ASSERT_FALSE(seven);
  EXPECT_NE(seven.error().message.find("line 3"), std::string::npos) << seven.error().message;
}

TEST(BlockFile, RefusesDamagedFilesNamingTheLine) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : {Case{"", "empty"}, Case{"covkit-blocks 2\nend\n", "line 1"},
                        Case{"covkit-blocks 1\nb 10 1\nend\n", "before any module"},
                        Case{"covkit-blocks 1\nmodule 0 /x\nb zz 1\nend\n", "line 3"},
                        Case{"covkit-blocks 1\nmodule 0 /x\nw 10 256\nend\n", "out of its range"},
                        Case{"covkit-blocks 1\nmodule 0 /x\nb 10 1\n", "no end"},
                        Case{"covkit-blocks 1\nmodule 0 /x\nb 10 99999999999999999999999\nend\n", "line 3"},
                        Case{"covkit-blocks 1\nend\nb 1 1\n", "after the end"},
                        Case{"covkit-blocks 1\nmodule 0 /x\nb 10 1", "cut short"}}) {
    auto f = parse_block_file(c.text);
    ASSERT_FALSE(f) << c.text;
    EXPECT_NE(f.error().message.find(c.says), std::string::npos) << c.text << ": " << f.error().message;
  }
}

TEST(BlockFile, AnUnknownLineIsQuotedWithoutItsControlBytes) {
  // The file may be another user's: its bytes must not reach a terminal raw.
  auto f = parse_block_file("covkit-blocks 1\nx\x1b]0;owned\x07\n");
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().message.find('\x1b'), std::string::npos) << f.error().message;
  EXPECT_EQ(f.error().message.find('\x07'), std::string::npos) << f.error().message;
  EXPECT_NE(f.error().message.find("line 2: an unknown line"), std::string::npos) << f.error().message;
}

}  // namespace block_file_test
}  // namespace covkit::blocks
