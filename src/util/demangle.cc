#include "util/demangle.h"

#include <cstdlib>

#include <demangle.h>

namespace covkit::util {

namespace {

// libiberty sizes two arrays on the stack by the name's length (~56 bytes
// per character), before it even looks at the name: a 1 MB name from a
// hostile tracefile overflowed the stack. No real symbol comes near this
// (8 MB stacks; thread pools' may be smaller); longer names are left as
// they are.
constexpr size_t kMaxDemangledLength = 32 * 1024;

bool demanglable(const std::string& name) { return name.size() <= kMaxDemangledLength; }

}  // namespace

std::string demangle(const std::string& name) {
  if (!demanglable(name)) return name;
  char* d = cplus_demangle(name.c_str(), DMGL_PARAMS);
  if (!d) return name;
  std::string out(d);
  std::free(d);
  return out;
}

std::optional<std::string> demangle_or_none(const std::string& name) {
  if (!demanglable(name)) return std::nullopt;
  char* d = cplus_demangle(name.c_str(), DMGL_PARAMS | DMGL_ANSI);
  if (!d) return std::nullopt;
  std::string out(d);
  std::free(d);
  return out;
}

StructorKind structor_kind(const std::string& mangled) {
  // Itanium names start with _Z; libiberty would still size its arrays.
  if (!mangled.starts_with("_Z") || !demanglable(mangled)) return StructorKind::kNone;
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
