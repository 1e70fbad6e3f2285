#pragma once
// Finding the objects of a build: every .gcno (what was compiled) and the
// .gcda files that hold its counts. A data file usually sits beside its notes
// file, but GCOV_PREFIX/GCOV_PREFIX_STRIP runs, containers and CI artifacts
// put data files in another tree; those are paired with the notes file whose
// path shares the longest tail of directory names.
#include <memory>
#include <string>
#include <vector>

#include "format/gcda.h"

namespace covkit::format {

struct ObjectFiles {
  std::string notes;  // .gcno path
  std::string data;   // .gcda path; empty when the object never ran
  // Counts already in memory (a live snapshot of a running program): used
  // instead of reading `data`, which then only names them.
  std::shared_ptr<const DataFile> counts = nullptr;
};

struct ObjectSearch {
  std::vector<ObjectFiles> objects;  // sorted by notes, then data path
  std::vector<std::string> warnings;  // one line each, naming the file
  size_t unpaired_data = 0;           // .gcda files skipped for want of their .gcno
};

// Walks `roots` (directories, or single .gcda/.gcno files) and the extra
// notes directories. Several data files may pair with one notes file (runs
// kept apart); their counts add up downstream.
ObjectSearch find_objects(const std::vector<std::string>& roots, const std::vector<std::string>& notes_dirs);

// The subdirectories of `dir` (one level down) that look like build
// directories (CMakeCache.txt, build.ninja, meson-private, config.status),
// sorted: in a tree that holds no coverage data, build directories that were
// not built with --coverage.
std::vector<std::string> build_directories_below(const std::string& dir);

// Where the nearest .gcno files are when `searched` (a directory) holds
// none: the directories beside it that hold a .gcno file themselves or in a
// directory below them, by name ("covkit report src/" next to build/); when
// none does, those beside its parent, the parent left out since it holds
// `searched` ("covkit report src/lib" two levels from build/). Bounded, so that
// a search from / or $HOME stays short: at most kNotesSearchDepth levels
// below each, kNotesSearchEntries directory entries read in all (level by
// level across all of them, so a big tree beside it does not hide a build
// directory's shallow .gcno files); links to directories below them and
// hidden directories (.git) are not entered.
inline constexpr int kNotesSearchDepth = 6;
inline constexpr size_t kNotesSearchEntries = 20000;
std::vector<std::string> directories_with_notes_near(const std::string& searched);

// Lexically normalized absolute path ("." and ".." folded, no file system
// access), relative paths taken against `base` (or the working directory).
std::string absolute_path(const std::string& path, const std::string& base = {});

}  // namespace covkit::format
