#include "sample/capstone_library.h"

#include "util/shared_library.h"

#ifndef COVKIT_CAPSTONE_SONAME
#define COVKIT_CAPSTONE_SONAME "libcapstone.so.4"
#endif

namespace covkit::sample {

namespace {

Expected<CapstoneLibrary> load_capstone() {
  auto library = util::SharedLibrary::open(COVKIT_CAPSTONE_SONAME, "to decode instructions (capstone)");
  if (!library) return library.error();
  CapstoneLibrary cs;
#define COVKIT_CAPSTONE_BIND(name) \
  if (auto bound = library->bind(cs.name, #name); !bound) return bound.error();
  COVKIT_CAPSTONE_FUNCTIONS(COVKIT_CAPSTONE_BIND)
#undef COVKIT_CAPSTONE_BIND
  return cs;
}

}  // namespace

Expected<const CapstoneLibrary*> capstone_library() {
  static const Expected<CapstoneLibrary> loaded = load_capstone();
  if (!loaded) return loaded.error();
  return &*loaded;
}

}  // namespace covkit::sample
