// model/function_graph: blocks, arcs and their flags as built from notes.
#include "model/function_graph.h"

#include <gtest/gtest.h>

#include <map>
#include <span>
#include <vector>

#include "graph_fixtures.h"

namespace covkit::model {
namespace function_graph_test {

using namespace covkit::testing;

// A block's arc list (a view into its function's array) as a vector, to compare.
std::vector<uint32_t> list(std::span<const uint32_t> arcs) { return {arcs.begin(), arcs.end()}; }

TEST(FunctionGraph, CopiesIdentityFields) {
  format::NotesFunction n = diamond();
  n.name = "_Z1fv";
  n.ident = 7;
  n.lineno_checksum = 8;
  n.cfg_checksum = 9;
  n.artificial = true;
  n.start_line = 10, n.start_column = 11, n.end_line = 12, n.end_column = 13;
  Function fn = build_graph(n);
  EXPECT_EQ(fn.name, "_Z1fv");
  EXPECT_EQ(fn.ident, 7u);
  EXPECT_EQ(fn.lineno_checksum, 8u);
  EXPECT_EQ(fn.cfg_checksum, 9u);
  EXPECT_TRUE(fn.artificial);
  EXPECT_EQ(fn.start_line, 10u);
  EXPECT_EQ(fn.start_column, 11u);
  EXPECT_EQ(fn.end_line, 12u);
  EXPECT_EQ(fn.end_column, 13u);
  EXPECT_EQ(fn.blocks.size(), 6u);
  EXPECT_EQ(fn.real_block_count(), 4u);
}

TEST(FunctionGraph, ArcsInNotesOrderWithFlags) {
  Function fn = build_graph(diamond());
  ASSERT_EQ(fn.arcs.size(), 6u);
  const uint32_t expected[6][2] = {{0, 2}, {2, 3}, {2, 4}, {3, 5}, {4, 5}, {5, 1}};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(fn.arcs[i].src, expected[i][0]) << i;
    EXPECT_EQ(fn.arcs[i].dst, expected[i][1]) << i;
    EXPECT_FALSE(fn.arcs[i].count_valid);
    EXPECT_FALSE(fn.arcs[i].fake);
  }
  EXPECT_FALSE(fn.arcs[0].on_tree);
  EXPECT_TRUE(fn.arcs[0].fall_through);
  EXPECT_FALSE(fn.arcs[1].on_tree);
  EXPECT_FALSE(fn.arcs[1].fall_through);
  EXPECT_TRUE(fn.arcs[2].on_tree);
  EXPECT_TRUE(fn.arcs[2].fall_through);
  // One counter per instrumented arc.
  EXPECT_EQ(fn.counts, (std::vector<int64_t>{0, 0}));
  EXPECT_FALSE(fn.has_catch);
}

TEST(FunctionGraph, SuccessorsAndPredecessors) {
  Function fn = build_graph(diamond());
  EXPECT_EQ(list(fn.blocks[0].succ), (std::vector<uint32_t>{0}));
  EXPECT_EQ(list(fn.blocks[2].succ), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(list(fn.blocks[2].pred), (std::vector<uint32_t>{0}));
  EXPECT_EQ(list(fn.blocks[5].pred), (std::vector<uint32_t>{3, 4}));
  EXPECT_EQ(list(fn.blocks[1].pred), (std::vector<uint32_t>{5}));
  EXPECT_TRUE(fn.blocks[1].succ.empty());
  EXPECT_TRUE(fn.blocks[0].pred.empty());
  for (uint32_t b = 0; b < 6; ++b) EXPECT_EQ(fn.blocks[b].id, b);
}

TEST(FunctionGraph, UnnamedBlocksKeepIdZero) {
  Function fn = build_graph(notes_function(5, {{0, 2, kFall}, {2, 1, kTree}}));
  EXPECT_EQ(fn.blocks[2].id, 2u);
  EXPECT_EQ(fn.blocks[3].id, 0u);
  EXPECT_EQ(fn.blocks[4].id, 0u);
}

TEST(FunctionGraph, FakeArcFromACallMarksCallSite) {
  Function fn = build_graph(call_with_fake_exit());
  const Arc& fake = arc(fn, 2, 1);
  EXPECT_TRUE(fake.fake);
  EXPECT_TRUE(fake.is_call_non_return);
  EXPECT_FALSE(fake.is_nonlocal_return);
  EXPECT_TRUE(fn.blocks[2].is_call_site);
  EXPECT_FALSE(arc(fn, 2, 3).is_throw);  // the fallthrough is the normal return
  EXPECT_FALSE(fn.has_catch);
  EXPECT_FALSE(fn.blocks[0].is_call_site);
}

TEST(FunctionGraph, NonFallthroughExitOfACallIsAThrow) {
  Function fn = build_graph(call_with_catch());
  EXPECT_TRUE(arc(fn, 2, 4).is_throw);
  EXPECT_FALSE(arc(fn, 2, 3).is_throw);
  EXPECT_FALSE(arc(fn, 2, 1).is_throw);
  EXPECT_TRUE(arc(fn, 2, 1).is_call_non_return);
  EXPECT_TRUE(fn.has_catch);
  EXPECT_FALSE(arc(fn, 3, 5).is_throw);
  EXPECT_FALSE(arc(fn, 4, 5).is_throw);
}

TEST(FunctionGraph, FakeArcFromEntryIsANonlocalReturn) {
  Function fn = build_graph(setjmp_receiver());
  const Arc& a = arc(fn, 0, 3);
  EXPECT_TRUE(a.fake);
  EXPECT_TRUE(a.is_nonlocal_return);
  EXPECT_FALSE(a.is_call_non_return);
  EXPECT_TRUE(fn.blocks[3].is_nonlocal_return);
  EXPECT_FALSE(fn.blocks[2].is_nonlocal_return);
  EXPECT_FALSE(fn.blocks[0].is_call_site);
  EXPECT_FALSE(fn.has_catch);
}

TEST(FunctionGraph, BuildFunctionMapsSourcesInMentionOrder) {
  format::NotesFunction n = diamond();
  n.source = "main.c";
  // Locations name files by index into the notes file's names: 0 main.c, 1 h.h.
  const std::vector<std::string> files{"main.c", "h.h"};
  n.begin_lines(2);
  n.begin_location(0);
  n.add_line(3);
  n.add_line(4);
  n.begin_location(1);
  n.add_line(9);
  n.begin_lines(3);
  n.begin_location(1);
  n.add_line(10);
  std::vector<std::string> seen;
  std::map<std::string, uint32_t> ids;
  auto source_of = [&](const std::string& name) {
    seen.push_back(name);
    auto [it, fresh] = ids.emplace(name, uint32_t(ids.size()) + 100);
    return it->second;
  };
  Function fn = build_function(n, source_of, [&](uint32_t file) { return source_of(files.at(file)); });
  EXPECT_EQ(seen, (std::vector<std::string>{"main.c", "main.c", "h.h", "h.h"}));
  EXPECT_EQ(fn.source, 100u);
  ASSERT_EQ(fn.blocks[2].locations.size(), 2u);
  EXPECT_EQ(fn.blocks[2].locations[0].source, 100u);
  EXPECT_EQ(list(fn.blocks[2].locations[0].lines), (std::vector<uint32_t>{3, 4}));
  EXPECT_EQ(fn.blocks[2].locations[1].source, 101u);
  EXPECT_EQ(list(fn.blocks[2].locations[1].lines), (std::vector<uint32_t>{9}));
  ASSERT_EQ(fn.blocks[3].locations.size(), 1u);
  EXPECT_EQ(fn.blocks[3].locations[0].source, 101u);
  EXPECT_TRUE(fn.blocks[4].locations.empty());
}

TEST(FunctionGraph, NoBlocksRecord) {
  format::NotesFunction n;
  n.name = "empty";
  Function fn = build_graph(n);
  EXPECT_TRUE(fn.blocks.empty());
  EXPECT_TRUE(fn.arcs.empty());
  EXPECT_EQ(fn.real_block_count(), 0u);
}

}  // namespace
}  // namespace covkit::model
