#pragma once
// Whether the files a trace's modules name are still the ones that were
// traced. Names are read offline from the files at the modules' paths: a
// program rebuilt since the recording (or a library upgraded) would name
// the recorded addresses with its own symbols, silently wrong. The runtime
// writes each module's build-id as it was mapped (.meta `buildid`), which
// is compared here with the file's.
#include <string>
#include <vector>

#include "format/trace_reader.h"

namespace covkit::trace {

// One warning per module file whose build-id is not the recorded one (or
// that has none now), naming the file. Modules recorded without a
// build-id, and files that are not there (named by address anyway), give
// none.
std::vector<std::string> changed_module_warnings(const format::TraceSet& set);

}  // namespace covkit::trace
