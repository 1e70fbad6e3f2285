#pragma once
// The breakpoints of one address space: each planted address with the
// byte the int3 replaced. Threads share one table (they share the text); a
// forked child gets a copy (it inherits the patched text as it was at the
// fork, and from then on its bytes and the parent's go separate ways).
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace covkit::sample {

inline constexpr uint8_t kInt3 = 0xCC;

struct PlantedSite {
  uint8_t original = 0;     // the byte under the int3
  bool armed = true;        // the int3 is still in the text
  bool planned = true;      // a plan's site: its first hit is recorded
  bool persistent = false;  // the dynamic linker's r_brk: stays, its hits emulated
};

class BreakpointTable {
 public:
  // False when the address is planted already (nothing changes then).
  bool add(uint64_t address, uint8_t original, bool planned = true, bool persistent = false);
  PlantedSite* find(uint64_t address);
  const PlantedSite* find(uint64_t address) const;
  // The byte to write back when the site is armed and not persistent (it
  // is then disarmed); nullopt when there is nothing to restore.
  std::optional<uint8_t> disarm(uint64_t address);
  // Every armed site, persistent ones included, with its original byte; all
  // are then disarmed (covkit detaches and leaves the text as it found it).
  std::vector<std::pair<uint64_t, uint8_t>> disarm_all();
  // Forgets the sites in [start, end): the module there was unmapped.
  void forget(uint64_t start, uint64_t end);
  size_t size() const { return sites_.size(); }
  size_t armed() const;

 private:
  std::unordered_map<uint64_t, PlantedSite> sites_;
};

}  // namespace covkit::sample
