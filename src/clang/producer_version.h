#pragma once
// Which clang built a binary, from its .comment section ("Debian clang
// version 16.0.6"): llvm-cov's rules changed between releases, and covkit
// counts a binary as the llvm-cov of its own compiler would.
#include <cstdint>
#include <span>

namespace covkit::clang {

// The highest clang major version the section names (objects of several
// compilers linked together name several), or 0 when it names none.
unsigned clang_major_version(std::span<const uint8_t> comment_section);

}  // namespace covkit::clang
