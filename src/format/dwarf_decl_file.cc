#include "format/dwarf_decl_file.h"

#include <dwarf.h>

namespace covkit::format {

const char* declared_file(Dwarf_Die* die) {
  if (const char* name = dwarf_decl_file(die)) return name;
  Dwarf_Attribute attr;
  Dwarf_Word index = 0;
  if (!dwarf_attr_integrate(die, DW_AT_decl_file, &attr) || dwarf_formudata(&attr, &index) != 0 || index != 0)
    return nullptr;
  Dwarf_Die cu;
  Dwarf_Half version = 0;
  if (!dwarf_diecu(die, &cu, nullptr, nullptr) || !dwarf_cu_die(cu.cu, &cu, &version, nullptr, nullptr, nullptr,
                                                               nullptr, nullptr))
    return nullptr;
  if (version < 5) return nullptr;
  Dwarf_Files* files = nullptr;
  size_t count = 0;
  if (dwarf_getsrcfiles(&cu, &files, &count) != 0 || count == 0) return nullptr;
  return dwarf_filesrc(files, 0, nullptr, nullptr);
}

}  // namespace covkit::format
