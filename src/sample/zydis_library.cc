#include "sample/zydis_library.h"

#include "util/shared_library.h"

#ifndef COVKIT_ZYDIS_SONAME
#define COVKIT_ZYDIS_SONAME "libZydis.so.4.0"
#endif

namespace covkit::sample {

namespace {

Expected<ZydisLibrary> load_zydis() {
  auto library = util::SharedLibrary::open(COVKIT_ZYDIS_SONAME, "to decode instructions (Zydis)");
  if (!library) return library.error();
  ZydisLibrary z;
#define COVKIT_ZYDIS_BIND(name) \
  if (auto bound = library->bind(z.name, #name); !bound) return bound.error();
  COVKIT_ZYDIS_FUNCTIONS(COVKIT_ZYDIS_BIND)
#undef COVKIT_ZYDIS_BIND
  return z;
}

}  // namespace

Expected<const ZydisLibrary*> zydis_library() {
  static const Expected<ZydisLibrary> loaded = load_zydis();
  if (!loaded) return loaded.error();
  return &*loaded;
}

}  // namespace covkit::sample
