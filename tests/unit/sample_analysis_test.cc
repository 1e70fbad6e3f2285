// sample/sample_analysis end to end: a program compiled with gcc-12 -O1 -g
// (non-PIE, so the mapping is the identity), a recording made by hand with
// a breakpoint hit at the entry of every function but one, and the lines
// and functions that must come out; plus stripped and damaged files.
#include "sample/sample_analysis.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>

#include "sample/binary_image.h"
#include "sample/module_cfg.h"
#include "sample_test_programs.h"
#include "test_support.h"

namespace covkit::sample {
namespace sample_analysis_test {

using covkit::testing::run_command;
using covkit::testing::TempDir;
using covkit::testing::write_text;

constexpr const char* kProgram = test_programs::kUsedNeverProgram;

using Built = test_programs::BuiltProgram;
using test_programs::identity_recording;

bool build(Built& b, const std::string& flags) { return test_programs::build_program(b, kProgram, flags); }

const model::FileCov* find_file(const model::ProjectCov& p, const std::string& suffix) {
  for (const model::FileCov& f : p.files)
    if (f.path.ends_with(suffix)) return &f;
  return nullptr;
}

const model::FunctionCov* find_function(const model::FileCov& f, const std::string& name) {
  for (const model::FunctionCov& fn : f.functions)
    if (fn.name == name) return &fn;
  return nullptr;
}

TEST(SampleAnalysis, BreakpointHitsAtFunctionEntries) {
  Built b;
  if (!build(b, "-O1 -g -no-pie -fno-pie")) GTEST_SKIP() << b.why;
  auto img = load_binary_image(b.exe);
  ASSERT_TRUE(img) << img.error().message;
  format::SampleRecording r = identity_recording(*img, b.exe);
  for (const FunctionSymbol& f : img->functions())
    if (f.name == "main" || f.name == "used") r.hits.push_back({0, f.address});
  ASSERT_EQ(r.hits.size(), 2u);

  AnalysisOptions opt;
  opt.inference = InferenceMode::dominators;
  opt.source_root = b.dir.path();
  auto cov = analyze_recording(r, opt);
  ASSERT_TRUE(cov) << cov.error().message;
  ASSERT_EQ(cov->modules.size(), 1u);
  EXPECT_TRUE(cov->modules[0].warnings.empty());
  const model::FileCov* file = find_file(cov->coverage, "p.c");
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->path, "p.c");  // relative to the source root
  // used() is one block: its line ran. never()'s line is listed, count 0.
  ASSERT_NE(file->find_line(3), nullptr);
  EXPECT_GT(file->find_line(3)->count, 0);
  ASSERT_NE(file->find_line(6), nullptr);
  EXPECT_EQ(file->find_line(6)->count, 0);
  // main's entry block holds the test of line 10.
  ASSERT_NE(file->find_line(10), nullptr);
  EXPECT_GT(file->find_line(10)->count, 0);
  // Lines with no code are not listed.
  EXPECT_EQ(file->find_line(1), nullptr);

