#pragma once
#include <optional>
#include <string>

namespace covkit::util {

// Demangles like gcov (libiberty's cplus_demangle with parameters);
// returns `name` itself when it is not a mangled C++ name, or is longer than
// 32 KiB (libiberty would overflow the stack).
std::string demangle(const std::string& name);

// cplus_demangle with parameters and cv-qualifiers (DMGL_PARAMS | DMGL_ANSI,
// what binutils' bfd_demangle asks); nullopt when `name` is not mangled.
std::optional<std::string> demangle_or_none(const std::string& name);

// Which constructor or destructor variant a mangled name is (Itanium C++
// ABI: C1/C2/C3, D0/D1/D2), as libiberty reads it; kNone for anything else.
// The variants share a demangled name, so a function list needs this to tell
// them apart.
enum class StructorKind {
  kNone,
  kCompleteConstructor,    // C1 (and CI1): the whole object, virtual bases included
  kBaseConstructor,        // C2 (and CI2): as a base-class subobject
  kAllocatingConstructor,  // C3
  kDeletingDestructor,     // D0: destroys, then operator delete
  kCompleteDestructor,     // D1
  kBaseDestructor,         // D2
};
StructorKind structor_kind(const std::string& mangled);

}  // namespace covkit::util
