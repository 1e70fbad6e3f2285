#include "sample/elf_module_file.h"

#include <elfutils/libdwelf.h>

#include <fmt/format.h>

#include "format/elf_symbols.h"
#include "util/foreign_data.h"
#include "util/printable.h"

namespace covkit::sample {

namespace {

Expected<ElfModuleFile> elf_module_of(Expected<format::OpenElf> f, const std::string& path) {
  if (!f) return f.error();
  ElfModuleFile out;
  GElf_Ehdr eh;
  if (!gelf_getehdr(f->elf(), &eh)) return Error(fmt::format("{}: no ELF header", path));
  out.type = eh.e_type;
  size_t phnum = 0;
  if (elf_getphdrnum(f->elf(), &phnum) != 0) return Error(fmt::format("{}: no program headers", path));
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(f->elf(), int(i), &ph) || ph.p_type != PT_LOAD) continue;
    out.loads.push_back({ph.p_vaddr, ph.p_memsz, ph.p_offset, (ph.p_flags & PF_W) != 0, (ph.p_flags & PF_X) != 0});
  }
  if (out.loads.empty()) return Error(fmt::format("{}: no loadable segment", path));
  const void* id = nullptr;
  ssize_t n = dwelf_elf_gnu_build_id(f->elf(), &id);
  for (ssize_t i = 0; i < n; ++i) out.build_id += fmt::format("{:02x}", static_cast<const uint8_t*>(id)[i]);
  return out;
}

}  // namespace

Expected<ElfModuleFile> read_elf_module(const std::string& path) { return elf_module_of(format::OpenElf::open(path), path); }

std::string MappedModule::file() const { return fmt::format("/proc/self/fd/{}", opened.fd.get()); }

Expected<MappedModule> open_mapped_module(pid_t pid, uint64_t start, uint64_t end, uint32_t dev_major,
                                          uint32_t dev_minor, uint64_t inode, const std::string& path) {
  auto opened = live::open_mapped_file(pid, start, end, dev_major, dev_minor, inode, path);
  if (!opened)
    return Error(fmt::format("{}: not read: no file of the device and inode process {} maps could be opened (its path "
                             "names another file now, or the mapping is gone)",
                             util::printable(path), pid));
  return MappedModule{path, std::move(*opened)};
}

Expected<MappedModule> open_mapped_module(pid_t pid, const live::Mapping& m) {
  return open_mapped_module(pid, m.start, m.end, m.dev_major, m.dev_minor, m.inode, m.path);
}

Error named_for(Error e, const MappedModule& module) {
  const std::string file = module.file();
  for (size_t at = e.message.find(file); at != std::string::npos; at = e.message.find(file, at + module.path.size()))
    e.message.replace(at, file.size(), module.path);
  return e;
}

Expected<ElfModuleFile> read_elf_module(const MappedModule& module) {
  auto file = read_elf_module(module.file());
  if (!file) return named_for(file.error(), module);
  return file;
}

std::string file_build_id(const std::string& path) {
  // Named by data (a perf.data's MMAP records): opened with the rights of
  // the data's owners, or a user's perf.data naming a binary only root may
  // read would put its build-id into root's recording.
  auto opened = util::open_named_file(path);
  if (!opened) return {};
  auto file = elf_module_of(format::OpenElf::open(std::move(*opened), path), path);
  return file ? file->build_id : std::string();
}

}  // namespace covkit::sample
