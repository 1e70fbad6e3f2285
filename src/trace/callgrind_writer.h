#pragma once
// A CallProfile in Callgrind's profile format (valgrind.org/docs/manual/
// cl-format.html), for KCachegrind/QCachegrind, callgrind_annotate and
// gprof2dot. One event, nanoseconds: each function has one self-cost line
// (its exclusive time, at its first source line) and, per callee, a `calls=`
// line followed by the inclusive time of those calls; readers add up
// inclusive times themselves. Positions are source lines (`positions:
// line`); the call site's line is unknown, so calls are placed at the
// caller's first line. File and function names are compressed ("fn=(3)").
#include <string>

#include "trace/call_profile.h"

namespace covkit::trace {

struct CallgrindOptions {
  std::string command;  // the `cmd:` line (the traced program), "" for none
};

std::string write_callgrind(const CallProfile& profile, const CallgrindOptions& options = {});

}  // namespace covkit::trace
