#pragma once

namespace covkit::cli {

// `covkit blocks SUBCOMMAND ...`: argv[0] is "blocks".
int run_blocks_command(int argc, char** argv);

}  // namespace covkit::cli
