#pragma once

namespace covkit::cli {

// `covkit gprof [OPTIONS] PROG [GMON...]`: argv[0] is "gprof".
int run_gprof_command(int argc, char** argv);

}  // namespace covkit::cli