  const model::FunctionCov* used = find_function(*file, "used");
  const model::FunctionCov* never = find_function(*file, "never");
  const model::FunctionCov* main_fn = find_function(*file, "main");
  ASSERT_TRUE(used && never && main_fn);
  EXPECT_EQ(used->start_line, 2u);
  EXPECT_EQ(never->start_line, 5u);
  EXPECT_EQ(main_fn->start_line, 8u);
  EXPECT_EQ(used->execution_count, 1);
  EXPECT_EQ(never->execution_count, 0);
  EXPECT_EQ(main_fn->execution_count, 1);
  // Nothing was inferred: every covered line was hit itself.
  EXPECT_TRUE(cov->inferred_only_lines.empty());
}

// A branch vector as a branch stack would record main calling used() and
// used() returning, then main calling printf: the ranges between the
// branches are straight-line code, so used()'s line and main's call line ran.
TEST(SampleAnalysis, BranchVectorRangesBecomeLines) {
  Built b;
  if (!build(b, "-O1 -g -no-pie -fno-pie")) GTEST_SKIP() << b.why;
  auto img = load_binary_image(b.exe);
  ASSERT_TRUE(img);
  format::SampleRecording r = identity_recording(*img, b.exe);
  ModuleCfg m = build_module_cfg(std::move(*img));
  const FunctionCfg *main_fn = nullptr, *used = nullptr;
  for (const FunctionCfg& f : m.functions) {
    if (f.name == "main") main_fn = &f;
    if (f.name == "used") used = &f;
  }
  ASSERT_TRUE(main_fn && used);
  const BasicBlock* call_used = nullptr;
  for (const BasicBlock& blk : main_fn->blocks)
    if (blk.callee == used->address) call_used = &blk;
  ASSERT_NE(call_used, nullptr);
  int after = main_fn->block_at(call_used->end);
  ASSERT_GE(after, 0);
  const BasicBlock& printf_call = main_fn->blocks[size_t(after)];
  ASSERT_EQ(printf_call.kind, BlockEnd::call);
  const BasicBlock& used_block = used->blocks.back();
  ASSERT_EQ(used_block.kind, BlockEnd::ret);

  format::Sample s;
  s.branches = {{call_used->last_insn_address(main_fn->insns), used->address},
                {used_block.last_insn_address(used->insns), call_used->end},
                {printf_call.last_insn_address(main_fn->insns), 0x10}};  // into code not mapped
  r.samples.push_back(s);
  AnalysisOptions opt;
  opt.inference = InferenceMode::none;
  auto cov = analyze_recording(r, opt);
  ASSERT_TRUE(cov) << cov.error().message;
  EXPECT_EQ(cov->ranges, 2u);
  EXPECT_EQ(cov->ranges_dropped, 0u);
  EXPECT_EQ(cov->unplaced_addresses, 1u);  // the last target
  const model::FileCov* file = find_file(cov->coverage, "p.c");
  ASSERT_NE(file, nullptr);
  ASSERT_TRUE(file->find_line(3) && file->find_line(6) && file->find_line(11));
  EXPECT_EQ(file->find_line(3)->count, 1);
  EXPECT_EQ(file->find_line(11)->count, 1);
  EXPECT_EQ(file->find_line(6)->count, 0);
}

TEST(SampleAnalysis, BreakpointSitesCoverEveryFunctionEntryOrItsImplier) {
  Built b;
  if (!build(b, "-O1 -g -no-pie -fno-pie")) GTEST_SKIP() << b.why;
  auto sites = breakpoint_sites(b.exe);
  ASSERT_TRUE(sites) << sites.error().message;
  auto img = load_binary_image(b.exe);
  ASSERT_TRUE(img);
  ModuleCfg m = build_module_cfg(std::move(*img));
  // used() is a single block: its entry must be planted; every site is a block start.
  for (const FunctionCfg& f : m.functions) {
    if (f.name == "used") {
      EXPECT_TRUE(std::binary_search(sites->vaddrs.begin(), sites->vaddrs.end(), f.address));
    }
  }
  EXPECT_TRUE(sites->skipped.empty());
  for (uint64_t s : sites->vaddrs) {
    auto ref = m.locate(s);
    ASSERT_TRUE(ref);
    EXPECT_EQ(m.block(*ref).start, s);
  }
}

// strip --strip-all leaves no function symbols; the FDEs of .eh_frame give
// the same functions (by address and size), named fn_<hex>, so the CFG and
// the breakpoint plan are those of the unstripped file.
TEST(SampleAnalysis, StrippedFileFunctionsComeFromEhFrame) {
  Built b;
  if (!build(b, "-O1 -g -no-pie -fno-pie")) GTEST_SKIP() << b.why;
  std::string stripped = b.dir / "stripped", out;
  ASSERT_EQ(run_command("strip --strip-all -o '" + stripped + "' '" + b.exe + "'", &out), 0) << out;
  auto full = load_binary_image(b.exe);
  auto img = load_binary_image(stripped);
  ASSERT_TRUE(full && img);
  EXPECT_TRUE(full->functions_note().empty());
  EXPECT_TRUE(img->symbols_problem().empty()) << img->symbols_problem();
  EXPECT_NE(img->functions_note().find("come from .eh_frame"), std::string::npos) << img->functions_note();
  // Every function of the full file is there, same range, named by its address.
  ASSERT_EQ(img->functions().size(), full->functions().size());
  uint64_t used = 0;
  for (size_t i = 0; i < full->functions().size(); ++i) {
    const FunctionSymbol& f = full->functions()[i];
    const FunctionSymbol& g = img->functions()[i];
    EXPECT_EQ(g.address, f.address) << f.name;
    EXPECT_EQ(g.size, f.size) << f.name;
    EXPECT_EQ(g.name, fmt::format("fn_{:x}", f.address));
    if (f.name == "used") used = f.address;
  }
  ASSERT_NE(used, 0u);
  // Calls through the PLT keep their names (.dynsym survives stripping).
  ModuleCfg full_cfg = build_module_cfg(std::move(*full));
  auto sites = breakpoint_sites(stripped);
  ASSERT_TRUE(sites) << sites.error().describe();
  EXPECT_EQ(sites->vaddrs, breakpoint_sites(full_cfg).vaddrs);

  format::SampleRecording r = identity_recording(*img, stripped);
  r.hits.push_back({0, used});
  auto cov = analyze_recording(r, AnalysisOptions{});
  ASSERT_TRUE(cov);
  ASSERT_EQ(cov->modules.size(), 1u);
  EXPECT_EQ(cov->unplaced_addresses, 0u);
  const auto& warnings = cov->modules[0].warnings;
  // One line names the module and says where its functions came from;
  // lines are impossible without DWARF, as for any file built without -g.
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], stripped + ": " + img->functions_note());
  EXPECT_NE(warnings[1].find("function-level results only"), std::string::npos) << warnings[1];
  const model::FileCov* file = find_file(cov->coverage, "stripped");
  ASSERT_NE(file, nullptr);
  const model::FunctionCov* fn = find_function(*file, fmt::format("fn_{:x}", used));
  ASSERT_NE(fn, nullptr);
  EXPECT_GT(fn->blocks_executed, 0u);
}

