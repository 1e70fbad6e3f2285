#pragma once

namespace covkit::cli {

// `covkit live unpack STREAM -o DIR`; argv[0] is "unpack".
int run_live_unpack(int argc, char** argv);

}  // namespace covkit::cli
