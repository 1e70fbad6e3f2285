#pragma once
// `covkit trace report`'s tables: the flat profile (per thread too), callers
// and callees, call trees, the maximum depth and the deepest call chain.
#include <string>

#include "trace/call_profile.h"
#include "trace/profile_view.h"

namespace covkit::trace {

// The whole report as text; `dir` names the trace in its first line.
std::string profile_text(const std::string& dir, const CallProfile& profile, const ProfileView& view);

// 1234 -> "1.23 us": three significant figures and a unit.
std::string format_duration(uint64_t ns);

// "main > fib(int) x11 > leaf": runs of one name shown once with a count.
std::string chain_text(const std::vector<std::string>& chain);

}  // namespace covkit::trace
