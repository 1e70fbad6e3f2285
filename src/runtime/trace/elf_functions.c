/* Function symbols of an ELF file on disk (see elf_functions.h). */
#include "elf_functions.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file, mapped for reading; NULL when it cannot be. */
CKT_FN static const uint8_t *map_file(const char *path, size_t *size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  void *m = MAP_FAILED;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)sizeof(Elf64_Ehdr))
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return NULL;
  *size = (size_t)st.st_size;
  return m;
}

/* The section headers, when the header says they lie inside the file. */
CKT_FN static const Elf64_Shdr *headers(const uint8_t *f, size_t size, uint32_t *n) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
      (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
    return NULL;
  *n = eh->e_shnum;
  return (const Elf64_Shdr *)(f + eh->e_shoff);
}

CKT_FN static int inside(const Elf64_Shdr *s, size_t size) {
  return s->sh_type != SHT_NOBITS && s->sh_offset <= size && s->sh_size <= size - s->sh_offset;
}

CKT_FN static int has_section(const uint8_t *f, size_t size, const Elf64_Shdr *sh, uint32_t n, const char *name) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
  if (eh->e_shstrndx >= n || !inside(&sh[eh->e_shstrndx], size)) return 0;
  const Elf64_Shdr *names = &sh[eh->e_shstrndx];
  size_t len = strlen(name) + 1;
  for (uint32_t i = 0; i < n; i++)
    if (sh[i].sh_name < names->sh_size && names->sh_size - sh[i].sh_name >= len &&
        memcmp(f + names->sh_offset + sh[i].sh_name, name, len) == 0)
      return 1;
  return 0;
}

CKT_FN static const Elf64_Shdr *symbols(const Elf64_Shdr *sh, uint32_t n, size_t size) {
  for (uint32_t type = SHT_SYMTAB;; type = SHT_DYNSYM) {
    for (uint32_t i = 0; i < n; i++)
      if (sh[i].sh_type == type && inside(&sh[i], size) && sh[i].sh_link < n && inside(&sh[sh[i].sh_link], size))
        return &sh[i];
    if (type == SHT_DYNSYM) return NULL;
  }
}

CKT_FN int ckt_elf_functions(const char *path, const char *need_section, ckt_elf_function_fn fn, void *arg) {
  size_t size = 0;
  const uint8_t *f = map_file(path, &size);
  if (!f) return 0;
  uint32_t n = 0;
  const Elf64_Shdr *sh = headers(f, size, &n);
  const Elf64_Shdr *syms = sh ? symbols(sh, n, size) : NULL;
  int ok = syms && (!need_section || has_section(f, size, sh, n, need_section));
  if (ok) {
    const Elf64_Shdr *str = &sh[syms->sh_link];
    const Elf64_Sym *s = (const Elf64_Sym *)(f + syms->sh_offset);
    const char *strtab = (const char *)(f + str->sh_offset);
    size_t count = syms->sh_size / sizeof(Elf64_Sym);
    for (size_t i = 0; i < count; i++) {
      if (ELF64_ST_TYPE(s[i].st_info) != STT_FUNC || s[i].st_shndx == SHN_UNDEF || s[i].st_value == 0 ||
          s[i].st_name >= str->sh_size || !memchr(strtab + s[i].st_name, 0, str->sh_size - s[i].st_name))
        continue;
      fn(strtab + s[i].st_name, s[i].st_value, s[i].st_size, arg);
    }
  }
  munmap((void *)f, size);
  return ok;
}
