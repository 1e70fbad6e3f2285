#include "sample/address_map.h"

#include <algorithm>

namespace covkit::sample {

AddressMap::AddressMap(const format::SampleImage& image, std::vector<int> mapping_module,
                       const std::vector<const ModuleCfg*>& modules)
    : image_(image), mapping_module_(std::move(mapping_module)), modules_(modules) {}

Located AddressMap::locate(uint64_t address) const {
  const auto& maps = image_.mappings;
  auto it = std::upper_bound(maps.begin(), maps.end(), address,
                             [](uint64_t a, const format::SampleMapping& m) { return a < m.start; });
  if (it == maps.begin()) return {};
  --it;
  if (address >= it->end) return {};
  size_t i = size_t(it - maps.begin());
  int module = i < mapping_module_.size() ? mapping_module_[i] : -1;
  if (module < 0) return {};
  auto vaddr = modules_[size_t(module)]->image.vaddr_of_offset(address - it->start + it->file_offset);
  if (!vaddr) return {};
  return {module, *vaddr};
}

}  // namespace covkit::sample
