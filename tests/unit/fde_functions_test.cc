// sample/fde_functions: symbols first, FDEs fill the gaps, PLT FDEs left out.
#include "sample/fde_functions.h"

#include <gtest/gtest.h>

namespace covkit::sample {
namespace fde_functions_test {

std::vector<std::string> names(const std::vector<FunctionSymbol>& fs) {
  std::vector<std::string> out;
  for (const FunctionSymbol& f : fs)
    out.push_back(f.name + "@" + std::to_string(f.address) + "+" + std::to_string(f.size));
  return out;
}

TEST(FdeFunctions, NamesAreTheHexAddress) {
  EXPECT_EQ(unnamed_function_name(0x401136), "fn_401136");
  EXPECT_EQ(unnamed_function_name(0), "fn_0");
}

TEST(FdeFunctions, SymbolsFirstFdesFillTheGaps) {
  // Exported symbols (.dynsym of a stripped library) at 100 and 300.
  std::vector<FunctionSymbol> symbols = {{"api_b", 300, 50}, {"api_a", 100, 40}};
  std::vector<format::FdeRange> fdes = {
      {100, 40},  // api_a's own FDE: the symbol keeps its name
      {200, 30},  // a local function: fn_c8
      {310, 10},  // inside api_b: not a function of its own
      {20, 16},   // the PLT: left out
      {210, 30},  // overlaps fn_c8 (damaged or hostile): the first one wins
      {400, 0},   // empty
      {500, 8},
  };
  std::vector<std::pair<uint64_t, uint64_t>> plt = {{16, 48}};
  size_t added = 0;
  auto out = add_fde_functions(symbols, fdes, plt, &added);
  EXPECT_EQ(added, 2u);
  std::vector<std::string> want = {"api_a@100+40", "fn_c8@200+30", "api_b@300+50", "fn_1f4@500+8"};
  EXPECT_EQ(names(out), want);
}

TEST(FdeFunctions, NoSymbolsAtAll) {
  std::vector<format::FdeRange> fdes = {{0x1170, 5}, {0x1050, 36}};
  auto out = add_fde_functions({}, fdes, {});
  std::vector<std::string> want = {"fn_1050@4176+36", "fn_1170@4464+5"};
  EXPECT_EQ(names(out), want);
}

}  // namespace
}  // namespace covkit::sample
