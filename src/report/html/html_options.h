#pragma once
#include <cstdint>
#include <string>

namespace covkit::model {
class SourceTexts;
}

namespace covkit::report::html {

struct HtmlOptions {
  std::string title = "covkit coverage";
  // Show LineCov.instances (per template instantiation counts) under a line.
  bool show_instances = false;
  // Seconds since the epoch shown as the generation date; 0 leaves the date
  // out, so that two runs over the same data give identical pages.
  int64_t timestamp = 0;
  std::string version;  // shown as is in the header when set, e.g. "covkit 0.1.0"
  // Counts from sampling (covkit sample report): how many samples or hits
  // saw a line or function, not how often it ran. Labelled as lower bounds
  // ("Calls (at least)", "≥ 9") so that 9 is not read as 9 calls.
  bool counts_are_lower_bounds = false;
  // Threads rendering the pages (report -j); 0: every core.
  unsigned threads = 0;
  // The sources as the exclusion markers read them (each read once); a page
  // whose source is not there reads it.
  const model::SourceTexts* sources = nullptr;
};

}  // namespace covkit::report::html
