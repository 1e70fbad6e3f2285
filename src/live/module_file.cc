#include "live/module_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

namespace covkit::live {

ModuleFile::ModuleFile(int fd, size_t size, const std::string& path) : mapping_(util::map_file(fd, size, path)) {
  if (mapping_.slot >= 0) return;
  // Not mappable (too many mappings live): read instead.
  copy_.resize(size);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, copy_.data() + done, size - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  copy_.resize(done);
}

ModuleFile::~ModuleFile() {
  if (mapping_.slot >= 0) util::unmap_file(mapping_);
}

std::span<const uint8_t> ModuleFile::bytes() const {
  return mapping_.slot >= 0 ? std::span<const uint8_t>(mapping_.data, mapping_.size) : std::span<const uint8_t>(copy_);
}

namespace {

// The first of `candidates` that leads to a regular file of the device and
// inode: util::open_regular_file (looked at O_PATH, so no device's driver
// runs and no FIFO waits; reopened through /proc/self/fd, or by its name
// again where there is no /proc), then checked on the descriptor opened.
std::optional<OpenedModule> open_first_of(const std::vector<std::string>& candidates, uint32_t dev_major,
                                          uint32_t dev_minor, uint64_t inode) {
  for (const std::string& path : candidates) {
    auto fd = util::open_regular_file(path);
    if (!fd) continue;
    struct stat st {};
    if (::fstat(fd->get(), &st) != 0 || st.st_size <= 0 || st.st_ino != inode || major(st.st_dev) != dev_major ||
        minor(st.st_dev) != dev_minor)
      continue;
    return OpenedModule{std::move(*fd), size_t(st.st_size), path};
  }
  return std::nullopt;
}

}  // namespace

std::optional<OpenedModule> open_module_file(pid_t pid, const Module& m) {
  std::vector<std::string> candidates = {fmt::format("/proc/{}/map_files/{:x}-{:x}", pid, m.start, m.map_end)};
  if (!m.path.ends_with(" (deleted)")) candidates.push_back(fmt::format("/proc/{}/root{}", pid, m.path));
  return open_first_of(candidates, m.dev_major, m.dev_minor, m.inode);
}

std::optional<OpenedModule> open_mapped_file(pid_t pid, uint64_t start, uint64_t end, uint32_t dev_major,
                                             uint32_t dev_minor, uint64_t inode, const std::string& path) {
  std::vector<std::string> candidates = {fmt::format("/proc/{}/map_files/{:x}-{:x}", pid, start, end)};
  if (!path.empty() && path[0] == '/' && !path.ends_with(" (deleted)")) {
    candidates.push_back(fmt::format("/proc/{}/root{}", pid, path));
    candidates.push_back(path);
  }
  return open_first_of(candidates, dev_major, dev_minor, inode);
}

std::optional<OpenedModule> open_mapped_file(pid_t pid, const Mapping& m) {
  return open_mapped_file(pid, m.start, m.end, m.dev_major, m.dev_minor, m.inode, m.path);
}

std::unique_ptr<ModuleFile> module_file(pid_t pid, const Module& m) {
  auto opened = open_module_file(pid, m);
  if (!opened) return nullptr;
  return std::make_unique<ModuleFile>(opened->fd.get(), opened->size, opened->path);
}

}  // namespace covkit::live
