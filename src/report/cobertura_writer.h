#pragma once
// Cobertura XML (coverage-04.dtd), the format GitLab merge-request diffs,
// Jenkins and Azure DevOps read. Laid out the way gcovr writes it (packages
// are directories, classes are files) so tools tuned to gcovr read ours alike.
#include <cstdint>
#include <string>
#include <string_view>

#include "model/project_coverage.h"
#include "report/text_pieces.h"

namespace covkit::report {

struct CoberturaOptions {
  std::string source_root;  // absolute directory that FileCov::path is relative to
  // --source-prefix, absolute: paths of sources outside the root are
  // relative to it, so it is a second <source> (consumers try each).
  std::string source_prefix;
  int64_t timestamp = 0;    // seconds since the epoch (the caller passes time(nullptr))
  std::string version;      // <coverage version=...>, e.g. "covkit 0.1.0"
};

std::string render_cobertura(const model::ProjectCov& project, const CoberturaOptions& options);
// The same text, handed to `emit` in pieces as it is made (a class at a time).
void stream_cobertura(const model::ProjectCov& project, const CoberturaOptions& options, const TextPieces& emit);


// A Cobertura rate: covered/total with at most 4 decimals ("0.8333", "1.0");
// an empty set is "1.0", and rounding never turns a partial rate into "1.0"
// or a non-zero one into "0.0".
std::string cobertura_rate(int64_t covered, int64_t total);

}  // namespace covkit::report
