#include "util/llvm_demangle.h"

#include <llvm/Demangle/Demangle.h>

#include <cstdlib>

namespace covkit::util {

std::optional<std::string> llvm_demangle(const std::string& name) {
  int status = 0;
  char* res = llvm::itaniumDemangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !res) {
    std::free(res);
    return std::nullopt;
  }
  std::string out(res);
  std::free(res);
  return out;
}

}  // namespace covkit::util
