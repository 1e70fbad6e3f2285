// sample/coverage_builder on hand-made line tables and CFGs: which lines a
// module's executed blocks cover.
#include "sample/coverage_builder.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sample_synthetic_cfg.h"

namespace covkit::sample {
namespace sample_coverage_builder_test {

using testing::BlockSpec;

LineRange row(uint64_t lo, uint64_t hi, uint32_t line, bool is_stmt) {
  LineRange r;
  r.lo = lo;
  r.hi = hi;
  r.line = line;
  r.is_stmt = is_stmt;
  return r;
}

int64_t count_of(const ModuleCoverage& c, uint32_t line) {
  for (const format::SourceRecord& s : c.records.sources)
    for (const format::LineRecord& l : s.lines)
      if (l.number == line) return l.count;
  return -1;
}

// fmtlib 9.1.0 at -O0: parse_format_specs is always_inline, and its copy
// inside format_handler::on_format_specs has rows that are no statement
// (core.h:2627, `handler.on_error(...)`, run by its tests), while the
// function's out-of-line copy, later in the module, has its is_stmt rows.
// The line is listed (the copy's statement) and covered (the inlined code
// ran), in whichever order the two functions come.
TEST(SampleCoverageBuilder, LineListedByALaterFunctionIsCoveredByAnEarlierOnesRun) {
  for (bool listing_first : {false, true}) {
    const uint64_t runs_at = listing_first ? 0x2000 : 0x1000, lists_at = listing_first ? 0x1000 : 0x2000;
    ModuleCfg m = testing::synthetic_module({
        testing::synthetic_function(listing_first ? "copy" : "caller", 0x1000, {BlockSpec{}}),
        testing::synthetic_function(listing_first ? "caller" : "copy", 0x2000, {BlockSpec{}}),
    });
    LineTable t;
    t.has_debug_info = true;
    t.files = {"/src/core.h"};
    // The caller: its own line 10, then the inlined line 27 (no statement).
    std::vector<LineRange> caller = {row(runs_at, runs_at + 2, 10, true), row(runs_at + 2, runs_at + 4, 27, false)};
    std::vector<LineRange> copy = {row(lists_at, lists_at + 4, 27, true)};
    t.ranges = listing_first ? copy : caller;
    t.ranges.insert(t.ranges.end(), (listing_first ? caller : copy).begin(), (listing_first ? caller : copy).end());
    ModuleBlockStates st;
    st.functions.resize(2);
    const size_t ran = listing_first ? 1 : 0;
    BlockState ran_state;
    ran_state.observed = ran_state.executed = true;
    ran_state.count = 3;
    st.functions[ran] = {ran_state};
    st.functions[1 - ran] = {BlockState{}};

    const ModuleCoverage c = module_coverage(m, t, st, "/src");
    EXPECT_EQ(count_of(c, 10), 3) << "listing first: " << listing_first;
    EXPECT_EQ(count_of(c, 27), 3) << "listing first: " << listing_first;  // was 0 when the caller came first
  }
}

}  // namespace sample_coverage_builder_test
}  // namespace covkit::sample
