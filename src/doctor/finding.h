#pragma once
// What `covkit doctor` finds: one line per fact of the machine, with what it
// enables in covkit and, when it is missing, how to get it.
#include <string>
#include <vector>

namespace covkit::doctor {

enum class Verdict {
  kOk,       // works
  kLimited,  // works in part (children only, slower, up to a limit)
  kMissing,  // does not work here
  kInfo,     // a value worth knowing, neither good nor bad
};

struct Finding {
  std::string area;     // "compilers", "ptrace", "perf events", ...
  Verdict verdict = Verdict::kInfo;
  std::string what;     // "gcc-12 12.2.0"
  std::string detail;   // what was seen, and what it means
  std::string enables;  // covkit's commands it serves: "live dump/reset/report PID, trace attach"
  std::string remedy;   // how to enable it ("" when there is nothing to do)
};

const char* verdict_word(Verdict v);  // "ok", "limited", "missing", "info"

}  // namespace covkit::doctor
