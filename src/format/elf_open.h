#pragma once
// libelf's handle of an open ELF file, mapped only when nobody but covkit's
// own user can change the file (util::only_ours), read otherwise. libelf's
// mappings are not util/mapped_file's, whose guard turns a file cut short
// while it is mapped into one line: the owner of a program covkit reads
// (gprof's program, a traced or sampled process's modules) truncating it
// meanwhile killed covkit with SIGBUS, as root, with a core dump. Read
// (ELF_C_READ), libelf copies what it is asked for with pread, and a file
// cut short is a read that fails.
#include <libelf.h>

namespace covkit::format {

// elf_begin(fd, ELF_C_READ_MMAP or ELF_C_READ, nullptr); null as elf_begin.
Elf* begin_elf(int fd);

}  // namespace covkit::format
