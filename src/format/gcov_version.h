#pragma once
// GCC's coverage-format version word: four ASCII characters packed big-endian,
// 'A'+major/10, '0'+major%10, '0'+minor, status ('*' for releases), e.g. "B22*"
// for GCC 12.2; GCC 4 wrote "408*" for 4.8, the words clang's --coverage
// writes. The layout of the files changed at GCC 8 and 12 (lengths in bytes,
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
  bool supported() const { return (major >= 8 && major <= 14) || is_gcc48(); }
  // "408*", GCC 4.8's layout, which clang's --coverage writes by default: no
  // working directory in the header, a function's name, file and first line
  // only, a flags word per block, and a program summary instead of an
  // object summary.
  bool is_gcc48() const { return major == 4 && minor == 8; }
  bool lengths_in_bytes() const { return major >= 12; }
  bool header_has_checksum() const { return major >= 12; }
  // "12.2.0": releases since GCC 5 always have patch level 0 in x.y.0 form.
  std::string gcc_version_string() const;
  std::string four_chars() const;  // "B22*"
};

// The printable four characters of any version word (as gcov prints them).
std::string version_chars(uint32_t raw);

// Why a version word is refused, for the reader's message: "unsupported
// version 'X' (covkit reads GCC 8 to 14, and clang's '408*')".
std::string unsupported_version_message(uint32_t raw);

}  // namespace covkit::format
