#pragma once
// Absolute addresses of a recorded process into (module, file-relative
// vaddr): the mapping holding the address gives the file offset
// (address - start + file_offset), and the module's program headers turn
// that into the ELF's own vaddr, so PIE, ASLR and shared libraries need no
// load bias of their own.
#include <cstdint>
#include <vector>

#include "format/sample_records.h"
#include "sample/module_cfg.h"
#include "sample/path_recovery.h"

namespace covkit::sample {

class AddressMap {
 public:
  // mapping_module[i]: index in `modules` of image.mappings[i]'s file, or
  // -1 when that file is not analyzed.
  AddressMap(const format::SampleImage& image, std::vector<int> mapping_module,
             const std::vector<const ModuleCfg*>& modules);

  Located locate(uint64_t address) const;

 private:
  const format::SampleImage& image_;
  std::vector<int> mapping_module_;
  const std::vector<const ModuleCfg*>& modules_;
};

}  // namespace covkit::sample
