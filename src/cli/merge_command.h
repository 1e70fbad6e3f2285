#pragma once

namespace covkit::cli {

// `covkit merge -o OUT IN...`: argv[0] is "merge". Adds .gcda trees (as
// gcov-tool merge does, for any number of trees) or lcov tracefiles and
// covkit JSON files. Returns the exit status (0, or 1 after a one-line error).
int run_merge_command(int argc, char** argv);

}  // namespace covkit::cli