TEST(SampleAnalysis, StrippedFileWithoutEhFrameIsOneClearWarning) {
  Built b;
  if (!build(b, "-O1 -no-pie -fno-pie -s")) GTEST_SKIP() << b.why;
  std::string bare = b.dir / "bare", out;
  ASSERT_EQ(run_command("objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr '" + b.exe + "' '" + bare +
                        "'", &out), 0) << out;
  auto img = load_binary_image(bare);
  ASSERT_TRUE(img);
  EXPECT_TRUE(img->functions().empty());
  format::SampleRecording r = identity_recording(*img, bare);
  r.hits.push_back({0, r.images[0].mappings[0].start});
  auto cov = analyze_recording(r, AnalysisOptions{});
  ASSERT_TRUE(cov);
  ASSERT_EQ(cov->modules.size(), 1u);
  ASSERT_EQ(cov->modules[0].warnings.size(), 1u);
  EXPECT_NE(cov->modules[0].warnings[0].find(bare), std::string::npos);
  EXPECT_NE(cov->modules[0].warnings[0].find("stripped"), std::string::npos);
  EXPECT_NE(cov->modules[0].warnings[0].find("no .eh_frame"), std::string::npos);
  EXPECT_EQ(cov->unplaced_addresses, 1u);
  auto sites = breakpoint_sites(bare);
  ASSERT_FALSE(sites);
  EXPECT_NE(sites.error().message.find("functions unknown"), std::string::npos);
  // The recorder names the module: the message must not name it again.
  EXPECT_EQ(sites.error().message.find(bare), std::string::npos) << sites.error().message;
}

