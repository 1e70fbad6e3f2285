// `covkit blocks report FILE... [report options]`: the block files that
// libcovkit-blocks writes for programs built with -fsanitize-coverage
// (blocks/block_coverage), reported as `covkit report` reports.
#include "cli/blocks_command.h"

#include "cli/cli11.h"
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "blocks/block_coverage.h"
#include "blocks/block_file.h"
#include "blocks/block_trace.h"
#include "blocks/block_trace_text.h"
#include "blocks/live_blocks.h"
#include "cli/command_line.h"
#include "cli/output_options.h"
#include "cli/report_command.h"
#include "cli/report_options.h"
#include "cli/sample_options.h"
#include "model/load_coverage_file.h"
#include "live/access_check.h"
#include "live/process_owner.h"
#include "live/process_tree.h"
#include "runtime/blocks/block_contract.h"
#include "util/fast_allocator.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/printable.h"
#include "util/plural.h"

namespace covkit::cli {

namespace {

constexpr std::string_view kBlocksReportCommand = "covkit blocks report";

constexpr const char* kBlocksDescription =
    "Coverage from the basic-block hooks of -fsanitize-coverage (GCC and clang):\n"
    "a program built with trace-pc, trace-pc-guard, or inline-8bit-counters /\n"
    "inline-bool-flag with pc-table, and linked with libcovkit-blocks (-lcovkit-blocks),\n"
    "writes a block file at exit: each block's address and count;\n"
    "with COVKIT_BLOCKS_TRACE=SIZE also the sequence of blocks run (a block trace).\n"
    "\n"
    "  covkit blocks report covkit-blocks.1234 --html cov/\n"
    "  covkit blocks dump covkit-blocks.1234.trace\n";

constexpr const char* kBlocksReportDescription =
    "Turns block files (libcovkit-blocks, written at exit as covkit-blocks.PID\n"
    "or $COVKIT_BLOCKS_FILE) into coverage of the program's sources and reports\n"
    "it as `covkit report` does: terminal summary, lcov, Cobertura, JSON, HTML,\n"
    "gates. Each module's code is decoded into control-flow graphs (as covkit\n"
    "sample does), the blocks that ran are placed in them (with the blocks that\n"
    "must have run with them: dominators, and the rest of a straight run of code\n"
    "after a hook), and DWARF line tables give the lines. Only functions the\n"
    "compiler instrumented are listed. Several files (runs) add up.\n"
    "\n"
    "--pid PID reads a running process's inline counters instead (built with\n"
    "clang -fsanitize-coverage=inline-8bit-counters or inline-bool-flag, and\n"
    "pc-table; no runtime needed): every thread is stopped for the read, as\n"
    "covkit live dump does, and the process is not changed (but by --reset).\n"
    "--children reads its descendants too (a pre-fork server's workers), one\n"
    "after the other, and adds their counts up.\n"
    "\n"
    "--reset zeroes the counters read, in the same stop (each process's, with\n"
    "--children), so that the next read counts what ran since: one test phase\n"
    "at a time. If an output cannot be written, they are given back in a\n"
    "second stop (what counted in between is kept too). A covkit killed\n"
    "between the read and its outputs loses what the counters held.\n";

constexpr const char* kBlocksReportFooter =
    "Exit status: 0 when the report was written (and the gates passed); 1 on an\n"
    "error (a block file or the process cannot be read); 2 when a --fail-under gate failed; 3\n"
    "when an output could not be written.\n"
    "\n"
    "Examples:\n"
    "  covkit blocks report covkit-blocks.*               the terminal summary\n"
    "  covkit blocks report covkit-blocks.* --html cov/ --lcov blocks.info\n"
    "  covkit blocks report --pid 1234 --lcov server.info   a running server's inline counters\n"
    "  covkit blocks report --pid 1234 --children          and those of its workers\n"
    "  covkit blocks report --pid 1234 --reset --lcov phase1.info   and zero them\n"
    "(a program built with clang -g -fsanitize-coverage=trace-pc-guard and linked\n"
    "with libcovkit-blocks and clang's -fno-sanitize-link-runtime; or gcc's\n"
    "trace-pc, linked with -lcovkit-blocks)\n"
    "\n"
    "The manual is docs/covkit-blocks.md; every output, filter and gate option\n"
    "is that of `covkit report` (docs/covkit-report.md).";

struct BlocksReportOptions {
  std::vector<std::string> files;
  int pid = 0;  // --pid: a running process's inline counters
  bool no_stop = false;
  bool children = false;  // --children: and its descendants'
  bool reset = false;     // --reset: zero the counters read

