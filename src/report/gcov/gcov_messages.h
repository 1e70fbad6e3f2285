#pragma once
// gcov's wording of what a session found wrong, byte for byte as gcov 11 and
// 12 print it on stderr. The one place that words session diagnostics the
// gcov way (`covkit gcov` prints them; `covkit report` shows some as warnings).
#include <string>

#include "model/session_diagnostics.h"

namespace covkit::report {

class GcovMessages {
 public:
  // The line(s) gcov prints for `d`, each ending in '\n'. Stateful: gcov
  // explains "source file is newer" once per run.
  std::string render(const model::Diagnostic& d);

 private:
  bool newer_notice_given_ = false;
};

}  // namespace covkit::report
