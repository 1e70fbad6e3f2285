#pragma once
#include <string>

namespace covkit::util {

// Demangles like gcov (libiberty's cplus_demangle with parameters);
// returns `name` itself when it is not a mangled C++ name.
std::string demangle(const std::string& name);

}  // namespace covkit::util
