#include "sample/breakpoint_plan.h"

#include <algorithm>

#include "sample/elf_module_file.h"

namespace covkit::sample {

const ModulePlan* BreakpointPlan::find(const std::string& path, const std::string& build_id) const {
  if (!build_id.empty())
    for (const ModulePlan& m : modules)
      if (m.build_id == build_id) return &m;
  for (const ModulePlan& m : modules)
    if ((m.build_id.empty() || build_id.empty()) && m.path == path) return &m;
  return nullptr;
}

BreakpointProvider plan_provider(BreakpointPlan plan) {
  return [plan = std::move(plan)](const ModuleIdentity& module) -> Expected<std::vector<uint64_t>> {
    const ModulePlan* m = plan.find(module.path, module.build_id);
    return m ? m->vaddrs : std::vector<uint64_t>{};
  };
}

BreakpointProvider function_entry_provider(std::vector<std::string> only) {
  return [only = std::move(only)](const ModuleIdentity& module) -> Expected<std::vector<uint64_t>> {
    if (!only.empty() && std::find(only.begin(), only.end(), module.path) == only.end())
      return std::vector<uint64_t>{};
    return function_entries(module.read_by());
  };
}

std::optional<uint64_t> file_to_runtime(uint64_t vaddr, std::span<const live::LoadSegment> loads,
                                        std::span<const format::SampleMapping> mappings) {
  for (const live::LoadSegment& seg : loads) {
    if (!seg.executable || vaddr < seg.vaddr || vaddr - seg.vaddr >= seg.memsz) continue;
    uint64_t offset = seg.offset + (vaddr - seg.vaddr);
    for (const format::SampleMapping& m : mappings)
      if (offset >= m.file_offset && offset - m.file_offset < m.end - m.start)
        return m.start + (offset - m.file_offset);
  }
  return std::nullopt;
}

std::optional<uint64_t> runtime_to_file(uint64_t address, std::span<const live::LoadSegment> loads,
                                        std::span<const format::SampleMapping> mappings) {
  for (const format::SampleMapping& m : mappings) {
    if (address < m.start || address >= m.end) continue;
    uint64_t offset = m.file_offset + (address - m.start);
    for (const live::LoadSegment& seg : loads)
      if (seg.executable && offset >= seg.offset && offset - seg.offset < seg.memsz)
        return seg.vaddr + (offset - seg.offset);
  }
  return std::nullopt;
}

}  // namespace covkit::sample