  ReportOptions report;
};

bool is_block_file(const std::string& path) {
  // A regular file's head only: a FIFO there must not hang the check.
  auto head = util::read_file_head(path, 16);
  return head && blocks::looks_like_block_file(
                     std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(head->data()), head->size()));
}

// A process read with --reset: what to give back if no report is written.
struct ResetProcess {
  pid_t pid = 0;
  blocks::LiveBlocks taken;
};

// --pid: the process's inline counters as a block file, read now (and
// zeroed, with `resets`).
Expected<blocks::NamedBlockFile> live_block_file(pid_t pid, bool stop, std::vector<ResetProcess>* resets) {
  // Its data is its user's: files it names are read with that user's
  // rights, and outputs are no more open than its memory.
  live::note_process_data(pid);
  auto captured = blocks::capture_live_blocks(pid, stop, resets != nullptr);
  if (!captured) {
    if (captured.error().why == live::SnapshotFailure::kNoCoverage)
      return Error(fmt::format("process {}: {}", pid, captured.error().message));
    return live::about_process(pid, captured.error());
  }
  blocks::NamedBlockFile named{fmt::format("process {}", pid), captured->file};
  if (resets) resets->push_back({pid, std::move(*captured)});
  return named;
}

// The report was not written: the counts a reset took go back, so that
// nothing is lost (the next read counts them again).
void undo_resets(const std::vector<ResetProcess>& resets) {
  for (const ResetProcess& r : resets)
    if (auto undone = blocks::undo_live_reset(r.pid, r.taken); !undone)
      std::fprintf(stderr, "%s: process %d: the counters reset could not be given back (%s): what they counted "
                   "before the read is lost\n",
                   std::string(kBlocksReportCommand).c_str(), int(r.pid), util::printable(undone.error().message).c_str());
    else
      std::fprintf(stderr, "%s: process %d: no report written: its counters were given back\n",
                   std::string(kBlocksReportCommand).c_str(), int(r.pid));
}

int report_block_files(const BlocksReportOptions& o, std::vector<ResetProcess>* resets) {
  if (o.files.empty() && !o.pid)
    return fail(kBlocksReportCommand, "", "no block file given (libcovkit-blocks writes covkit-blocks.PID at exit)");
  if (auto status = refuse_missing_paths(kBlocksReportCommand, o.files)) return *status;
  if (o.no_stop && !o.pid) return fail(kBlocksReportCommand, "", "--no-stop reads a process: give --pid PID");
  if (o.children && !o.pid)
    return fail(kBlocksReportCommand, "", "--children reads a process's descendants: give --pid PID");
  if (o.reset && !o.pid) return fail(kBlocksReportCommand, "", "--reset zeroes a process's counters: give --pid PID");
  if (o.reset && o.no_stop)
    return fail(kBlocksReportCommand, "",
                "--reset needs the process stopped (what runs between the read and the reset would be lost): "
                "not with --no-stop");
  blocks::BlockCoverageOptions bo;
  bo.source_root = o.report.root;
  Expected<blocks::BlockCoverage> cov = Error("");
  if (o.pid) {
    auto from_process = live_block_file(pid_t(o.pid), !o.no_stop, resets);
    if (!from_process) return fail(kBlocksReportCommand, "", from_process.error());
    std::vector<blocks::NamedBlockFile> all{std::move(*from_process)};
    // A descendant that exited since it was listed, or runs a program
    // without inline counters (it exec'd), is said and left out: the
    // others are still worth a report.
    if (o.children)
      for (pid_t child : live::descendants(pid_t(o.pid))) {
        auto from_child = live_block_file(child, !o.no_stop, resets);
        if (from_child) all.push_back(std::move(*from_child));
        else if (!o.report.quiet)
          std::fprintf(stderr, "%s: warning: %s: left out\n", std::string(kBlocksReportCommand).c_str(),
                       util::printable(from_child.error().message).c_str());
      }
    // Files given too (earlier runs) add up with the process.
    for (const std::string& path : o.files) {
      auto data = util::read_input_file(path);
      if (!data) return fail(kBlocksReportCommand, path, data.error());
      util::note_data_file(path, *data);
      auto file = blocks::parse_block_file(data->text());
      if (!file) return fail(kBlocksReportCommand, path, file.error());
      all.push_back({path, std::move(*file)});
    }
    cov = blocks::block_coverage_of(all, bo);
  } else {
    cov = blocks::load_block_coverage(o.files, bo);
  }
  if (!cov) return fail(kBlocksReportCommand, "", cov.error());
  if (!o.report.quiet) {
    for (const std::string& w : cov->warnings)
      std::fprintf(stderr, "%s: warning: %s\n", std::string(kBlocksReportCommand).c_str(), util::printable(w).c_str());
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
  app.add_option("--pid", o.pid, "Read the inline counters (inline-8bit-counters / inline-bool-flag + pc-table) of "
                                 "this running process")
      ->check(CLI::PositiveNumber)
      ->type_name("PID");
  app.add_flag("--no-stop", o.no_stop, "With --pid: read without stopping its threads (counts may be mid-update)");
  app.add_flag("--children", o.children,
               "With --pid: read its descendant processes too (forked workers), one after the other, and add "
               "their counts up");
  app.add_flag("--reset", o.reset,
               "With --pid: zero the counters in the same stop, after the read (given back if the report cannot "
               "be written): the next read counts what ran since");
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
  std::vector<ResetProcess> resets;
  const int status =
      run_guarded(kBlocksReportCommand, [&] { return report_block_files(o, o.reset ? &resets : nullptr); });
  // 0: written; 2: written, a gate failed. Otherwise nothing (or not all)
  // was written: what the reset took goes back.
  if (status != 0 && status != 2) undo_resets(resets);
  return status;
}

constexpr std::string_view kBlocksDumpCommand = "covkit blocks dump";

int run_blocks_dump(int argc, char** argv) {
  CLI::App app{"Prints a block trace as text: the sequence of basic blocks a program built\n"
               "with -fsanitize-coverage=trace-pc or trace-pc-guard ran, as libcovkit-blocks\n"
               "recorded it when run with COVKIT_BLOCKS_TRACE=SIZE (bytes, k/M/G; 4 bytes an\n"
               "event; events past the bound are counted, not kept). The first line says how\n"
               "many events were kept and how many dropped; then a line per run of one\n"
               "block: the index of its first event, the module, the block's address in the\n"
               "module's file, its function+offset and source line (symbols and DWARF), and\n"
               "xN when it ran N times in a row. Threads' events interleave in the order\n"
               "they were recorded. The inline counters (no hook) have no trace.\n",
               std::string(kBlocksDumpCommand)};
  std::string input, out;
  bool addresses = false;
  add_output_file_option(app, out, "the text", "standard output");
  app.add_option("TRACE", input,
                 "The block trace (covkit-blocks.PID" CKB_TRACE_SUFFIX "), or its block file (the trace beside it is read)")
      ->required();
  app.add_flag("--addresses", addresses, "Addresses only: no module's symbols or lines are read");
  app.footer("Exit status: 0; 1 when the trace cannot be read (one line on stderr) or the text\n"
             "cannot be written.\n"
             "\n"
             "Examples:\n"
             "  COVKIT_BLOCKS_TRACE=64M ./prog      (built with trace-pc, -lcovkit-blocks)\n"
             "  covkit blocks dump covkit-blocks.1234.trace | less\n"
             "  covkit blocks dump covkit-blocks.1234 --addresses -o seq.txt");
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  return run_guarded(kBlocksDumpCommand, [&] {
    std::string path = input;
    auto data = util::read_input_file(path);
    if (data && blocks::looks_like_block_file(data->bytes())) {
      path = input + CKB_TRACE_SUFFIX;
      data = util::read_input_file(path);
      if (!data && data.error().errno_value == ENOENT)
        return fail(kBlocksDumpCommand, input,
                    "a block file without a block trace beside it (run with " CKB_TRACE_ENV "=SIZE to record one)");
    }
    if (!data) return fail(kBlocksDumpCommand, path, data.error());
    util::note_data_file(path, *data);
    auto trace = blocks::parse_block_trace(data->bytes());
    if (!trace) return fail(kBlocksDumpCommand, path, trace.error());
    auto output = TextOutput::open(kBlocksDumpCommand, out);
    if (!output) return 1;
    std::vector<std::string> warnings;
    blocks::BlockTraceTextOptions options;
    options.addresses_only = addresses;
    blocks::write_block_trace_text(*trace, options, [&](std::string_view piece) { output->write(piece); }, warnings);
    for (const std::string& w : warnings)
      std::fprintf(stderr, "%s: warning: %s\n", std::string(kBlocksDumpCommand).c_str(), util::printable(w).c_str());
    if (trace->dropped_past || trace->dropped_lost)
      std::fprintf(stderr, "%s: %s: %llu event(s) dropped (%llu past the bound of %llu, %llu without a block id)\n",
                   std::string(kBlocksDumpCommand).c_str(), util::printable(path).c_str(),
                   (unsigned long long)(trace->dropped_past + trace->dropped_lost),
                   (unsigned long long)trace->dropped_past, (unsigned long long)trace->bound,
                   (unsigned long long)trace->dropped_lost);
    return output->commit() ? 0 : 1;
  });
}

}  // namespace

int run_blocks_command(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "report") == 0) return run_blocks_report(argc - 1, argv + 1);
  if (argc >= 2 && std::strcmp(argv[1], "dump") == 0) return run_blocks_dump(argc - 1, argv + 1);
  CLI::App app{kBlocksDescription, "covkit blocks"};
  app.footer("Each subcommand has its own --help; the manual is docs/covkit-blocks.md.");
  app.require_subcommand(1);
  app.add_subcommand("report", "Coverage of the sources from block files, as covkit report writes it")
      ->prefix_command();
  app.add_subcommand("dump", "The sequence of blocks a run recorded (its block trace), as text")->prefix_command();
  if (auto status = refuse_missing_subcommand(app, argc, argv)) return *status;
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  return 0;
}

}  // namespace covkit::cli
