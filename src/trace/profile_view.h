#pragma once
// What `covkit trace report` shows of a CallProfile, whatever the format:
// the order and cut of the flat profile, the functions --callers names.
#include <cstddef>
#include <string>
#include <vector>

#include "trace/call_profile.h"

namespace covkit::trace {

struct ProfileView {
  std::string sort = "inclusive";  // calls, inclusive, exclusive or name
  size_t limit = 0;                // first N functions of a flat profile (0: all)
  bool threads = false;            // a flat profile per thread too
  bool tree = false;               // the call tree of each thread
  std::vector<std::string> callers;  // functions whose callers and callees are shown
};

// `functions` in the view's order, cut to its limit.
std::vector<FunctionStats> shown_functions(std::vector<FunctionStats> functions, const ProfileView& view);

// Functions matching FUNC: the exact name, else the name before its
// parameter list ("fib" for "fib(int)"), else names containing FUNC.
std::vector<std::string> match_functions(const CallProfile& profile, const std::string& func);

}  // namespace covkit::trace
