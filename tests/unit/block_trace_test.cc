// blocks/block_trace: the runtime's block traces read back; damaged and
// hostile ones (cut, lying about their lengths) refused in one line.
#include "blocks/block_trace.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace covkit::blocks {
namespace block_trace_test {

std::string trace_with(const std::string& header, const std::vector<uint32_t>& ids, const std::string& tail = "end\n") {
  std::string s = header;
  size_t at = s.size();
  s.resize(at + ids.size() * 4);
  if (!ids.empty()) std::memcpy(s.data() + at, ids.data(), ids.size() * 4);
  return s + tail;
}

Expected<BlockTrace> parse(const std::string& s) {
  return parse_block_trace(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

const std::string kHeader =
    "covkit-block-trace 1\npid 7\nbound 16\ndropped 5 1\nmodule 0x5555 /usr/bin/my prog\ni 1 1180\n"
    "i 80000003 11a0\nmodule 0 /lib/x.so\ni 2 40\nevents 4\n";

TEST(BlockTrace, ReadsIdsModulesAndEvents) {
  auto t = parse(trace_with(kHeader, {1, 0x80000003u, 1, 2}));
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->pid, 7);
  EXPECT_EQ(t->bound, 16u);
  EXPECT_EQ(t->dropped_past, 5u);
  EXPECT_EQ(t->dropped_lost, 1u);
  ASSERT_EQ(t->modules.size(), 2u);
  EXPECT_EQ(t->modules[0].path, "/usr/bin/my prog");
  EXPECT_EQ(t->blocks.at(0x80000003u).address, 0x11a0u);
  EXPECT_EQ(t->blocks.at(2).module, 1u);
  EXPECT_EQ(t->events, (std::vector<uint32_t>{1, 0x80000003u, 1, 2}));
  EXPECT_TRUE(looks_like_block_trace(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(kHeader.data()),
                                                              kHeader.size())));
}

TEST(BlockTrace, RefusesDamagedTracesNamingWhatIsWrong) {
  struct Case {
    std::string text;
    const char* says;
  };
  const std::vector<uint32_t> four{1, 1, 1, 1};
  for (const Case& c : {
           Case{"", "empty"},
           Case{"covkit-block-trace 2\n", "line 1"},
           Case{trace_with(kHeader, {1, 1, 1}), "cut short"},               // an event missing
           Case{trace_with(kHeader, four, ""), "cut short"},                // no end line
           Case{trace_with(kHeader, four, "end\nmore"), "after the end"},   // data after it
           Case{trace_with(kHeader, four, "enD\n"), "no end line"},
           Case{"covkit-block-trace 1\nbound 2\ndropped 0 0\nevents 3\n" + std::string(12, '\0') + "end\n",
                "more than its bound"},
           Case{"covkit-block-trace 1\nevents 0\nend\n", "before the bound"},
           Case{"covkit-block-trace 1\nbound 99999999999999999999999\n", "line 2"},
           Case{"covkit-block-trace 1\ni 1 10\n", "before any module"},
           Case{"covkit-block-trace 1\nmodule 0 /x\ni 0 10\n", "line 3"},
           Case{"covkit-block-trace 1\nmodule 0 /x\ni 100000000 10\n", "line 3"},
           Case{"covkit-block-trace 1\nmodule 0 /x\ni 1 10\ni 1 20\n", "twice"},
           Case{"covkit-block-trace 1\nbound 4\ndropped 0 0\nevents 18446744073709551615\n", "more than its bound"},
           Case{"covkit-block-trace 1\nbound 18446744073709551615\ndropped 0 0\nevents 4611686018427387905\nend\n",
                "cut short"},
           Case{"covkit-block-trace 1\npid 1", "cut short"},
           Case{"covkit-block-trace 1\nx\x1b]0;owned\x07\n", "unknown line"},
       }) {
    auto t = parse(c.text);
    ASSERT_FALSE(t) << c.text;
    EXPECT_NE(t.error().message.find(c.says), std::string::npos) << c.text << ": " << t.error().message;
    // Another user's bytes never reach the terminal raw.
    EXPECT_EQ(t.error().message.find('\x1b'), std::string::npos) << t.error().message;
  }
}

}  // namespace block_trace_test
}  // namespace covkit::blocks
