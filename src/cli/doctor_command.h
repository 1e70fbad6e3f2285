#pragma once

namespace covkit::cli {

// `covkit doctor [--json] [--root DIR]`: what works on this machine and how
// to enable the rest (doctor/); argv[0] is "doctor".
int run_doctor_command(int argc, char** argv);

}  // namespace covkit::cli
