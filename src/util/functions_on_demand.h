#pragma once
// Opens a library with dlopen and resolves a set of its functions, all or
// none, for the definitions that stand in for a library elfutils would
// otherwise link (util/bzip2_on_demand.cc, util/lzma_on_demand.cc): those
// are compiled on their own, into every executable, without covkit's
// libraries, so this is header-only and reports nothing but success.
// util/shared_library.h is the same for covkit's own callers, with errors.
#include <dlfcn.h>

#include <cstddef>
#include <utility>

namespace covkit::util {

// Each argument pairs a function pointer to fill with the name to look up;
// the pointers' types are the ones the library's header declares
// (decltype(&::function)). A library lacking any of them is not the one
// meant: then nothing is filled and the answer is false. The handle is never
// closed (the pointers stay callable until the process exits).
template <typename... F>
bool resolve_functions_on_demand(const char* soname, std::pair<F**, const char*>... wanted) {
  void* library = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!library) return false;
  void* addresses[] = {::dlsym(library, wanted.second)...};
  for (void* address : addresses)
    if (!address) return false;
  std::size_t i = 0;
  ((*wanted.first = reinterpret_cast<F*>(addresses[i++])), ...);
  return true;
}

}  // namespace covkit::util
