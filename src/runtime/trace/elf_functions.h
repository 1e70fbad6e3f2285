/* The function symbols of an ELF file on disk, for what covkit could not
 * name before the run (libraries loaded later: patch_loads.c, filters.c).
 * The file is mapped for reading and every offset checked against its size:
 * a damaged or foreign file gives nothing, never a fault. */
#ifndef CKT_ELF_FUNCTIONS_H
#define CKT_ELF_FUNCTIONS_H

#include "ckt_base.h"

typedef void (*ckt_elf_function_fn)(const char *name, uint64_t value, uint64_t size, void *arg);

/* Calls `fn` for each defined function symbol of the ELF64 file at `path`
 * (.symtab, else .dynsym; value = the symbol's address in the file). With
 * `need_section`, only a file that has a section of that name is read.
 * 0 when the file cannot be read as ELF64 (or lacks that section). */
CKT_FN int ckt_elf_functions(const char *path, const char *need_section, ckt_elf_function_fn fn, void *arg);

#endif
