#include "sample/perf_recording_builder.h"

#include <sys/mman.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <numeric>

namespace covkit::sample {

PerfRecordingBuilder::PerfRecordingBuilder(format::SampleRecording& rec, BuildIdLookup build_id, int32_t root,
                                           std::string executable)
    : rec_(rec), build_id_(std::move(build_id)), root_(root), root_executable_(std::move(executable)) {}

uint32_t PerfRecordingBuilder::new_image(int32_t pid, int32_t ppid, uint64_t now_ns) {
  format::SampleImage& image = rec_.images.emplace_back();
  image.id = uint32_t(rec_.images.size() - 1);
  image.pid = pid;
  image.ppid = ppid;
  image.start_ns = now_ns;
  state_.emplace_back();
  current_[pid] = image.id;
  return image.id;
}

uint32_t PerfRecordingBuilder::image_of(int32_t pid, uint64_t now_ns) {
  auto it = current_.find(pid);
  if (it != current_.end()) return it->second;
  // A process first seen by a record of its own: the root's first records,
  // or a process whose FORK came before the rings were read in order.
  const uint32_t id = new_image(pid, 0, now_ns);
  if (pid == root_) rec_.images[id].executable = root_executable_;
  return id;
}

void PerfRecordingBuilder::add(const format::PerfRecord& record, uint64_t now_ns) {
  if (const auto* s = std::get_if<format::PerfSample>(&record)) add_sample(*s, now_ns);
  else if (const auto* m = std::get_if<format::PerfMmap>(&record)) add_mapping(*m, now_ns);
  else if (const auto* c = std::get_if<format::PerfComm>(&record)) add_comm(*c, now_ns);
  else if (const auto* t = std::get_if<format::PerfTask>(&record)) add_task(*t, now_ns);
  else if (const auto* l = std::get_if<format::PerfLost>(&record))
    rec_.lost = l->count > UINT64_MAX - rec_.lost ? UINT64_MAX : rec_.lost + l->count;
}

void PerfRecordingBuilder::add_sample(const format::PerfSample& s, uint64_t now_ns) {
  const uint32_t image = image_of(int32_t(s.pid), now_ns);
  format::Sample& out = rec_.samples.emplace_back();
  out.image = image;
  out.tid = int32_t(s.tid);
  out.ip = s.ip;
  // The kernel walks frame pointers that code built without them does not
  // keep: the chain is believed up to its first address outside the
  // image's executable mappings.
  const auto& maps = rec_.images[image].mappings;
  for (uint64_t ret : format::perf_callchain_returns(s)) {
    const bool mapped = std::any_of(maps.begin(), maps.end(),
                                    [&](const format::SampleMapping& m) { return ret >= m.start && ret < m.end; });
    if (!mapped) break;
    out.stack.push_back(ret);
  }
  out.branches.assign(s.branches.rbegin(), s.branches.rend());  // the kernel's newest first -> oldest first
  rec_.vector_length = std::max(rec_.vector_length, uint32_t(s.branches.size()));
  ++state_[image].samples;
}

void PerfRecordingBuilder::add_mapping(const format::PerfMmap& m, uint64_t now_ns) {
  // Executable mappings of files, and the vdso, as the runtime lists them
  // (the analysis skips what has no file); not anonymous code (a JIT's).
  const bool vdso = m.path == "[vdso]";
  const bool file = !m.path.empty() && m.path[0] == '/' && m.path != "//anon";
  if (!(m.prot & PROT_EXEC) || (!file && !vdso) || m.length == 0) return;
  const uint32_t id = image_of(int32_t(m.pid), now_ns);
  format::SampleImage& image = rec_.images[id];
  format::SampleMapping mapping;
  mapping.start = m.start;
  mapping.end = m.start + m.length < m.start ? UINT64_MAX : m.start + m.length;
  mapping.file_offset = m.file_offset;
  mapping.path = m.path;
  if (vdso) {
    // The kernel's: no file, no build-id.
  } else if (m.build_id.empty()) {
    mapping.dev = makedev(m.major, m.minor);
    mapping.inode = m.inode;
    auto key = std::make_tuple(m.path, mapping.dev, mapping.inode);
    auto it = build_ids_.find(key);
    if (it == build_ids_.end()) it = build_ids_.emplace(key, build_id_ ? build_id_(m) : std::string()).first;
    mapping.build_id = it->second;
  } else {
    mapping.build_id = m.build_id;
  }
  // A new mapping replaces whatever it covers (mmap over an old range).
  std::erase_if(image.mappings, [&](const format::SampleMapping& old) {
    return old.start < mapping.end && mapping.start < old.end;
  });
  // An exec maps the program first, then its interpreter.
  if (image.executable.empty() && !state_[id].inherited && !vdso) image.executable = m.path;
  image.mappings.push_back(std::move(mapping));
}

void PerfRecordingBuilder::add_comm(const format::PerfComm& c, uint64_t now_ns) {
  if (!c.exec) return;  // a thread renamed itself
  const int32_t pid = int32_t(c.pid);
  auto it = current_.find(pid);
  if (it == current_.end()) {  // the root's exec, or a process met first here
    state_[image_of(pid, now_ns)].exec_seen = true;
    return;
  }
  ImageState& s = state_[it->second];
  // Mappings of this very exec may come before its COMM: keep them.
  if (!s.inherited && !s.exec_seen && s.samples == 0) {
    s.exec_seen = true;
    return;
  }
  const int32_t ppid = rec_.images[it->second].ppid;
  const uint32_t id = new_image(pid, ppid, now_ns);
  state_[id].exec_seen = true;
}

void PerfRecordingBuilder::add_task(const format::PerfTask& t, uint64_t now_ns) {
  if (t.pid != t.tid) return;  // a thread of a process began or ended
  if (!t.fork) {
    auto it = current_.find(int32_t(t.pid));
    if (it != current_.end()) rec_.images[it->second].ended = true;
    return;
  }
  if (t.pid == t.ppid) return;
  // A new process: its parent's address space, copied.
  const auto parent = current_.find(int32_t(t.ppid));
  const uint32_t id = new_image(int32_t(t.pid), int32_t(t.ppid), now_ns);
  state_[id].inherited = true;
  if (parent != current_.end()) {
    rec_.images[id].mappings = rec_.images[parent->second].mappings;
    rec_.images[id].executable = rec_.images[parent->second].executable;
  }
}

void PerfRecordingBuilder::root_ended(bool exited) {
  auto it = current_.find(root_);
  if (it != current_.end()) rec_.images[it->second].ended = exited;
}

void PerfRecordingBuilder::finish(Images keep) {
  // Image files are numbered per pid in order of creation, and read back in
  // (pid, n) order: renumber to that order so that ids survive the trip.
  std::vector<uint32_t> order(rec_.images.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return rec_.images[a].pid < rec_.images[b].pid; });
  std::vector<uint32_t> new_id(order.size());
  std::vector<format::SampleImage> images;
  images.reserve(order.size());
  for (uint32_t old : order) {
    if (keep == Images::sampled && state_[old].samples == 0) continue;  // no sample names it
    new_id[old] = uint32_t(images.size());
    images.push_back(std::move(rec_.images[old]));
    images.back().id = new_id[old];
    std::sort(images.back().mappings.begin(), images.back().mappings.end(),
              [](const format::SampleMapping& a, const format::SampleMapping& b) { return a.start < b.start; });
  }
  rec_.images = std::move(images);
  for (format::Sample& s : rec_.samples) s.image = new_id[s.image];
}

}  // namespace covkit::sample
