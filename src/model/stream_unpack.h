#pragma once
// `covkit live unpack`: a freestanding target's coverage stream turned into
// the .gcda files libgcov would have written for the same runs, added to
// those already in the output directory, written all or nothing.
//
// A dump is one walk of the target over its objects; a new dump starts
// where a file name comes again. Each dump counts as one run of the
// program, as libgcov counts one at exit: the stream carries no object
// summary, so each file gets the one libgcov writes (runs 1, sum_max the
// largest arc counter of the whole dump); dumps of the same file, and a file
// already in the output directory, are then added as libgcov adds a run to
// an existing file (model/data_merge: counters add, runs and sum_max add).
#include <cstddef>
#include <string>
#include <vector>

#include "format/gcov_stream.h"
#include "util/expected.h"

namespace covkit::model {

struct UnpackOptions {
  unsigned strip = 0;  // leading directories dropped from each name (GCOV_PREFIX_STRIP)
};

struct UnpackedFile {
  std::string relative;     // below the output directory
  std::string bytes;        // the .gcda as libgcov would write it
  size_t dumps = 0;         // how many of the stream's dumps it holds
  bool added_to_existing = false;
};

struct UnpackResult {
  std::vector<UnpackedFile> files;  // by relative path
  size_t dumps = 0;
};

// Computes every output file; nothing is written. Errors about the stream
// carry the offset of the entry at fault (a stream byte) and name its file;
// errors about a file in `out` name it and carry no offset.
Expected<UnpackResult> unpack_stream(const format::GcovStream& stream, const std::string& out,
                                     const UnpackOptions& options);

// unpack_stream, then writes the files into `out` all or nothing
// (util::StagedTree): killed at any moment, `out` holds its old files or
// the new ones; its other files stay as they are.
Expected<UnpackResult> write_unpacked_stream(const format::GcovStream& stream, const std::string& out,
                                             const UnpackOptions& options);

}  // namespace covkit::model
