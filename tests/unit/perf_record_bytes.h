#pragma once
// perf_event records built byte by byte after linux/perf_event.h, for the
// tests of the ring records and of perf.data (this VM has no PMU: branch
// stacks can only be tested this way).
#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace covkit::testing {

// One record: fields appended, the header's size filled in by bytes().
class RecordBytes {
 public:
  RecordBytes(uint32_t type, uint16_t misc = 0) : type_(type), misc_(misc) {}
  RecordBytes& u32(uint32_t v) { return raw(&v, 4); }
  RecordBytes& u64(uint64_t v) { return raw(&v, 8); }
  RecordBytes& string(const std::string& s) {  // NUL-terminated, padded to 8
    body_.insert(body_.end(), s.begin(), s.end());
    do body_.push_back(0);
    while (body_.size() % 8);
    return *this;
  }
  RecordBytes& append(const std::vector<uint8_t>& b) {
    body_.insert(body_.end(), b.begin(), b.end());
    return *this;
  }
  // sample_id_all with IP|TID|TIME: pid, tid, time.
  RecordBytes& sample_id(uint32_t pid, uint32_t tid, uint64_t time) { return u32(pid).u32(tid).u64(time); }
  std::vector<uint8_t> bytes() const {
    perf_event_header h{type_, misc_, uint16_t(sizeof h + body_.size())};
    std::vector<uint8_t> out(sizeof h);
    std::memcpy(out.data(), &h, sizeof h);
    out.insert(out.end(), body_.begin(), body_.end());
    return out;
  }

 private:
  RecordBytes& raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    body_.insert(body_.end(), b, b + n);
    return *this;
  }
  uint32_t type_;
  uint16_t misc_;
  std::vector<uint8_t> body_;
};

}  // namespace covkit::testing
