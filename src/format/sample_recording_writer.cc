#include "format/sample_recording_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <system_error>
#include <vector>

#include "runtime/sample/sample_contract.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/printable.h"

namespace covkit::format {

namespace {

// One record in the runtime's layout: header, then fields put at offsets.
class RecordBytes {
 public:
  explicit RecordBytes(size_t fixed) : bytes_(fixed, '\0') {}
  void put32(size_t at, uint32_t v) { std::memcpy(bytes_.data() + at, &v, 4); }
  void put64(size_t at, uint64_t v) { std::memcpy(bytes_.data() + at, &v, 8); }
  void append(const void* p, size_t n) { bytes_.append(static_cast<const char*>(p), n); }
  void append_c_string(const std::string& s) { bytes_.append(s.c_str(), s.size() + 1); }
  void finish_into(std::string& out, uint16_t kind, uint16_t flags = 0) {
    bytes_.resize((bytes_.size() + 7) & ~size_t{7}, '\0');
    put32(0, CKS_MAGIC);
    put32(4, uint32_t{kind} | uint32_t{flags} << 16);
    put32(8, static_cast<uint32_t>(bytes_.size()));
    out += bytes_;
  }
  size_t size() const { return bytes_.size(); }

 private:
  std::string bytes_;
};

std::string unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

// The image's planted sites as PLANTED_SET records, as the runtime writes them.
void encode_planted(const SampleRecording& rec, const SampleImage& image, std::string& out) {
  std::vector<uint64_t> sites;
  for (const BlockHit& h : rec.planted)
    if (h.image == image.id) sites.push_back(h.address);
  std::sort(sites.begin(), sites.end());
  sites.erase(std::unique(sites.begin(), sites.end()), sites.end());
  constexpr size_t kRecordBytes = size_t{1} << 16;
  for (size_t i = 0; i < sites.size();) {
    RecordBytes r(CKS_SET_FIXED);
    r.put64(CKS_SET_FIRST, sites[i]);
    uint32_t count = 1;
    for (++i; i < sites.size() && r.size() + CKS_ULEB_MAX <= kRecordBytes; ++i, ++count) {
      unsigned char gap[CKS_ULEB_MAX];
      r.append(gap, cks_put_uleb128(gap, sites[i] - sites[i - 1]));
    }
    r.put32(CKS_SET_COUNT, count);
    r.finish_into(out, CKS_KIND_PLANTED_SET);
  }
}

Expected<std::string> encode_image(const SampleRecording& rec, const SampleImage& image) {
  std::string out;
  RecordBytes head(CKS_IMAGE_FIXED);
  head.put32(CKS_IMAGE_PID, static_cast<uint32_t>(image.pid));
  head.put32(CKS_IMAGE_PPID, static_cast<uint32_t>(image.ppid));
  head.put64(CKS_IMAGE_START_NS, image.start_ns);
  head.append_c_string(image.executable);
  head.finish_into(out, CKS_KIND_IMAGE);
  for (const SampleMapping& m : image.mappings) {
    std::string id = unhex(m.build_id);
    if (id.size() > CKS_MAX_BUILD_ID) return Error(fmt::format("build-id {} is longer than {} bytes", m.build_id, int{CKS_MAX_BUILD_ID}));
    RecordBytes r(CKS_MAP_FIXED);
    r.put64(CKS_MAP_START, m.start);
    r.put64(CKS_MAP_END, m.end);
    r.put64(CKS_MAP_OFFSET, m.file_offset);
    r.put64(CKS_MAP_DEV, m.dev);
    r.put64(CKS_MAP_INODE, m.inode);
    r.put32(CKS_MAP_BUILD_ID_SIZE, static_cast<uint32_t>(id.size()));
    r.put32(CKS_MAP_PATH_SIZE, static_cast<uint32_t>(m.path.size() + 1));
    r.append(id.data(), id.size());
    r.append_c_string(m.path);
    r.finish_into(out, CKS_KIND_MAPPING);
  }
  for (const Sample& s : rec.samples) {
    if (s.image != image.id) continue;
    RecordBytes r(CKS_SAMPLE_FIXED);
    r.put32(CKS_SAMPLE_TID, static_cast<uint32_t>(s.tid));
    r.put32(CKS_SAMPLE_NSTACK, static_cast<uint32_t>(s.stack.size()));
    r.put32(CKS_SAMPLE_NSTEPS, static_cast<uint32_t>(s.steps.size()));
    uint32_t taken = 0;
    for (size_t i = 1; i < s.steps.size(); ++i)
      if (s.steps[i] - s.steps[i - 1] - 1 >= 15) ++taken;
    r.put32(CKS_SAMPLE_TAKEN, taken);
    r.put64(CKS_SAMPLE_IP, s.ip);
    r.append(s.stack.data(), 8 * s.stack.size());
    r.append(s.steps.data(), 8 * s.steps.size());
    if (r.size() > CKS_MAX_RECORD) return Error(fmt::format("a sample of {} steps is too large for one record", s.steps.size()));
    r.finish_into(out, CKS_KIND_SAMPLE, static_cast<uint16_t>(s.stop));
    if (!s.branches.empty()) {
      RecordBytes b(CKS_REC_HEADER);
      for (const BranchPair& p : s.branches) {
        b.append(&p.from, 8);
        b.append(&p.to, 8);
      }
      if (b.size() > CKS_MAX_RECORD) return Error(fmt::format("a sample of {} branches is too large for one record", s.branches.size()));
      b.finish_into(out, CKS_KIND_BRANCHES);
    }
  }
  for (const BlockHit& h : rec.hits) {
    if (h.image != image.id) continue;
    RecordBytes r(CKS_HIT_FIXED);
    r.put64(CKS_HIT_ADDRESS, h.address);
    r.finish_into(out, CKS_KIND_HIT);
  }
  encode_planted(rec, image, out);
  if (image.ended) {
    RecordBytes r(CKS_END_FIXED);
    r.finish_into(out, CKS_KIND_END);
  }
  return out;
}

}  // namespace

Expected<void> write_recording_json(const std::string& dir, const SampleRecording& rec) {
  nlohmann::json j = {{"format", "covkit-sample-recording"},
                      {"mode", rec.mode},
                      {"period_ns", rec.period_ns},
                      {"vector_length", rec.vector_length},
                      {"command", rec.command},
                      {"start_time", rec.start_time},
                      {"covkit_version", rec.covkit_version}};
  if (rec.lost) j["lost"] = rec.lost;
  if (!rec.warnings.empty()) j["warnings"] = rec.warnings;
  if (rec.attached) j["attached"] = true;
  for (const LeftOutImage& l : rec.left_out)
    j["left_out"].push_back({{"path", l.path}, {"build_id", l.build_id}, {"reason", l.reason}});
  for (const UnplantedFunction& u : rec.unplanted)
    j["unplanted"].push_back({{"path", u.path}, {"function", u.function}, {"reason", u.reason}});
  // Whose data this holds, kept for its readers: covkit's own recording of
  // another user's data would otherwise be read with covkit's rights only.
  std::vector<uint32_t> owners = rec.data_owners;
  for (const util::DataOwner& o : util::foreign_owners()) owners.push_back(o.uid);
  std::sort(owners.begin(), owners.end());
  owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
  if (!owners.empty()) j["data_owners"] = owners;
  // Invalid UTF-8 in a command's argument is replaced, not a failure.
  std::string text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  auto ok = util::write_file_atomic(dir + "/" + CKS_RECORDING_JSON, text);
  if (!ok) return Error(fmt::format("{}: {}", CKS_RECORDING_JSON, ok.error().message));
  return {};
}

Expected<void> write_sample_recording(const std::string& dir, const SampleRecording& rec) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error(fmt::format("cannot create {}: {}", util::printable(dir), ec.message()));
  for (const Sample& s : rec.samples)
    if (s.image >= rec.images.size()) return Error(fmt::format("a sample of image {}, which does not exist", s.image));
  if (auto ok = write_recording_json(dir, rec); !ok) return ok;
  std::map<int32_t, uint32_t> per_pid;
  for (const SampleImage& image : rec.images) {
    if (image.pid <= 0) return Error(fmt::format("image {} has no pid (a file name needs one)", image.id));
    auto bytes = encode_image(rec, image);
    if (!bytes) return bytes.error();
    std::string name = fmt::format("{}-{}{}", image.pid, per_pid[image.pid]++, CKS_FILE_SUFFIX);
    auto ok = util::write_file_atomic(dir + "/" + name, *bytes);
    if (!ok) return Error(fmt::format("{}: {}", name, ok.error().message));
  }
  return {};
}

}  // namespace covkit::format
