#pragma once
// Where the bytes of a process image come from, and which addresses of it may
// be trusted. The gcov_info decoder reads through a MemorySource so that unit
// tests can hand it images built by hand (hostile ones included) and the live
// commands can hand it another process's memory.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/expected.h"

namespace covkit::live {

class MemorySource {
 public:
  virtual ~MemorySource() = default;
  // Fills `len` bytes from `address` or says why not (unmapped, exited).
  virtual Expected<void> read(uint64_t address, void* out, size_t len) const = 0;

  Expected<uint32_t> u32(uint64_t address) const;
  Expected<uint64_t> u64(uint64_t address) const;
  // A NUL-terminated string of at most `max` bytes (without the NUL).
  Expected<std::string> c_string(uint64_t address, size_t max) const;
};

// One piece of a module's address space (a PT_LOAD segment placed at its
// load address).
struct AddressRange {
  uint64_t start = 0, end = 0;  // [start, end)
  bool writable = false;
  bool executable = false;
};

// The address ranges one module (executable or shared library) occupies.
// Everything libgcov builds for a module lives inside them (records,
// counters, file names; merge functions in its code), so any pointer read
// from the target that leaves them is refused rather than followed.
class ModuleBounds {
 public:
  ModuleBounds() = default;
  explicit ModuleBounds(std::vector<AddressRange> ranges) : ranges_(std::move(ranges)) {}

  // [address, address + len) lies inside ranges that follow each other
  // without a gap (all writable if asked).
  bool holds(uint64_t address, uint64_t len, bool need_writable = false) const;
  // `address` is in an executable range (a function pointer).
  bool holds_code(uint64_t address) const;
  const std::vector<AddressRange>& ranges() const { return ranges_; }

 private:
  std::vector<AddressRange> ranges_;
};

}  // namespace covkit::live
