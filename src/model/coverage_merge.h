#pragma once
// Adding coverage together, by lcov's rules: a line's count is the sum of its
// counts; branches of a line add up by position (instantiations of a template
// list their branches in the same order); functions add up by (mangled) name.
#include "model/project_coverage.h"

namespace covkit::model {

// Adds `from` into `into` (same source file).
void merge_file(FileCov& into, FileCov&& from);
// Appends `from`'s lines, functions and regions after `into`'s, not yet
// merged: normalize(into) adds them up, as merge_file would have.
void append_file(FileCov& into, FileCov&& from);
// Adds every file of `from` into `into`, keeping `into.files` sorted by path;
// the files are normalized on up to `threads` threads.
void merge_project(ProjectCov& into, ProjectCov&& from, unsigned threads = 1);
// Sorts lines and functions and merges duplicates, after a reader or builder
// appended them in any order.
void normalize(FileCov& f);
// Sorts files by path and merges files with the same path; the files are
// normalized on up to `threads` threads.
void normalize(ProjectCov& p, unsigned threads = 1);
// Drops the sources that hold no line, as lcov does when it reads a
// tracefile (functions and all): from gcov's counts such a source says next
// to nothing (GCC 12's <iostream> has neither lines nor functions; to clang,
// a header whose only code is implicit members has functions without
// lines). After normalize(): another object's record may give it lines.
// Not for models whose functions stand without lines (sampling a binary
// without DWARF). Tracefiles read back (report -a, merge) follow lcov's own
// rule instead, per tracefile and on line counts (model/load_coverage_file.cc).
void drop_files_without_lines(ProjectCov& p);

}  // namespace covkit::model
