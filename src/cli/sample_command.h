#pragma once

namespace covkit::cli {

// `covkit sample SUBCOMMAND ...`: argv[0] is "sample".
int run_sample_command(int argc, char** argv);

// The subcommands; argv[0] is the subcommand's name.
int run_sample_record(int argc, char** argv);  // cli/sample_record_command.cc
int run_sample_dump(int argc, char** argv);    // cli/sample_dump_command.cc
int run_sample_import_perf(int argc, char** argv);  // cli/sample_import_perf_command.cc
int run_sample_report(int argc, char** argv);       // cli/sample_report_command.cc
int run_sample_compare(int argc, char** argv);      // cli/sample_compare_command.cc

}  // namespace covkit::cli
