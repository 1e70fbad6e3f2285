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

// Opens the document up to "files": [; the rest of the members follow the files.
void begin_json_document(JsonWriter& w, const model::GcovSession& session);
void end_json_document(JsonWriter& w, const model::GcovSession& session, const std::string& data_file);

}  // namespace covkit::report
