#include "live/process_tree.h"

#include <dirent.h>

#include <cstdlib>
#include <map>

#include "live/proc_files.h"

namespace covkit::live {

std::vector<pid_t> descendants(pid_t pid) {
  std::multimap<pid_t, pid_t> children;  // parent -> child
  if (DIR* d = ::opendir("/proc")) {
    while (dirent* ent = ::readdir(d)) {
      if (ent->d_name[0] < '0' || ent->d_name[0] > '9') continue;
      const pid_t child = pid_t(std::atoi(ent->d_name));
      if (auto ppid = parent_pid(child)) children.emplace(*ppid, child);  // else gone since the listing
    }
    ::closedir(d);
  }
  std::vector<pid_t> out;
  std::vector<pid_t> queue{pid};
  for (size_t i = 0; i < queue.size(); ++i) {
    auto [lo, hi] = children.equal_range(queue[i]);
    for (auto it = lo; it != hi; ++it) {
      queue.push_back(it->second);
      out.push_back(it->second);
    }
  }
  return out;
}

}  // namespace covkit::live
