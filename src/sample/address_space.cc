#include "sample/address_space.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "live/remote_memory.h"

namespace covkit::sample {

AddressSpace::~AddressSpace() {
  if (mem_fd_ >= 0) ::close(mem_fd_);
}

std::unique_ptr<AddressSpace> AddressSpace::fork_copy(pid_t child) const {
  auto copy = std::make_unique<AddressSpace>(child, image_);
  copy->table_ = table_;
  copy->modules = modules;
  copy->r_brk = r_brk;
  return copy;
}

Expected<void> AddressSpace::write_byte(pid_t tid, uint64_t address, uint8_t byte) {
  // The file of the process's main thread, or of the stopped thread when
  // that one is gone (a leader that exited before its threads has no memory).
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (mem_fd_ < 0) {
      mem_pid_ = attempt == 0 ? pid_ : tid;
      mem_fd_ = ::open(fmt::format("/proc/{}/mem", mem_pid_).c_str(), O_RDWR | O_CLOEXEC);
    }
    if (mem_fd_ >= 0 && ::pwrite(mem_fd_, &byte, 1, off_t(address)) == 1) return {};
    int err = errno;
    if (mem_fd_ >= 0) ::close(mem_fd_);
    mem_fd_ = -1;
    if (attempt == 1 || tid == mem_pid_) {
      Error e(fmt::format("process {}: cannot write 0x{:x}: {}", tid, address, std::strerror(err)));
      e.errno_value = err;
      return e;
    }
  }
  return {};
}

Expected<std::vector<uint64_t>> AddressSpace::plant(pid_t tid, std::span<const uint64_t> addresses, bool planned,
                                                    bool persistent) {
  std::vector<uint64_t> fresh;
  for (uint64_t a : addresses)
    if (!table_.find(a)) fresh.push_back(a);
  std::vector<uint8_t> original(fresh.size());
  std::vector<live::RemotePiece> pieces;
  for (size_t i = 0; i < fresh.size(); ++i) pieces.push_back({fresh[i], &original[i], 1});
  if (auto r = live::RemoteMemory(tid).read_pieces(pieces); !r)
    return Error(fmt::format("process {}: {}", tid, r.error().message));
  std::vector<uint64_t> planted;
  for (size_t i = 0; i < fresh.size(); ++i) {
    if (original[i] == kInt3) continue;  // the program's own breakpoint: its SIGTRAP stays its own
    if (auto r = write_byte(tid, fresh[i], kInt3); !r) return r.error();
    table_.add(fresh[i], original[i], planned, persistent);
    planted.push_back(fresh[i]);
  }
  return planted;
}

Expected<bool> AddressSpace::restore(pid_t tid, uint64_t address) {
  std::optional<uint8_t> byte = table_.disarm(address);
  if (!byte) return false;
  if (auto r = write_byte(tid, address, *byte); !r) return r.error();
  return true;
}

}  // namespace covkit::sample
