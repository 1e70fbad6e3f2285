#pragma once
// A shared library opened with dlopen the first time a command needs it.
// Linked the usual way, every library is loaded (mapped, relocated, its
// constructors run) at the start of every command, and start-up is what a
// client that runs covkit once per file (lcov's --gcov-tool, CTest) pays
// over and over; Graphviz (six libraries) and Zydis (with Zycore)
// are needed by one command each. Each such library has one small loader
// beside the code that uses it (trace/graphviz_library, sample/zydis_library)
// that resolves the functions it needs through this.
#include <string>

#include "util/expected.h"

namespace covkit::util {

class SharedLibrary {
 public:
  // `soname` as the dynamic linker looks it up ("libgvc.so.6"). The Error
  // says which library could not be loaded and why (dlerror's words) and
  // what it is needed for (`purpose`: "to draw graphs").
  static Expected<SharedLibrary> open(const char* soname, const std::string& purpose);

  // The address of `name` (a function), or an Error naming it and the
  // library (a library of another version that lacks it).
  Expected<void*> symbol(const char* name) const;

  // Fills a function pointer; the caller's type is the one its headers
  // declare (decltype(&::function)), so a call through it is checked.
  template <typename F>
  Expected<void> bind(F*& to, const char* name) const {
    auto address = symbol(name);
    if (!address) return address.error();
    to = reinterpret_cast<F*>(*address);
    return {};
  }

  // Never closed: the functions stay callable until the process exits (and
  // Graphviz keeps plugins and fonts that must not be unloaded under it).
 private:
  SharedLibrary(void* handle, const char* soname) : handle_(handle), soname_(soname) {}
  void* handle_;
  const char* soname_;
};

}  // namespace covkit::util
