#include "live/process_owner.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string_view>

#include "live/proc_files.h"

namespace covkit::live {

namespace {

// The numbers of a status line ("Uid:\t0\t0\t0\t0"), in order.
std::vector<unsigned long> status_numbers(std::string_view status, std::string_view name) {
  std::vector<unsigned long> out;
  const std::string key = fmt::format("\n{}:", name);
  size_t at = status.find(key);
  if (at == std::string_view::npos) return out;
  at += key.size();
  const size_t end = status.find('\n', at);
  std::string line(status.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
  const char* p = line.c_str();
  for (;;) {
    char* next = nullptr;
    unsigned long v = std::strtoul(p, &next, 10);
    if (next == p) break;
    out.push_back(v);
    p = next;
  }
  return out;
}

}  // namespace

std::optional<util::DataOwner> process_owner(pid_t pid) {
  auto status = read_proc_file(fmt::format("/proc/{}/status", pid));
  if (!status) return std::nullopt;
  const std::string text = "\n" + *status;
  auto uids = status_numbers(text, "Uid"), gids = status_numbers(text, "Gid");
  if (uids.size() < 4 || gids.size() < 4) return std::nullopt;
  util::DataOwner owner;
  owner.uid = uid_t(uids[3]);  // the file-system ids: what the process itself may open
  owner.gid = gid_t(gids[3]);
  for (unsigned long g : status_numbers(text, "Groups")) owner.groups.push_back(gid_t(g));
  return owner;
}

void note_process_data(pid_t pid) {
  // Its memory: readable by its user alone (and by root).
  if (auto owner = process_owner(pid)) util::note_foreign_data(*owner, 0600);
}

}  // namespace covkit::live
