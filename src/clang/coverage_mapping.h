#pragma once
// Clang's coverage mapping of one function, as -fcoverage-mapping stores it
// in a binary (docs/CoverageMappingFormat.rst in LLVM): the source files it
// touches (file ids: 0 is usually where it is defined, others are headers
// and macro expansions), counter expressions, and regions — source ranges
// with the counter (or expression) that counts them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace covkit::clang {

// A reference to a profile counter, to an expression over counters, or
// zero. Encoded as a LEB128 whose low two bits are the tag.
struct Counter {
  enum Kind : uint8_t { kZero = 0, kCounter = 1, kExpression = 2 };
  Kind kind = kZero;
  uint32_t id = 0;  // the counter's index, or the expression's

  bool is_zero() const { return kind == kZero; }
  friend bool operator==(const Counter&, const Counter&) = default;
};

struct CounterExpression {
  bool subtract = true;  // set by the tag of the counter that refers to it
  Counter lhs, rhs;
};

enum class RegionKind : uint8_t {
  kCode = 0,       // counted code
  kExpansion = 1,  // a macro's (or an #include'd body's) use: counted in the expanded file id
  kSkipped = 2,    // #if'ed out by the preprocessor: no code
  kGap = 3,        // between statements (braces, else): counts a line only when nothing else does
  kBranch = 4,     // a condition: true and false counts
};

struct MappingRegion {
  Counter count;
  Counter false_count;  // branch regions only
  uint32_t file_id = 0;
  uint32_t expanded_file_id = 0;  // expansion regions only
  uint32_t line_start = 0, column_start = 0, line_end = 0, column_end = 0;
  RegionKind kind = RegionKind::kCode;
};

struct FunctionMapping {
  std::string name;  // PGO name, as in the profile
  // name_ref(name) when the reader knew it (the profile's key to the
  // function); else computed when needed.
  std::optional<uint64_t> name_ref;
  uint64_t hash = 0;
  std::vector<std::string> filenames;  // per file id, absolute where the compile directory said
  std::vector<CounterExpression> expressions;
  std::vector<MappingRegion> regions;  // by file id, then as stored (sorted by start within a file id)
};

}  // namespace covkit::clang
