#pragma once
// `covkit trace report --json`: functions, edges, max_depth, deepest_chain,
// and with the view's options threads, tree and callers
// (docs/covkit-trace.md).
#include <string>

#include "trace/call_profile.h"
#include "trace/profile_view.h"

namespace covkit::trace {

// Indented JSON, with a final newline.
std::string profile_json(const CallProfile& profile, const ProfileView& view);

}  // namespace covkit::trace
