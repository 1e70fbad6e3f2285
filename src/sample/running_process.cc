#include "sample/running_process.h"

#include <sys/mman.h>

#include "live/process_maps.h"

namespace covkit::sample {

std::vector<format::PerfMmap> mappings_of(pid_t pid) {
  std::vector<format::PerfMmap> out;
  auto maps = live::read_maps(pid);
  if (!maps) return out;
  for (const live::Mapping& m : *maps) {
    if (!m.executable) continue;
    format::PerfMmap r;
    r.pid = r.tid = uint32_t(pid);
    r.start = m.start;
    r.length = m.end - m.start;
    r.file_offset = m.offset;
    r.major = m.dev_major;
    r.minor = m.dev_minor;
    r.inode = m.inode;
    r.prot = PROT_EXEC | (m.readable ? PROT_READ : 0) | (m.writable ? PROT_WRITE : 0);
    r.path = m.path;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace covkit::sample
