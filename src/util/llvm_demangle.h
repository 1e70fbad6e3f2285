#pragma once
// LLVM's Itanium demangler, which llvm-cov prints clang's function names
// with: its text differs from libiberty's (util/demangle.h) in places, e.g.
// "std::vector<int, std::allocator<int>>" where libiberty writes "> >".
#include <optional>
#include <string>

namespace covkit::util {

// nullopt when `name` is not a mangled name LLVM's demangler accepts.
std::optional<std::string> llvm_demangle(const std::string& name);

}  // namespace covkit::util
