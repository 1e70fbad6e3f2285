#pragma once
// Function names as clang's profiles and binaries store them (a raw
// profile's names, a binary's __llvm_prf_names section): a sequence of
// blocks, each [uncompressed size: LEB128][compressed size: LEB128][bytes],
// the bytes zlib-compressed unless the compressed size is 0, holding names
// separated by '\x01'; zero bytes pad between blocks. Records refer to a
// name by its NameRef, the low 64 bits of its MD5 (util::md5_low64).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/expected.h"

namespace covkit::clang {

// The names of a names blob, in order. `base` is the blob's offset in its
// file, for the error's byte offset.
Expected<std::vector<std::string>> decode_profile_names(std::span<const uint8_t> blob, uint64_t base = 0);

// NameRef -> name.
class NameTable {
 public:
  void add(std::string name);
  void add_all(std::vector<std::string> names) {
    for (std::string& n : names) add(std::move(n));
  }
  // Null when no name has this NameRef.
  const std::string* find(uint64_t name_ref) const;
  size_t size() const { return names_.size(); }

 private:
  std::unordered_map<uint64_t, std::string> names_;
};

uint64_t name_ref(std::string_view name);

}  // namespace covkit::clang
