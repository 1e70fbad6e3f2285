#pragma once

namespace covkit::cli {

// `covkit trace SUBCOMMAND ...`: argv[0] is "trace".
int run_trace_command(int argc, char** argv);

// The subcommands; argv[0] is the subcommand's name.
int run_trace_record(int argc, char** argv);    // cli/trace_record_command.cc
int run_trace_report(int argc, char** argv);    // cli/trace_report_command.cc
int run_trace_graph(int argc, char** argv);     // cli/trace_graph_command.cc
int run_trace_timeline(int argc, char** argv);  // cli/trace_timeline_command.cc
int run_trace_replay(int argc, char** argv);    // cli/trace_replay_command.cc
int run_trace_dump(int argc, char** argv);      // cli/trace_dump_command.cc
int run_trace_attach(int argc, char** argv);    // cli/trace_attach_command.cc

}  // namespace covkit::cli
