#include "live/remote_memory.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace covkit::live {

namespace {

Error system_error(int err, std::string_view what) {
  Error e(fmt::format("{}: {}", what, std::strerror(err)));
  e.errno_value = err;
  return e;
}

// /proc/PID/mem, piece by piece: the fallback when process_vm_* is refused
// (a kernel without it, or a write to a page the target keeps read-only).
Expected<void> proc_mem(pid_t pid, std::span<const RemotePiece> pieces, bool write) {
  std::string path = fmt::format("/proc/{}/mem", pid);
  int fd = ::open(path.c_str(), (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) return system_error(errno, "cannot open the process's memory");
  for (const RemotePiece& p : pieces) {
    size_t done = 0;
    while (done < p.len) {
      ssize_t n = write ? ::pwrite(fd, static_cast<const char*>(p.local) + done, p.len - done, off_t(p.address + done))
                        : ::pread(fd, static_cast<char*>(p.local) + done, p.len - done, off_t(p.address + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int err = n < 0 ? errno : EFAULT;
        ::close(fd);
        return system_error(err, fmt::format("cannot {} 0x{:x}", write ? "write" : "read", p.address + done));
      }
      done += size_t(n);
    }
  }
  ::close(fd);
  return {};
}

Expected<void> vm_pieces(pid_t pid, std::span<const RemotePiece> pieces, bool write) {
  constexpr size_t kBatch = 1024;  // IOV_MAX
  std::vector<iovec> local, remote;
  for (size_t first = 0; first < pieces.size(); first += kBatch) {
    size_t n = std::min(kBatch, pieces.size() - first);
    local.clear();
    remote.clear();
    size_t total = 0;
    for (size_t i = first; i < first + n; ++i) {
      local.push_back({pieces[i].local, pieces[i].len});
      remote.push_back({reinterpret_cast<void*>(pieces[i].address), pieces[i].len});
      total += pieces[i].len;
    }
    ssize_t got = write ? ::process_vm_writev(pid, local.data(), n, remote.data(), n, 0)
                        : ::process_vm_readv(pid, local.data(), n, remote.data(), n, 0);
    if (got == ssize_t(total)) continue;
    int err = got < 0 ? errno : EFAULT;
    if (err == ESRCH) return system_error(err, "the process is gone");
    // A partial transfer (a page that faults) or a refusal: retry this
    // batch through /proc/PID/mem, which names the failing address.
    if (auto r = proc_mem(pid, pieces.subspan(first, n), write); !r) return r;
  }
  return {};
}

}  // namespace

Expected<void> RemoteMemory::read(uint64_t address, void* out, size_t len) const {
  RemotePiece p{address, out, len};
  return read_pieces({&p, 1});
}

Expected<void> RemoteMemory::read_pieces(std::span<const RemotePiece> pieces) const {
  return vm_pieces(pid_, pieces, false);
}

Expected<void> RemoteMemory::write_pieces(std::span<const RemotePiece> pieces) const {
  return vm_pieces(pid_, pieces, true);
}

bool process_gone(const Error& e) { return e.errno_value == ESRCH; }

}  // namespace covkit::live
