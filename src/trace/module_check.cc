#include "trace/module_check.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <utility>

#include "format/elf_open.h"
#include "util/file_io.h"
#include "util/hex_text.h"
#include "util/foreign_data.h"
#include "util/printable.h"

namespace covkit::trace {

namespace {

enum class FileId { kAbsent, kNone, kFound };

// The build-id of the ELF file at `path` in lower-case hex.
FileId file_build_id(const std::string& path, std::string& out) {
  auto opened = util::open_named_file(path);  // never a FIFO's or a device's open; a trace's owner's rights
  if (!opened) return FileId::kAbsent;
  const int fd = opened->release();
  FileId result = FileId::kAbsent;
  elf_version(EV_CURRENT);
  if (Elf* elf = format::begin_elf(fd)) {
    if (elf_kind(elf) == ELF_K_ELF) {
      const void* id = nullptr;
      ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
      result = FileId::kNone;
      if (n > 0) {
        out.clear();
        util::append_hex(out, {static_cast<const unsigned char*>(id), size_t(n)});
        result = FileId::kFound;
      }
    }
    elf_end(elf);
  }
  ::close(fd);
  return result;
}

}  // namespace

std::vector<std::string> changed_module_warnings(const format::TraceSet& set) {
  std::vector<std::string> warnings;
  std::set<std::pair<std::string, std::string>> checked;  // (path, recorded build-id)
  for (const format::TraceProcess& process : set.processes)
    for (const format::TraceModule& m : process.modules) {
      if (m.build_id.empty() || m.path.empty() || !checked.emplace(m.path, m.build_id).second) continue;
      std::string now;
      switch (file_build_id(m.path, now)) {
        case FileId::kAbsent:
          break;
        case FileId::kNone:
          warnings.push_back(fmt::format("{}: not the file that was traced (it has no build-id now, {} then): the "
                                         "names of its functions may be wrong",
                                         util::printable(m.path), m.build_id));
          break;
        case FileId::kFound:
          if (now != m.build_id)
            warnings.push_back(fmt::format("{}: not the file that was traced (build-id {} now, {} then): the names "
                                           "of its functions may be wrong",
                                           util::printable(m.path), now, m.build_id));
          break;
      }
    }
  return warnings;
}

}  // namespace covkit::trace
