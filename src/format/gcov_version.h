#pragma once
// GCC's coverage-format version word: four ASCII characters packed big-endian,
// 'A'+major/10, '0'+major%10, '0'+minor, status ('*' for releases), e.g. "B22*"
// for GCC 12.2. The layout of the files changed at GCC 12 (lengths in bytes,
// unpadded strings, a checksum in the header), which this type answers.
#include <cstdint>
#include <optional>
#include <string>

namespace covkit::format {

struct GcovVersion {
  uint32_t raw = 0;
  int major = 0;
  int minor = 0;

  // Decodes any well-formed version word; nullopt when it is not one.
  static std::optional<GcovVersion> decode(uint32_t raw);
  static GcovVersion from_gcc(int major, int minor);  // status '*'

  // GCC 8 to 14 are the versions whose layout covkit knows.
  bool supported() const { return major >= 8 && major <= 14; }
  bool lengths_in_bytes() const { return major >= 12; }
  bool header_has_checksum() const { return major >= 12; }
  // "12.2.0": releases since GCC 5 always have patch level 0 in x.y.0 form.
  std::string gcc_version_string() const;
  std::string four_chars() const;  // "B22*"
};

// The printable four characters of any version word (as gcov prints them).
std::string version_chars(uint32_t raw);

// Why a version word is refused, for the reader's message: "unsupported
// version 'X' (covkit reads GCC 8 to 14)", pointing users of clang's
// --coverage (which writes GCC 4.x words, "408*" by default) to llvm-cov gcov.
std::string unsupported_version_message(uint32_t raw);

}  // namespace covkit::format
