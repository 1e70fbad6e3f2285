#include "report/html/html_function_name.h"

#include <fmt/format.h>

#include <iterator>

#include "util/demangle.h"

namespace covkit::report::html {

namespace {

struct Variant {
  util::StructorKind kind;
  const char* badge;
  const char* title;
};

constexpr Variant kVariants[] = {
    {util::StructorKind::kCompleteConstructor, "C1 complete",
     "complete-object constructor: builds the whole object (C1)"},
    {util::StructorKind::kBaseConstructor, "C2 base",
     "base-object constructor: builds the object as a base-class part (C2)"},
    {util::StructorKind::kAllocatingConstructor, "C3 allocating", "allocating constructor (C3)"},
    {util::StructorKind::kDeletingDestructor, "D0 deleting",
     "deleting destructor: destroys the object, then frees it (D0)"},
    {util::StructorKind::kCompleteDestructor, "D1 complete",
     "complete-object destructor: destroys the whole object (D1)"},
    {util::StructorKind::kBaseDestructor, "D2 base",
     "base-object destructor: destroys the object as a base-class part (D2)"},
};

}  // namespace

std::string display_name(const std::string& demangled, const std::string& mangled) {
  return demangled.empty() ? util::demangle(mangled) : demangled;
}

void append_variant_badge(std::string& out, const std::string& mangled) {
  const util::StructorKind kind = util::structor_kind(mangled);
  for (const Variant& v : kVariants)
    if (v.kind == kind)
      fmt::format_to(std::back_inserter(out), " <span class=\"variant\" title=\"{}\">{}</span>", v.title, v.badge);
}

}  // namespace covkit::report::html
