#pragma once
// The contents of a .gcda ("data") file: the counters a run of the program
// wrote, record by record, in file order. Records are kept raw so that the
// model can apply gcov's rules (checksum and length checks) and so that a
// writer can reproduce the file.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/gcov_version.h"
#include "format/parse_error.h"

namespace covkit::format {

struct DataRecord {
  enum class Kind { kSummary, kFunction, kCounters, kOther };
  Kind kind = Kind::kOther;
  uint32_t tag = 0;
  uint32_t length = 0;  // the raw length field (bytes or words by version; may be "negative")
  size_t offset = 0;    // byte offset of the tag in the file

  // kSummary
  uint32_t runs = 0;
  uint32_t sum_max = 0;
  // kFunction: `placeholder` when the length is 0; `has_ids` when complete.
  bool placeholder = false;
  bool has_ids = false;
  uint32_t ident = 0, lineno_checksum = 0, cfg_checksum = 0;
  // kCounters (any counter kind; arcs are tag kTagArcCounters): `all_zero`
  // records carry no payload (GCC >= 11 writes them with a negative length).
  uint32_t num_counters = 0;
  bool all_zero = false;
  std::vector<int64_t> counters;  // empty when all_zero
  // The file ends inside this record (`DataFile::error` says where). gcov
  // reads on regardless: a word or counter it cannot read whole is 0, a
  // missing length word is 0. The record holds what gcov sees that way; of
  // decoded counters, `counters` holds those present and `counters_missing`
  // how many more the length promises (0 each to gcov).
  bool cut_short = false;
  uint32_t counters_missing = 0;
  // kOther: payload kept so the file can be rewritten as it was.
  std::vector<uint32_t> words;
};

struct DataFile {
  GcovVersion version;
  bool swapped = false;
  uint32_t stamp = 0;
  uint32_t checksum = 0;  // GCC >= 12 only
  std::vector<DataRecord> records;
  bool terminated = true;  // ends with a zero word, as libgcov writes it
  // Bytes read: through the zero word (or to where the body broke off). A
  // file inside a longer stream (covkit live unpack) ends there.
  size_t bytes_read = 0;
  std::optional<ParseError> error;  // corrupt body: `records` holds what came before
};

}  // namespace covkit::format
