#pragma once
// The annotated-source (.gcov) view of one source file, identical to gcov's.
#include <functional>
#include <string>
#include <string_view>

#include "model/gcov_session.h"

namespace covkit::report {

struct TextOptions {
  bool all_blocks = false;     // -a
  bool branches = false;       // -b
  bool counts = false;         // -c: counts instead of percentages
  bool human = false;          // -H
  bool colors = false;         // -k
  bool hotness = false;        // -q
  bool verbose = false;        // -w
  bool unconditional = false;  // -u
  bool multiple_files = false;  // several inputs: no Graph/Data/Runs header
};

struct TextResult {
  std::string text;
  std::string messages;  // for stderr ("Cannot open source file ...")
};

// Renders source `src` of `session` (after accumulate()). Reads the source file.
TextResult render_gcov_text(model::GcovSession& session, uint32_t src, const TextOptions& o);
// The same, the text into `text` (emptied first; its capacity reused: one
// buffer per thread of a run saves a .gcov text's worth of fresh pages per
// source); returns the messages.
std::string render_gcov_text(model::GcovSession& session, uint32_t src, const TextOptions& o, std::string& text);

// Where a text goes as it is made, in pieces of some tens of KiB: a .gcov
// file written while its source is rendered needs a small buffer per
// thread, not the whole text (the fresh pages of the largest sources' texts
// were a sixth of the page faults of jsoncpp's runs).
using TextSink = std::function<void(std::string_view)>;
// The same, the text handed to `sink` piece by piece (`text` is the buffer:
// what it holds afterwards is unspecified; its size is kept so that the next
// source need not fill it again).
std::string render_gcov_text(model::GcovSession& session, uint32_t src, const TextOptions& o, std::string& text,
                             const TextSink& sink);

}  // namespace covkit::report
