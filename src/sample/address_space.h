#pragma once
// One traced address space: its breakpoint table, the modules planted in
// it, and the writes that patch its text. Threads (and a vfork child until
// it execs) share one; a forked child gets a copy of its own.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "format/sample_records.h"
#include "sample/breakpoint_table.h"
#include "util/expected.h"

namespace covkit::sample {

class AddressSpace {
 public:
  AddressSpace(pid_t pid, uint32_t image) : pid_(pid), image_(image) {}
  AddressSpace(const AddressSpace&) = delete;
  AddressSpace& operator=(const AddressSpace&) = delete;
  ~AddressSpace();

  // The child's copy after a fork: the same sites, armed as they are now.
  std::unique_ptr<AddressSpace> fork_copy(pid_t child) const;

  pid_t pid() const { return pid_; }
  uint32_t image() const { return image_; }
  BreakpointTable& table() { return table_; }

  // Patches an int3 over each address not planted yet whose byte is not an
  // int3 already (the program's own), through the stopped thread `tid`;
  // returns the addresses planted.
  Expected<std::vector<uint64_t>> plant(pid_t tid, std::span<const uint64_t> addresses, bool planned,
                                        bool persistent);
  // Puts the original byte back at a one-shot site hit for the first time;
  // false when there was nothing to restore (hit already by another thread).
  Expected<bool> restore(pid_t tid, uint64_t address);

  // Writes back the byte under every int3 still in the text (the linker's
  // hook too): the text is as before covkit planted; returns how many.
  Expected<size_t> restore_all(pid_t tid);

  // The executable mappings of each module planted, by path.
  std::map<std::string, std::vector<format::SampleMapping>> modules;
  uint64_t r_brk = 0;  // the dynamic linker's hook; 0 when not followed
  // The program caught a SIGTRAP of its own: a breakpoint in its handler
  // would make the kernel reset the handler, so stops are checked for that.
  bool watch_sigtrap = false;

 private:
  Expected<void> write_byte(pid_t tid, uint64_t address, uint8_t byte);
  Expected<void> write_int3s(pid_t tid, std::vector<uint64_t> sites);
  Expected<void> write_sites(pid_t tid, const std::vector<std::pair<uint64_t, uint8_t>>& sites);
  // Bytes into the process's memory (text included, through /proc/PID/mem).
  Expected<void> write_bytes(pid_t tid, uint64_t address, std::span<const uint8_t> bytes);
  pid_t pid_;
  uint32_t image_;
  BreakpointTable table_;
  // /proc/PID/mem, kept open: the one write per hit is then one pwrite
  // (process_vm_writev refuses read-only text).
  int mem_fd_ = -1;
  pid_t mem_pid_ = 0;
};

}  // namespace covkit::sample
