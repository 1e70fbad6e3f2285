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
  // Objects whose data files were found in several places, none of them
  // named and none beside the notes: one line for all of them. Nothing can
  // be reported right without the user's choice.
  std::string conflict;
};

// Which data files of one object to use when several pair with it.
enum class SeveralData {
  named,  // the named ones (a .gcda given, or found under a PATH holding no .gcno), else the one beside the notes
  add,    // all of them, added up (runs kept apart)
};

// Walks `roots` (directories, or single .gcda/.gcno files) and the extra
// notes directories. A data file under a root that holds no notes of its
// own and that pairs with none found (`live dump -o DIR`, a GCOV_PREFIX
// tree) pairs with the notes file at the path it records: DIR/<path>.gcda
// belongs to /<path>.gcno.
//
// Several data files may pair with one notes file: earlier snapshots kept
// inside the build tree, a merged tree beside the build tree's own files,
// runs kept apart. They are never added up unless asked (SeveralData::add,
// or each named as a root of its own): the ones named win and the rest are
// left out with one warning saying where they were; with none named, the
// one beside the notes file wins; with none beside it either, `conflict`
// says so.
ObjectSearch find_objects(const std::vector<std::string>& roots, const std::vector<std::string>& notes_dirs,
                          SeveralData several = SeveralData::named);

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
