#pragma once
// Another process's memory, read and written with process_vm_readv/writev
// (one system call for many pieces), falling back to /proc/PID/mem, which
// the kernel lets a tracer write even where process_vm_writev is refused.
// Both obey the kernel's ptrace access rules (same user or root, Yama).
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "live/memory_source.h"

namespace covkit::live {

struct RemotePiece {
  uint64_t address = 0;
  void* local = nullptr;  // read: where the bytes go; write: where they come from
  size_t len = 0;
};

class RemoteMemory : public MemorySource {
 public:
  explicit RemoteMemory(pid_t pid) : pid_(pid) {}
  Expected<void> read(uint64_t address, void* out, size_t len) const override;
  // Every piece, in as few system calls as the kernel allows (IOV_MAX each).
  Expected<void> read_pieces(std::span<const RemotePiece> pieces) const;
  Expected<void> write_pieces(std::span<const RemotePiece> pieces) const;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};

// Whether an error of this module says the process is gone.
bool process_gone(const Error& e);

}  // namespace covkit::live
