#pragma once

namespace covkit::cli {

// `covkit report`: argv[0] is "report".
int run_report_command(int argc, char** argv);

}  // namespace covkit::cli
