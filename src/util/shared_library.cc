#include "util/shared_library.h"

#include <dlfcn.h>

namespace covkit::util {

namespace {

std::string last_dl_error() {
  const char* e = ::dlerror();
  return e ? e : "unknown error";
}

}  // namespace

Expected<SharedLibrary> SharedLibrary::open(const char* soname, const std::string& purpose) {
  // RTLD_LOCAL: the library's symbols resolve only through this handle, so
  // they never interpose on covkit's own (or on a later library's).
  // dlopen("") would be the program itself, whose symbols are not these.
  if (!soname || !*soname) return Error("no library name to load (needed " + purpose + ")");
  void* handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!handle) return Error("cannot load " + std::string(soname) + " (needed " + purpose + "): " + last_dl_error());
  return SharedLibrary(handle, soname);
}

Expected<void*> SharedLibrary::symbol(const char* name) const {
  ::dlerror();
  void* address = ::dlsym(handle_, name);
  if (!address) return Error(std::string(soname_) + " has no function " + name + ": " + last_dl_error());
  return address;
}

}  // namespace covkit::util
