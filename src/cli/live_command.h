#pragma once

namespace covkit::cli {

// `covkit live SUBCOMMAND ...`: argv[0] is "live".
int run_live_command(int argc, char** argv);

// The subcommands; argv[0] is the subcommand's name.
int run_live_dump(int argc, char** argv);   // cli/live_dump_command.cc
int run_live_reset(int argc, char** argv);  // cli/live_reset_command.cc
int run_live_report(int argc, char** argv);  // cli/live_report_command.cc
int run_live_unpack(int argc, char** argv);  // cli/live_unpack_command.cc

}  // namespace covkit::cli
