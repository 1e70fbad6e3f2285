#include "sample/running_process.h"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "live/proc_files.h"

namespace covkit::sample {

std::vector<pid_t> threads_of(pid_t pid) {
  std::vector<pid_t> tids;
  if (DIR* d = ::opendir(fmt::format("/proc/{}/task", pid).c_str())) {
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] >= '1' && e->d_name[0] <= '9') tids.push_back(pid_t(std::atol(e->d_name)));
    ::closedir(d);
  }
  std::sort(tids.begin(), tids.end());
  return tids;
}

std::vector<format::PerfMmap> mappings_of(pid_t pid) {
  std::vector<format::PerfMmap> out;
  auto maps = live::read_proc_file(fmt::format("/proc/{}/maps", pid));
  if (!maps) return out;
  size_t pos = 0;
  while (pos < maps->size()) {
    size_t end = maps->find('\n', pos);
    if (end == std::string::npos) end = maps->size();
    const std::string line = maps->substr(pos, end - pos);
    pos = end + 1;
    // "start-end perms offset major:minor inode   path"
    unsigned long long lo = 0, hi = 0, offset = 0, inode = 0;
    unsigned major = 0, minor = 0;
    char perms[8] = {};
    int path_at = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi, perms, &offset, &major, &minor, &inode,
                    &path_at) < 7 ||
        path_at <= 0 || perms[2] != 'x')
      continue;
    format::PerfMmap m;
    m.pid = m.tid = uint32_t(pid);
    m.start = lo;
    m.length = hi > lo ? hi - lo : 0;
    m.file_offset = offset;
    m.major = major;
    m.minor = minor;
    m.inode = inode;
    m.prot = PROT_READ | PROT_EXEC;
    m.path = line.substr(size_t(path_at));
    out.push_back(std::move(m));
  }
  return out;
}

int32_t parent_of(pid_t pid) {
  auto status = live::read_proc_file(fmt::format("/proc/{}/status", pid));
  if (!status) return 0;
  const size_t at = status->find("\nPPid:");
  return at == std::string::npos ? 0 : int32_t(std::atol(status->c_str() + at + 6));
}

}  // namespace covkit::sample
