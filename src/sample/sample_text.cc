#include "sample/sample_text.h"

#include <fmt/format.h>

#include "runtime/sample/sample_contract.h"
#include "util/printable.h"

namespace covkit::sample {

namespace {

std::string stop_name(uint32_t stop) {
  std::string out;
  for (auto [bit, name] : {std::pair{CKS_SAMPLE_STOP_VECTOR, "vector"}, std::pair{CKS_SAMPLE_STOP_CAP, "cap"},
                           std::pair{CKS_SAMPLE_STOP_SYSCALL, "syscall"}, std::pair{CKS_SAMPLE_STOP_BLOCKED, "blocked"}})
    if (stop & static_cast<uint32_t>(bit)) out += (out.empty() ? "" : ",") + std::string(name);
  return out.empty() ? "-" : out;
}

void addresses(std::string& out, const char* kind, const std::vector<uint64_t>& list) {
  out += fmt::format("  {} {}", kind, list.size());
  for (uint64_t a : list) out += fmt::format(" {:#x}", a);
  out += '\n';
}

}  // namespace

std::string recording_text(const format::SampleRecording& rec, bool with_steps) {
  std::string out = fmt::format("recording mode={} period_ns={} vector_length={} start={} covkit={}\n", rec.mode,
                                rec.period_ns, rec.vector_length, util::printable(rec.start_time),
                                util::printable(rec.covkit_version));
  std::string command;
  for (const std::string& w : rec.command) command += " " + util::printable(w);
  out += "command" + command + "\n";
  for (const format::SampleImage& im : rec.images) {
    out += fmt::format("image {} pid={} ppid={} ended={} file={} exe={}\n", im.id, im.pid, im.ppid, im.ended ? 1 : 0,
                       util::printable(im.file), util::printable(im.executable));
    for (const format::SampleMapping& m : im.mappings)
      out += fmt::format("  mapping {:#x}-{:#x} offset={:#x} build_id={} path={}\n", m.start, m.end, m.file_offset,
                         m.build_id.empty() ? "-" : m.build_id, util::printable(m.path));
  }
  for (const format::Sample& s : rec.samples) {
    out += fmt::format("sample image={} tid={} ip={:#x} stack={} steps={} branches={} stop={}\n", s.image, s.tid, s.ip,
                       s.stack.size(), s.steps.size(), s.branches.size(), stop_name(s.stop));
    if (!s.stack.empty()) addresses(out, "stack", s.stack);
    if (with_steps && !s.steps.empty()) addresses(out, "steps", s.steps);
    if (with_steps && !s.branches.empty()) {
      out += fmt::format("  branches {}", s.branches.size());
      for (const format::BranchPair& b : s.branches) out += fmt::format(" {:#x}->{:#x}", b.from, b.to);
      out += '\n';
    }
  }
  for (const format::BlockHit& h : rec.hits) out += fmt::format("hit image={} address={:#x}\n", h.image, h.address);
  for (const format::BlockHit& h : rec.planted) out += fmt::format("planted image={} address={:#x}\n", h.image, h.address);
  for (const std::string& w : rec.warnings) out += "warning " + util::printable(w) + "\n";
  out += fmt::format("lost {}\n", rec.lost);
  return out;
}

}  // namespace covkit::sample
