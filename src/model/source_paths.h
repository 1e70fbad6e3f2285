#pragma once
// Where a source file named in a notes file really is, and how reports name
// it. Notes files record names relative to the compiler's working directory;
// builds move between machines and containers, so prefixes can be rewritten
// (--path-map OLD=NEW, applied in order, first match wins).
#include <string>
#include <utility>
#include <vector>

#include "util/expected.h"

namespace covkit::model {

struct SourcePaths {
  std::string absolute;  // after --path-map
  std::string display;   // relative to the root when inside it, else absolute
};

class SourcePathRules {
 public:
  // `root` is made absolute (a relative one against the working directory
  // as $PWD names it, when it does: see logical_current_dir in the .cc);
  // `source_prefix` is removed from displayed names.
  SourcePathRules(std::string root, std::string source_prefix, std::vector<std::pair<std::string, std::string>> maps);

  SourcePaths resolve(const std::string& recorded, const std::string& compile_dir) const;
  // For names that are already absolute (tracefiles): mapping and display only.
  SourcePaths resolve_absolute(const std::string& absolute) const;
  const std::string& root() const { return root_; }

 private:
  std::string root_;
  std::string physical_root_;  // the root with links resolved, when that differs ("" otherwise)
  std::string source_prefix_;
  std::vector<std::pair<std::string, std::string>> maps_;
};

// Splits "OLD=NEW" at the first '='; an error when there is none or OLD is empty.
Expected<std::pair<std::string, std::string>> parse_path_map(const std::string& spec);

}  // namespace covkit::model
