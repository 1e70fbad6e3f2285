#include "live/memory_source.h"

#include <fmt/format.h>

namespace covkit::live {

Expected<uint32_t> MemorySource::u32(uint64_t address) const {
  uint32_t v = 0;
  if (auto r = read(address, &v, sizeof v); !r) return r.error();
  return v;
}

Expected<uint64_t> MemorySource::u64(uint64_t address) const {
  uint64_t v = 0;
  if (auto r = read(address, &v, sizeof v); !r) return r.error();
  return v;
}

Expected<std::string> MemorySource::c_string(uint64_t address, size_t max) const {
  // Read in small steps: the string may end just before an unmapped page.
  std::string out;
  char chunk[64];
  while (out.size() <= max) {
    size_t want = sizeof chunk;
    // Never cross a 4 KiB boundary in one read: the next page may be absent.
    uint64_t to_page = 4096 - ((address + out.size()) & 4095);
    if (want > to_page) want = size_t(to_page);
    if (auto r = read(address + out.size(), chunk, want); !r) return r.error();
    for (size_t i = 0; i < want; ++i) {
      if (chunk[i] == '\0') return out;
      out.push_back(chunk[i]);
    }
  }
  return Error(fmt::format("string at 0x{:x} is longer than {} bytes", address, max));
}

bool ModuleBounds::holds(uint64_t address, uint64_t len, bool need_writable) const {
  if (address + len < address) return false;  // wraps
  if (len == 0) {
    for (const AddressRange& r : ranges_)
      if (address >= r.start && address <= r.end) return !need_writable || r.writable;
    return false;
  }
  // The span may cross from one range into the next when they touch: a
  // segment's .bss that goes past the last page of the file is mapped
  // anonymously, so one counter array can start in the file's writable page
  // and end in the anonymous one (lighttpd's mod_accesslog.so). Each step
  // moves to a range that starts at or before `at` and ends after it, so the
  // walk ends after at most ranges_.size() steps.
  uint64_t at = address, end = address + len;
  for (size_t step = 0; step <= ranges_.size() && at < end; ++step) {
    const AddressRange* next = nullptr;
    for (const AddressRange& r : ranges_)
      if (at >= r.start && at < r.end && (!need_writable || r.writable)) {
        next = &r;
        break;
      }
    if (!next) return false;
    at = next->end;
  }
  return at >= end;
}

bool ModuleBounds::holds_code(uint64_t address) const {
  for (const AddressRange& r : ranges_)
    if (r.executable && address >= r.start && address < r.end) return true;
  return false;
}

}  // namespace covkit::live
