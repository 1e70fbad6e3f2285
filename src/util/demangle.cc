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

std::optional<std::string> demangle_or_none(const std::string& name) {
  char* d = cplus_demangle(name.c_str(), DMGL_PARAMS | DMGL_ANSI);
  if (!d) return std::nullopt;
  std::string out(d);
  std::free(d);
  return out;
}

StructorKind structor_kind(const std::string& mangled) {
  switch (is_gnu_v3_mangled_ctor(mangled.c_str())) {
    case gnu_v3_complete_object_ctor:
      return StructorKind::kCompleteConstructor;
    case gnu_v3_base_object_ctor:
      return StructorKind::kBaseConstructor;
    case gnu_v3_complete_object_allocating_ctor:
      return StructorKind::kAllocatingConstructor;
    default:
      break;
  }
  switch (is_gnu_v3_mangled_dtor(mangled.c_str())) {
    case gnu_v3_deleting_dtor:
      return StructorKind::kDeletingDestructor;
    case gnu_v3_complete_object_dtor:
      return StructorKind::kCompleteDestructor;
    case gnu_v3_base_object_dtor:
      return StructorKind::kBaseDestructor;
    default:
      return StructorKind::kNone;
  }
}

}  // namespace covkit::util
