#pragma once
// Adding .gcda trees (`covkit merge -o OUT DIR...`: one tree per test run,
// GCOV_PREFIX directories, build trees): files are matched by their path
// below each tree and added as libgcov adds runs (model/data_merge); a file
// found in only one tree is taken as it is, byte for byte.
#include <string>
#include <utility>
#include <vector>

#include "util/expected.h"

namespace covkit::model {

struct MergedDataFile {
  std::string relative;  // below each tree, with '/'
  std::string bytes;     // as libgcov would write it
};

// Everything is read and added before anything could be written, so an
// error in any file (one line naming it: "FILE: what") leaves no output.
Expected<std::vector<MergedDataFile>> merge_data_trees(const std::vector<std::string>& trees);

// Merges the trees and writes the sum to `out` all or nothing (a tree of its
// own swapped in with one rename; util/staged_tree): killed at any moment,
// `out` holds its old contents or the new ones. `out` may be one of `trees`.
Expected<void> write_merged_data_trees(const std::vector<std::string>& trees, const std::string& out);

}  // namespace covkit::model
