#include "live/memory_cache.h"

#include <algorithm>
#include <cstring>

namespace covkit::live {

CachedMemory::CachedMemory(const MemorySource& source, const std::vector<Mapping>& maps) : source_(source) {
  for (const Mapping& m : maps)
    if (m.readable && m.end > m.start) readable_.emplace_back(m.start, m.end);
  std::sort(readable_.begin(), readable_.end());
}

const std::vector<uint8_t>* CachedMemory::block(uint64_t address, uint64_t& start) const {
  auto in = std::upper_bound(readable_.begin(), readable_.end(), std::make_pair(address, UINT64_MAX));
  if (in == readable_.begin()) return nullptr;
  --in;
  if (address >= in->second) return nullptr;
  // The aligned block, cut to the mapping holding it.
  start = std::max(address & ~(kBlock - 1), in->first);
  const uint64_t end = std::min((address & ~(kBlock - 1)) + kBlock, in->second);
  auto [it, fresh] = blocks_.try_emplace(start);
  if (fresh) {
    it->second.resize(end - start);
    if (!source_.read(start, it->second.data(), it->second.size())) it->second.clear();
  }
  return it->second.empty() ? nullptr : &it->second;
}

Expected<void> CachedMemory::read(uint64_t address, void* out, size_t len) const {
  // A large piece (a module's whole data, scanned) is read as it is.
  if (len >= kBlock) return source_.read(address, out, len);
  auto* dst = static_cast<uint8_t*>(out);
  for (uint64_t at = address, left = len; left > 0;) {
    uint64_t start = 0;
    const std::vector<uint8_t>* b = block(at, start);
    if (!b || at - start >= b->size()) return source_.read(address, out, len);
    const uint64_t n = std::min<uint64_t>(left, b->size() - (at - start));
    std::memcpy(dst + (at - address), b->data() + (at - start), n);
    at += n;
    left -= n;
  }
  return {};
}

}  // namespace covkit::live
