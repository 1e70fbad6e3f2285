#pragma once
// `covkit doctor`'s whole examination and its two renderings: text for a
// person (grouped by area, each line with what it enables and how to get it
// when it is missing) and JSON for scripts.
#include <string>
#include <vector>

#include "doctor/finding.h"
#include "doctor/machine_view.h"

namespace covkit::doctor {

struct Examination {
  std::string kernel;   // "Linux 6.1.0-28-amd64"
  std::string machine;  // "x86_64, 2 CPUs, AuthenticAMD"
  std::vector<Finding> findings;
};

// Every check; compilers are looked for on `path` (a PATH value) and tried
// in `scratch`.
Examination examine(const MachineView& machine, const std::string& path, const std::string& scratch);

std::string render_text(const Examination& e, const std::string& covkit_version);
std::string render_json(const Examination& e, const std::string& covkit_version);

}  // namespace covkit::doctor
