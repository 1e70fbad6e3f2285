#include "sample/address_space.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
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
  return write_bytes(tid, address, std::span(&byte, 1));
}

Expected<void> AddressSpace::write_bytes(pid_t tid, uint64_t address, std::span<const uint8_t> bytes) {
  // The file of the process's main thread, or of the stopped thread when
  // that one is gone (a leader that exited before its threads has no memory).
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (mem_fd_ < 0) {
      mem_pid_ = attempt == 0 ? pid_ : tid;
      mem_fd_ = ::open(fmt::format("/proc/{}/mem", mem_pid_).c_str(), O_RDWR | O_CLOEXEC);
    }
    if (mem_fd_ >= 0 && ::pwrite(mem_fd_, bytes.data(), bytes.size(), off_t(address)) == ssize_t(bytes.size()))
      return {};
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
    planted.push_back(fresh[i]);
  }
  if (auto r = write_int3s(tid, planted); !r) return r.error();
  for (size_t i = 0, k = 0; i < fresh.size(); ++i)
    if (k < planted.size() && planted[k] == fresh[i]) {
      table_.add(fresh[i], original[i], planned, persistent);
      ++k;
    }
  return planted;
}

// A module's sites are tens of thousands of addresses a few bytes apart:
// written one pwrite per site, planting cost more than the run. Sites close
// together are patched in a copy of the text between them and written back
// at once (the process is stopped; its text is not written by anyone else).
// `sites`: (address, byte to write there), sorted by address.
Expected<void> AddressSpace::write_sites(pid_t tid, const std::vector<std::pair<uint64_t, uint8_t>>& sites) {
  constexpr uint64_t kSpan = 64 * 1024;
  for (size_t first = 0; first < sites.size();) {
    size_t last = first;
    while (last + 1 < sites.size() && sites[last + 1].first - sites[first].first < kSpan) ++last;
    const uint64_t start = sites[first].first;
    std::vector<uint8_t> text(sites[last].first - start + 1);
    std::vector<live::RemotePiece> piece{{start, text.data(), text.size()}};
    bool copied = bool(live::RemoteMemory(tid).read_pieces(piece));
    if (copied) {
      for (size_t i = first; i <= last; ++i) text[sites[i].first - start] = sites[i].second;
      copied = bool(write_bytes(tid, start, text));
    }
    if (!copied)  // a span across an unmapped hole: one site at a time
      for (size_t i = first; i <= last; ++i)
        if (auto r = write_byte(tid, sites[i].first, sites[i].second); !r) return r.error();
    first = last + 1;
  }
  return {};
}

Expected<void> AddressSpace::write_int3s(pid_t tid, std::vector<uint64_t> sites) {
  std::sort(sites.begin(), sites.end());
  std::vector<std::pair<uint64_t, uint8_t>> bytes;
  bytes.reserve(sites.size());
  for (uint64_t a : sites) bytes.emplace_back(a, kInt3);
  return write_sites(tid, bytes);
}

Expected<bool> AddressSpace::restore(pid_t tid, uint64_t address) {
  std::optional<uint8_t> byte = table_.disarm(address);
  if (!byte) return false;
  if (auto r = write_byte(tid, address, *byte); !r) return r.error();
  return true;
}

Expected<size_t> AddressSpace::restore_all(pid_t tid) {
  auto sites = table_.disarm_all();  // sorted
  if (auto w = write_sites(tid, sites); !w) return w.error();
  return sites.size();
}

}  // namespace covkit::sample
