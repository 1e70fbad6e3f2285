// `covkit sample import-perf FILE [--binary PATH]... [-o DIR]`: perf's branch
// stacks (src/sample/perf_script_import) saved as a sample recording.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/sample_command.h"
#include "cli/version.h"
#include "format/sample_recording_writer.h"
#include "sample/perf_script_import.h"
#include "sample/sample_recorder.h"
#include "sample/sample_recording_dir.h"
#include "util/file_io.h"
#include "util/printable.h"

namespace covkit::cli {

int run_sample_import_perf(int argc, char** argv) {
  constexpr std::string_view kSampleImportPerfCommand = "covkit sample import-perf";
  CLI::App app{"Saves the branch stacks of a perf recording as a sample recording (mode perf),\n"
               "for the same analysis as covkit sample record's. FILE is the text of\n"
               "\n"
               "  perf record -b -- ./prog && perf script -F pid,tid,ip,brstack > FILE\n"
               "\n"
               "(\"-\" reads standard input). perf prints absolute addresses and no load\n"
               "addresses: the mappings are the executable segments of each --binary at its\n"
               "link-time address, right for non-PIE programs (build with -no-pie).",
               std::string(kSampleImportPerfCommand)};
  std::string file, dir = "covkit-sample.data";
  std::vector<std::string> binaries;
  app.add_option("FILE", file, "perf script output")->required();
  app.add_option("--binary", binaries, "An ELF file the samples ran in (repeatable)")->type_name("PATH");
  app.add_option("-o,--output", dir, "Recording directory [default: ./covkit-sample.data]")->type_name("DIR");
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  return run_guarded(kSampleImportPerfCommand, [&] {
    std::string text;
    if (file == "-") {
      char buf[65536];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) text.append(buf, n);
    } else {
      auto data = util::read_file(file);
      if (!data) return fail(kSampleImportPerfCommand, file, data.error());
      text = data->text();
    }
    auto rec = sample::import_perf_script(text, binaries);
    if (!rec) return fail(kSampleImportPerfCommand, file, rec.error());
    rec->command = {"perf-import", file};
    rec->covkit_version = kVersion;
    auto target = sample::prepare_sample_dir(dir, "import-perf " + file);
    if (!target) return fail(kSampleImportPerfCommand, dir, target.error());
    if (auto ok = format::write_sample_recording(target->path(), *rec); !ok) return fail(kSampleImportPerfCommand, dir, ok.error());
    std::fprintf(stderr, "%s: %s\n", std::string(kSampleImportPerfCommand).c_str(),
                 sample::sample_summary_line(*rec, target->path()).c_str());
    return 0;
  });
}

}  // namespace covkit::cli
