#include "sample/steps_to_branches.h"

#include "sample/instruction_decoder.h"
#include "util/file_io.h"
#include "util/foreign_data.h"

namespace covkit::sample {

std::vector<format::BranchPair> steps_to_branches(const std::vector<uint64_t>& steps, const InstructionLength& length) {
  std::vector<format::BranchPair> out;
  for (size_t i = 0; i + 1 < steps.size(); ++i) {
    uint64_t here = steps[i], next = steps[i + 1];
    if (next == here) continue;
    std::optional<uint32_t> len = length(here);
    bool taken = len ? next != here + *len : (next < here || next - here > 15);
    if (taken) out.push_back({here, next});
  }
  return out;
}

struct ImageDecoder::Files {
  std::map<std::string, std::optional<util::FileData>> data;  // by path; nullopt: unreadable
};

ImageDecoder::ImageDecoder(const format::SampleImage& image) : image_(image), files_(std::make_unique<Files>()) {}

ImageDecoder::~ImageDecoder() = default;

std::optional<uint32_t> ImageDecoder::length(uint64_t address) {
  for (const format::SampleMapping& m : image_.mappings) {
    if (address < m.start || address >= m.end) continue;
    auto [it, added] = files_->data.try_emplace(m.path);
    if (added) {
      // A module a recording names (another user's data): read with the
      // rights of the recording's owner (util/foreign_data.h).
      auto data = util::read_named_file(m.path);
      if (data) it->second = std::move(*data);
    }
    if (!it->second) return std::nullopt;
    auto bytes = it->second->bytes();
    uint64_t offset = m.file_offset + (address - m.start);
    if (offset >= bytes.size()) return std::nullopt;
    return instruction_length(bytes.subspan(offset, std::min<size_t>(15, bytes.size() - offset)));
  }
  return std::nullopt;
}

void fill_branches(format::SampleRecording& rec) {
  std::vector<std::unique_ptr<ImageDecoder>> decoders;
  for (const format::SampleImage& im : rec.images) decoders.push_back(std::make_unique<ImageDecoder>(im));
  for (format::Sample& s : rec.samples) {
    if (s.steps.empty() || !s.branches.empty() || s.image >= decoders.size()) continue;
    ImageDecoder& d = *decoders[s.image];
    s.branches = steps_to_branches(s.steps, [&d](uint64_t a) { return d.length(a); });
  }
}

}  // namespace covkit::sample
