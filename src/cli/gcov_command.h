#pragma once
namespace covkit::cli {

// `covkit gcov ...`: argv[0] is "gcov". Returns the exit status.
int run_gcov_command(int argc, char** argv);

}  // namespace covkit::cli
