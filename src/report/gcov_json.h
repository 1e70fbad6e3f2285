#pragma once
// gcov's JSON intermediate format (format_version "1", GCC 9 to 13):
// one document per input with a "files" entry per source.
#include <string>

#include "model/gcov_session.h"
#include "report/json_writer.h"

namespace covkit::report {

struct JsonOptions {
  bool branches = false;  // -b: include branch arrays
};

// Writes the "files" entry for source `src` (after accumulate()).
void write_json_source(JsonWriter& w, model::GcovSession& session, uint32_t src, const JsonOptions& o);

// Opens the document: format_version, gcc_version, cwd, data_file, and "files": [.
void begin_json_document(JsonWriter& w, const model::GcovSession& session, const std::string& data_file);
void end_json_document(JsonWriter& w);

}  // namespace covkit::report
