#pragma once
// The single-step emulation's evidence (Sample::steps, every address a
// thread stepped to) turned into the taken branches a PMU's branch stack
// would have listed: step i is followed by a taken branch when step i+1 is
// not step i plus the length of the instruction at step i. Lengths come
// from decoding (instruction_decoder) the mapped files' bytes; where a file
// cannot be read, a jump of more than 15 bytes (or backwards) stands in.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "format/sample_records.h"

namespace covkit::sample {

// The length of the instruction at an address, when it is known.
using InstructionLength = std::function<std::optional<uint32_t>(uint64_t address)>;

// Oldest first, as Sample::branches. A repeated address (rep prefixes,
// single-stepped once per iteration) is no branch.
std::vector<format::BranchPair> steps_to_branches(const std::vector<uint64_t>& steps, const InstructionLength& length);

// Instruction lengths of one image, from the files of its mappings.
class ImageDecoder {
 public:
  explicit ImageDecoder(const format::SampleImage& image);
  ~ImageDecoder();
  std::optional<uint32_t> length(uint64_t address);

 private:
  struct Files;
  const format::SampleImage& image_;
  std::unique_ptr<Files> files_;
};

// Fills Sample::branches of every sample that has steps and no branches yet.
void fill_branches(format::SampleRecording& rec);

}  // namespace covkit::sample
