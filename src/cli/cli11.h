#pragma once
// CLI11, without the start-up cost of <iostream>.
//
// GCC 12's <iostream> puts a static std::ios_base::Init into every file that
// includes it, and CLI/CLI.hpp includes it: so every covkit command,
// `covkit gcov` and `--version` too, built std::cin, cout, cerr, clog, their
// wide twins and the classic locale's 28 facets before main() — an eighth
// of the instructions of `covkit gcov` on a one-file program, and pages of
// libstdc++ touched for nothing (bench/startup_vs_gcov.py). Here <iostream>'s
// declarations are made without that object (libstdc++'s own guard stops
// <iostream> from adding it later), and use_standard_streams() builds the
// streams before their first use: parse_command_line calls it, since CLI11
// writes --help, its warnings and exit messages to std::cout and std::cerr.
// Code of covkit that writes to a standard stream calls it first (none does
// but checked_stdout, which asks whether they were built).
#include <version>  // which standard library

#if defined(__GLIBCXX__) && !defined(_GLIBCXX_IOSTREAM)
#define _GLIBCXX_IOSTREAM 1
#include <istream>
#include <ostream>
namespace std {
extern istream cin;
extern ostream cout;
extern ostream cerr;
extern ostream clog;
extern wistream wcin;
extern wostream wcout;
extern wostream wcerr;
extern wostream wclog;
}  // namespace std
#endif

#include <CLI/CLI.hpp>

namespace covkit::cli {

// Builds the standard streams (once; later calls do nothing).
void use_standard_streams();
// Whether use_standard_streams() ran.
bool standard_streams_built();

}  // namespace covkit::cli
