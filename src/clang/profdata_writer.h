#pragma once
// Writes merged counts as an indexed profile (.profdata) of version 7, the
// version llvm-profdata 13 and 14 write and every llvm-cov from 13 on
// reads: header, profile summary (the totals and the 16 default cutoffs,
// computed as llvm-profdata computes them), and the on-disk chained hash
// table keyed by MD5 of the function name. Value profiles are not kept
// (coverage does not use them): each record carries an empty one.
#include <string>

#include "clang/profile_counts.h"

namespace covkit::clang {

std::string write_profdata(const ProfileCounts& counts);

}  // namespace covkit::clang
