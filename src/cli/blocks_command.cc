// `covkit blocks report FILE... [report options]`: the block files that
// libcovkit-blocks writes for programs built with -fsanitize-coverage
// (blocks/block_coverage), reported as `covkit report` reports.
#include "cli/blocks_command.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "blocks/block_coverage.h"
#include "blocks/block_file.h"
#include "cli/command_line.h"
#include "cli/report_command.h"
#include "cli/report_options.h"
#include "cli/sample_options.h"
#include "model/load_coverage_file.h"
#include "util/fast_allocator.h"
#include "util/plural.h"

namespace covkit::cli {

namespace {

constexpr std::string_view kBlocksReportCommand = "covkit blocks report";

constexpr const char* kBlocksDescription =
    "Coverage from the basic-block hooks of -fsanitize-coverage (GCC and clang):\n"
    "a program built with trace-pc, trace-pc-guard, or inline-8bit-counters /\n"
    "inline-bool-flag with pc-table, and run with libcovkit-blocks (preloaded or\n"
    "linked), writes a block file at exit: each block's address and count.\n"
    "\n"
    "  covkit blocks report covkit-blocks.1234 --html cov/\n";

constexpr const char* kBlocksReportDescription =
    "Turns block files (libcovkit-blocks, written at exit as covkit-blocks.PID\n"
    "or $COVKIT_BLOCKS_FILE) into coverage of the program's sources and reports\n"
    "it as `covkit report` does: terminal summary, lcov, Cobertura, JSON, HTML,\n"
    "gates. Each module's code is decoded into control-flow graphs (as covkit\n"
    "sample does), the blocks that ran are placed in them (with the blocks that\n"
    "must have run with them: dominators, and the rest of a straight run of code\n"
    "after a hook), and DWARF line tables give the lines. Only functions the\n"
    "compiler instrumented are listed. Several files (runs) add up.\n";

constexpr const char* kBlocksReportFooter =
    "Exit status: 0 when the report was written (and the gates passed); 1 on an\n"
    "error (a block file cannot be read); 2 when a --fail-under gate failed; 3\n"
    "when an output could not be written.\n"
    "\n"
    "Examples:\n"
    "  covkit blocks report covkit-blocks.*               the terminal summary\n"
    "  covkit blocks report covkit-blocks.* --html cov/ --lcov blocks.info\n"
    "(a program built with clang -g -fsanitize-coverage=trace-pc-guard and linked\n"
    "with libcovkit-blocks and clang's -fno-sanitize-link-runtime; or gcc's\n"
    "trace-pc, run with LD_PRELOAD=libcovkit-blocks.so)\n"
    "\n"
    "The manual is docs/covkit-blocks.md; every output, filter and gate option\n"
    "is that of `covkit report` (docs/covkit-report.md).";

struct BlocksReportOptions {
  std::vector<std::string> files;
  ReportOptions report;
};

bool is_block_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof head);
  return blocks::looks_like_block_file(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(head), size_t(in.gcount())));
}

int report_block_files(const BlocksReportOptions& o) {
  if (o.files.empty())
    return fail(kBlocksReportCommand, "", "no block file given (libcovkit-blocks writes covkit-blocks.PID at exit)");
  if (auto status = refuse_missing_paths(kBlocksReportCommand, o.files)) return *status;
  blocks::BlockCoverageOptions bo;
  bo.source_root = o.report.root;
  auto cov = blocks::load_block_coverage(o.files, bo);
  if (!cov) return fail(kBlocksReportCommand, "", cov.error());
  if (!o.report.quiet) {
    for (const std::string& w : cov->warnings)
      std::fprintf(stderr, "%s: warning: %s\n", std::string(kBlocksReportCommand).c_str(), w.c_str());
    for (const blocks::BlockModuleSummary& m : cov->modules)
      if (m.wrapped_counts)
        std::fprintf(stderr, "%s: note: %s: inline 8-bit counters wrap at 256: counts are modulo 256, and a block "
                     "run a multiple of 256 times looks unrun\n",
                     std::string(kBlocksReportCommand).c_str(), m.path.c_str());
  }
  return report_coverage(o.report, std::move(cov->coverage), kBlocksReportCommand);
}

int run_blocks_report(int argc, char** argv) {
  CLI::App app{kBlocksReportDescription, std::string(kBlocksReportCommand)};
  app.footer(kBlocksReportFooter);
  app.get_formatter()->column_width(34);
  BlocksReportOptions o;
  app.add_option("FILE", o.files, "Block files written by libcovkit-blocks (covkit-blocks.PID)");
  add_report_source_options(app, o.report);
  add_report_view_options(app, o.report);
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  util::use_fast_allocator();
  if (auto bad = resolve_report_outputs(o.report, &o.files)) return fail(kBlocksReportCommand, "", *bad);
  // `--json covkit-blocks.123`: a block file is what to report, never a
  // file to write over (the output goes to standard output).
  for (std::string* dest : {&o.report.lcov, &o.report.cobertura, &o.report.sonarqube, &o.report.coveralls,
                            &o.report.json, &o.report.markdown})
    if (!dest->empty() && *dest != "-" && is_block_file(*dest)) {
      o.files.insert(o.files.begin(), *dest);
      *dest = "-";
    }
  return run_guarded(kBlocksReportCommand, [&] { return report_block_files(o); });
}

}  // namespace

int run_blocks_command(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "report") == 0) return run_blocks_report(argc - 1, argv + 1);
  CLI::App app{kBlocksDescription, "covkit blocks"};
  app.footer("Each subcommand has its own --help; the manual is docs/covkit-blocks.md.");
  app.require_subcommand(1);
  app.add_subcommand("report", "Coverage of the sources from block files, as covkit report writes it")
      ->prefix_command();
  if (auto status = refuse_missing_subcommand(app, argc, argv)) return *status;
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  return 0;
}

}  // namespace covkit::cli
