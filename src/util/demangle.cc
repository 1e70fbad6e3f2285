#include "util/demangle.h"

#include <cstdlib>

#include <demangle.h>

namespace covkit::util {

std::string demangle(const std::string& name) {
  char* d = cplus_demangle(name.c_str(), DMGL_PARAMS);
  if (!d) return name;
  std::string out(d);
  std::free(d);
  return out;
}

}  // namespace covkit::util
