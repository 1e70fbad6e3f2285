// `covkit trace dump [DIR] [--raw]`: options, the dump (src/trace/trace_dump)
// streamed to stdout, the damage on stderr, an exit status.
#include "cli/cli11.h"
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <string_view>

#include "cli/command_line.h"
#include "cli/output_options.h"
#include "cli/trace_command.h"
#include "cli/trace_warnings.h"
#include "format/trace_reader.h"
#include "trace/module_check.h"
#include "trace/symbolizer.h"
#include "trace/trace_dump.h"
#include "util/fast_allocator.h"

namespace covkit::cli {

namespace {

constexpr std::string_view kTraceDumpCommand = "covkit trace dump";

constexpr const char* kTraceDumpDescription =
    "Shows what a trace directory holds, to debug the format\n"
    "(docs/trace-format.md).\n"
    "\n"
    "With --raw, every file as it is on disk, image by image: each line of\n"
    "IMAGE.meta, and for each IMAGE-TID.ckt its header fields and every record:\n"
    "offset, size, kind (enter, exit, define, lost, stack, end, sync), lead byte,\n"
    "the time delta as written, the counter it makes, and its fields (function\n"
    "ids as written, define addresses, lost counts, stack frames, sync counter\n"
    "and offset), then where the data ends.\n"
    "\n"
    "Without it, every thread's events decoded: time (CLOCK_MONOTONIC seconds),\n"
    "tid, enter/exit/lost, depth and function name.\n"
    "\n"
    "A damaged file is shown up to the damage, then one line on stderr names\n"
    "the file and the byte offset; the dump goes on with the next file.\n";

constexpr const char* kTraceDumpFooter =
    "Exit status: 0; 1 when DIR cannot be read or holds no trace, or when any\n"
    "file is damaged (after the dump).\n"
    "\n"
    "Examples:\n"
    "  covkit trace dump --raw                     ./covkit-trace.data\n"
    "  covkit trace dump /tmp/t | grep -w exit\n"
    "  covkit trace dump --raw /tmp/t | less";

struct TraceDumpOptions {
  std::string dir = "covkit-trace.data";
  std::string out;  // -o
  bool raw = false;
};

int dump(const TraceDumpOptions& o) {
  auto output = TextOutput::open(kTraceDumpCommand, o.out);
  if (!output) return 1;
  auto to_stdout = [&](std::string_view piece) { output->write(piece); };
  trace::DumpStats stats;
  size_t unread = 0;  // files not read (the warnings said which)
  if (o.raw) {
    auto done = trace::dump_trace_raw(o.dir, to_stdout);
    if (!done) return fail(kTraceDumpCommand, o.dir, done.error());
    stats = std::move(*done);
  } else {
    auto set = format::read_trace_dir(o.dir);
    if (!set) return fail(kTraceDumpCommand, o.dir, set.error());
    print_trace_warnings("dump", set->warnings);
    print_trace_warnings("dump", trace::changed_module_warnings(*set));
    unread = set->unread_files;
    trace::Symbolizer symbols;
    trace::SymbolLookup lookup = [&](const format::TraceProcess& p, uint64_t address,
                                     uint64_t when) -> const trace::SymbolInfo& { return symbols.lookup(p, address, when); };
    stats = trace::dump_trace_events(*set, lookup, to_stdout);
  }
  if (!output->commit()) return 1;
  for (const std::string& d : stats.damage) fail(kTraceDumpCommand, "", d);
  return stats.damage.empty() && unread == 0 ? 0 : 1;
}

}  // namespace

int run_trace_dump(int argc, char** argv) {
  CLI::App app{kTraceDumpDescription, std::string(kTraceDumpCommand)};
  app.footer(kTraceDumpFooter);
  app.get_formatter()->column_width(30);
  TraceDumpOptions o;
  app.add_option("DIR", o.dir, "Trace directory [default: ./covkit-trace.data]")->type_name("");
  add_output_file_option(app, o.out, "the dump", "standard output");
  app.add_flag("--raw", o.raw, "Every record of every file as it is on disk, with offsets and raw fields");
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  util::use_fast_allocator();  // reads much, allocates much: mimalloc
  return run_guarded(kTraceDumpCommand, [&] { return dump(o); });
}

}  // namespace covkit::cli
