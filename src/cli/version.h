#pragma once
// covkit's version: one number for the executable, the Debian package and
// the CMake package, all from project(VERSION) in CMakeLists.txt, which
// defines COVKIT_VERSION for this library.
namespace covkit::cli {

inline constexpr const char* kVersion = COVKIT_VERSION;

// The commit the executable was built from ("0123456789ab", with
// "-modified" when tracked files differed from it; "unknown" outside a git
// checkout). Generated at every build (cmake/build_info.cmake), so only one
// small file is recompiled when the commit changes.
const char* build_commit();

// The optional parts built in and the libraries found, one per line
// ("mimalloc 2.0.9 (allocator)"), as CMake configured them.
const char* build_parts();

}  // namespace covkit::cli