// A hostile .eh_frame (the first record's length past the section's end)
// in a stripped file: one line naming the file and the damage, no functions.
TEST(SampleAnalysis, StrippedFileWithDamagedEhFrameIsOneClearWarning) {
  Built b;
  if (!build(b, "-O1 -no-pie -fno-pie -s")) GTEST_SKIP() << b.why;
  std::string offset;
  ASSERT_EQ(run_command("readelf -SW '" + b.exe + "' | awk '$2 == \".eh_frame\" { print $5 }'", &offset), 0);
  ASSERT_FALSE(offset.empty());
  std::vector<uint8_t> bytes = covkit::testing::read_bytes(b.exe);
  size_t at = std::stoul(offset, nullptr, 16);
  ASSERT_LT(at + 4, bytes.size());
  bytes[at] = 0xf0, bytes[at + 1] = bytes[at + 2] = 0xff, bytes[at + 3] = 0x0f;  // 0x0ffffff0 bytes
  std::string damaged = b.dir / "damaged";
  ASSERT_TRUE(covkit::testing::write_bytes(damaged, bytes));
  auto img = load_binary_image(damaged);
  ASSERT_TRUE(img);
  EXPECT_TRUE(img->functions().empty());
  EXPECT_NE(img->symbols_problem().find(".eh_frame is damaged at offset 0x0: a record's length (268435440 bytes) "
                                        "runs past the end"),
            std::string::npos)
      << img->symbols_problem();
  format::SampleRecording r = identity_recording(*img, damaged);
  auto cov = analyze_recording(r, AnalysisOptions{});
  ASSERT_TRUE(cov);
  ASSERT_EQ(cov->modules.size(), 1u);
  ASSERT_EQ(cov->modules[0].warnings.size(), 1u);
  EXPECT_EQ(cov->modules[0].warnings[0], damaged + ": " + img->symbols_problem());
  auto sites = breakpoint_sites(damaged);
  ASSERT_FALSE(sites);
  EXPECT_NE(sites.error().message.find("functions unknown"), std::string::npos);
}

TEST(SampleAnalysis, DamagedFilesAreWarningsNamingThem) {
  TempDir d;
  std::string text = d / "not-elf", truncated = d / "truncated";
  write_text(text, "this is not an ELF file\n");
  // An ELF header whose program headers lie beyond the end of the file.
  std::string head = "\x7f""ELF\x02\x01\x01";
  head.resize(64, '\0');
  head[16] = 2;     // ET_EXEC
  head[18] = 62;    // EM_X86_64
  head[20] = 1;     // EV_CURRENT
  head[32] = 0x40;  // e_phoff
  head[52] = 64;    // e_ehsize
  head[54] = 56;    // e_phentsize
  head[56] = 3;     // e_phnum
  write_text(truncated, head);
  format::SampleRecording r;
  format::SampleImage image;
  image.mappings.push_back({0x1000, 0x2000, 0, text, ""});
  image.mappings.push_back({0x3000, 0x4000, 0, truncated, ""});
  r.images.push_back(image);
  r.hits.push_back({0, 0x1000});
  auto cov = analyze_recording(r, AnalysisOptions{});
  ASSERT_TRUE(cov);
  EXPECT_TRUE(cov->modules.empty());
  ASSERT_EQ(cov->warnings.size(), 2u);
  EXPECT_EQ(cov->warnings[0].find(text + ": not an ELF file"), 0u) << cov->warnings[0];
  EXPECT_EQ(cov->warnings[1].find(truncated + ": "), 0u) << cov->warnings[1];
  EXPECT_TRUE(cov->coverage.files.empty());
  EXPECT_TRUE(cov->modules.empty());
}

// A file rebuilt since the recording holds other code at the recorded
// addresses: its evidence must not be read against it.
TEST(SampleAnalysis, BuildIdMismatchIgnoresTheModule) {
  Built b;
  if (!build(b, "-O1 -g -no-pie -fno-pie -Wl,--build-id")) GTEST_SKIP() << b.why;
  auto img = load_binary_image(b.exe);
  ASSERT_TRUE(img);
  ASSERT_FALSE(img->build_id().empty());
  format::SampleRecording r = identity_recording(*img, b.exe);
  for (auto& m : r.images[0].mappings) m.build_id = "00112233";
  r.hits.push_back({0, img->functions().front().address});
  auto cov = analyze_recording(r, AnalysisOptions{});
  ASSERT_TRUE(cov);
  ASSERT_EQ(cov->warnings.size(), 1u);
  EXPECT_EQ(cov->warnings[0].find(b.exe + ": build-id " + img->build_id()), 0u) << cov->warnings[0];
  EXPECT_EQ(cov->unplaced_addresses, 1u);
  // It is no part of the coverage: its lines would be another build's.
  EXPECT_TRUE(cov->coverage.files.empty());
}

TEST(SampleAnalysis, SampleNamingAMissingImageIsAnError) {
  format::SampleRecording r;
  format::Sample s;
  s.image = 7;
  r.samples.push_back(s);
  auto cov = analyze_recording(r, AnalysisOptions{});
  ASSERT_FALSE(cov);
  EXPECT_NE(cov.error().message.find("image 7"), std::string::npos);
}

}  // namespace
}  // namespace covkit::sample
