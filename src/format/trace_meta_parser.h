#pragma once
// The text half of a trace directory: `<pid>.meta` (docs/trace-format.md,
// "Process metadata"). Used by trace_reader; separate so tests can feed it text.
#include <string>
#include <string_view>
#include <vector>

#include "format/trace_reader.h"

namespace covkit::format {

enum class MetaStatus {
  kOk,           // metadata of format version 1 (damaged lines became warnings)
  kEmpty,        // not even the first line yet (a process that is starting)
  kNotMeta,      // the first line is not `covkit-trace N`
  kUnsupported,  // another format version
};

// Fills `process` (everything but its threads) from the text of a .meta
// file. Lines that cannot be understood become warnings naming `file` and
// the line's byte offset; unknown keys are ignored, as is a last line without
// '\n' (still being written). Thread names go to `thread_names` (tid, name),
// last one wins.
MetaStatus parse_trace_meta(std::string_view text, const std::string& file, TraceProcess& process,
                            std::vector<std::pair<uint32_t, std::string>>& thread_names,
                            std::vector<std::string>& warnings);

}  // namespace covkit::format
