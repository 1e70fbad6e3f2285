#pragma once
// Reader of the coverage mapping that clang's -fcoverage-mapping leaves in
// a binary or shared library: __llvm_covmap (per translation unit: a header
// and its source file names, zlib-compressed or not), __llvm_covfun (per
// function: name MD5, structural hash, the MD5 of its unit's file names,
// the encoded mapping) and __llvm_prf_names (the names). Mapping formats 4
// to 6 (clang 11 to 16; clang 13 to 16 write 6). Records of one function
// from several units (inline functions, templates) become one, a real
// mapping preferred to a "dummy" one (a unit that saw the function but did
// not use it), as llvm-cov keeps them.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "clang/coverage_mapping.h"
#include "util/expected.h"

namespace covkit::clang {

struct BinaryMapping {
  bool has_mapping = false;   // false: no __llvm_covmap (not built with -fcoverage-mapping)
  unsigned format_version = 0;  // 4 to 6, as LLVM's documentation numbers them
  std::string build_id;
  std::vector<FunctionMapping> functions;
};

class NameTableCache;

// The mapping of an ELF file's bytes. `names`: decoded names shared with
// other files (profile_names.h).
Expected<BinaryMapping> read_coverage_mapping(std::span<const uint8_t> elf_bytes, NameTableCache* names = nullptr);

// Whether the ELF file has a __llvm_covmap section (a cheap look: the
// section headers only), for finding instrumented binaries in a tree.
bool has_coverage_mapping(std::span<const uint8_t> elf_bytes);

// A binary's mapping read as far as its function records, each function's
// regions still encoded: a report of programs that share sources decodes a
// function they all hold once (decode_function), not once per program.
// The bytes it was read from must outlive it.
class NameTable;
struct EncodedFunction {
  std::string_view name;  // PGO name, in its index's `names`
  uint64_t name_ref = 0;  // name_ref(name): the record's key to its name
  uint64_t hash = 0;
  std::span<const uint8_t> mapping;
  uint64_t mapping_offset = 0;  // in its file, for errors
  std::shared_ptr<const std::vector<std::string>> unit_files;  // its translation unit's file names
};
struct MappingIndex {
  bool has_mapping = false;
  unsigned format_version = 0;
  std::string build_id;
  unsigned clang_major = 0;  // of the compiler that built it (.comment), 0 unknown
  bool big_endian = false;
  std::shared_ptr<const NameTable> names;  // what the functions' names point into
  std::vector<EncodedFunction> functions;
  std::vector<uint8_t> joined_covfun;  // several __llvm_covfun sections, joined (`mapping`s point in here)
};
Expected<MappingIndex> index_coverage_mapping(std::span<const uint8_t> elf_bytes, NameTableCache* names = nullptr);
// Whether two records decode to the same function (in the same byte
// order): the same name, hash and mapping bytes, and the same names for the
// files the mapping refers to (their units may list others, or another
// compile directory).
bool decode_alike(const EncodedFunction& a, const EncodedFunction& b);
// Function `f` of `index` decoded, or where its mapping is damaged.
Expected<FunctionMapping> decode_function(const MappingIndex& index, const EncodedFunction& f);
// The same into `out`, whose vectors' room is reused (decoding thousands
// of functions one after the other, each counted and then dropped).
Expected<void> decode_function(const MappingIndex& index, const EncodedFunction& f, FunctionMapping& out);

// From the three sections' contents (tests and the fuzzer start here).
// `offsets` of each section in its file, for error messages.
struct MappingSections {
  std::span<const uint8_t> covmap, covfun, names;
  uint64_t covmap_offset = 0, covfun_offset = 0, names_offset = 0;
  bool big_endian = false;
};
Expected<BinaryMapping> decode_coverage_mapping(const MappingSections& s, NameTableCache* names = nullptr);

}  // namespace covkit::clang
