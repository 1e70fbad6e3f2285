#include "trace/program_info.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "format/elf_open.h"

namespace covkit::trace {

namespace {

bool executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

ProgramInfo inspect_program(const std::string& path) {
  ProgramInfo info;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return info;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return info;
  }
  elf_version(EV_CURRENT);
  Elf* elf = format::begin_elf(fd);
  if (elf && elf_kind(elf) == ELF_K_ELF) {
    info.elf = true;
    size_t phnum = 0;
    if (elf_getphdrnum(elf, &phnum) == 0)
      for (size_t i = 0; i < phnum; ++i) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, int(i), &ph) || ph.p_type != PT_INTERP) continue;
        info.dynamic = true;
        size_t size = 0;
        const char* raw = elf_rawfile(elf, &size);
        if (raw && ph.p_offset < size && ph.p_filesz <= size - ph.p_offset)
          info.interpreter = std::string(raw + ph.p_offset, strnlen(raw + ph.p_offset, ph.p_filesz));
      }
    size_t section_names = 0;
    bool named_sections = elf_getshdrstrndx(elf, &section_names) == 0;
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh)) continue;
      const char* section = named_sections ? elf_strptr(elf, section_names, sh.sh_name) : nullptr;
      if (section && std::strcmp(section, "__patchable_function_entries") == 0 && sh.sh_size > 0)
        info.patchable = true;
      if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || sh.sh_entsize == 0) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (!data) continue;
      size_t n = sh.sh_size / sh.sh_entsize;
      for (size_t i = 0; i < n; ++i) {
        GElf_Sym sym;
        if (!gelf_getsym(data, int(i), &sym)) break;
        const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
        if (!name) continue;
        bool defined = sym.st_shndx != SHN_UNDEF;
        if (std::strcmp(name, "__cyg_profile_func_enter") == 0) {
          info.references_hooks = true;
          info.defines_hooks |= defined;
        } else if (std::strcmp(name, "mcount") == 0 || std::strcmp(name, "_mcount") == 0 ||
                   std::strcmp(name, "__fentry__") == 0) {
          info.references_pg_hooks = true;
          info.defines_pg_hooks |= defined;
        }
      }
    }
  }
  if (elf) elf_end(elf);
  ::close(fd);
  return info;
}

namespace {

// Why a path (with a '/') that is no executable regular file cannot run.
NotRunnable not_runnable(const std::string& prog) {
  struct stat st {};
  if (::stat(prog.c_str(), &st) != 0) return {std::strerror(errno), 127};
  if (S_ISDIR(st.st_mode)) return {std::strerror(EISDIR), 126};
  return {std::strerror(EACCES), 126};  // a file without execute permission, or no regular file
}

}  // namespace

Expected<std::string, NotRunnable> find_program(const std::string& prog) {
  const NotRunnable not_found("command not found", 127);
  if (prog.empty()) return not_found;
  if (prog.find('/') != std::string::npos) {
    if (executable_file(prog)) return prog;
    return not_runnable(prog);
  }
  const char* env = std::getenv("PATH");
  std::string path = env ? env : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t colon = path.find(':', start);
    if (colon == std::string::npos) colon = path.size();
    std::string dir = path.substr(start, colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + prog;
    if (executable_file(candidate)) return candidate;
    start = colon + 1;
  }
  return not_found;
}

}  // namespace covkit::trace
