#include "live/process_tree.h"

#include <dirent.h>

#include <cstdlib>
#include <map>
#include <string>

#include "live/proc_files.h"

namespace covkit::live {

std::vector<pid_t> descendants(pid_t pid) {
  std::multimap<pid_t, pid_t> children;  // parent -> child
  if (DIR* d = ::opendir("/proc")) {
    while (dirent* ent = ::readdir(d)) {
      if (ent->d_name[0] < '0' || ent->d_name[0] > '9') continue;
      auto stat = read_proc_file(std::string("/proc/") + ent->d_name + "/stat");
      if (!stat) continue;  // gone since the listing
      const std::string& line = *stat;
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
      size_t close = line.rfind(')');
      if (close == std::string::npos || close + 4 >= line.size()) continue;
      pid_t ppid = pid_t(std::strtol(line.c_str() + close + 4, nullptr, 10));
      children.emplace(ppid, pid_t(std::atoi(ent->d_name)));
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
