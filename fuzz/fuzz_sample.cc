// Fuzzes the readers of covkit sample's inputs: a recording's IMAGE.cks
// bytes (written by the runtime inside an arbitrary program, so never
// trusted), recording.json, perf's branch-stack text, the records of a
// perf_event_open ring buffer (with what the recorder builds from them)
// and perf.data files.
// Input: [kind:1][bytes]; kind % 4: 0 = .cks, 1 = recording.json, 2 = perf
// text (brstack when kind / 4 is odd, brstackoff when even), 3 = ring
// records (kind / 4: bit 0 call chains, bit 1 branch stacks) or, when
// kind / 16 is odd, a whole perf.data imported.
// No input may crash, hang or trip a sanitizer, and what a reader accepts
// must be no bigger than the input can hold.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>

#include "format/perf_event_records.h"
#include "format/sample_recording_reader.h"
#include "sample/perf_data_import.h"
#include "sample/perf_recording_builder.h"
#include "sample/perf_script_import.h"

using namespace covkit;

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_sample: %s\n", what);
  std::abort();
}

// Every address a sample holds came from 8 bytes of the input.
void check_bounded(const format::SampleRecording& rec, size_t input_size) {
  size_t words = 0;
  for (const format::Sample& s : rec.samples) words += s.steps.size() + s.stack.size() + 2 * s.branches.size();
  words += rec.hits.size() + rec.planted.size();
  if (words * 8 > input_size * 8 + 64) fail("more addresses than the input holds");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::span<const uint8_t> bytes(data + 1, size - 1);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 4) {
    case 0: {
      format::SampleRecording rec;
      if (format::read_sample_file(bytes, "1-0.cks", rec)) check_bounded(rec, bytes.size());
      break;
    }
    case 1: {
      format::SampleRecording rec;
      (void)format::read_recording_json(text, rec);
      break;
    }
    case 2: {
      const auto addresses = (data[0] / 4) % 2 ? sample::PerfAddresses::absolute : sample::PerfAddresses::dso_offsets;
      auto rec = sample::import_perf_script(text, {}, addresses);
      if (rec) check_bounded(*rec, bytes.size());
      break;
    }
    default: {
      if (data[0] / 16 & 1) {
        // Build-ids of the files it names are not read from this machine.
        auto rec = sample::import_perf_data(bytes, [](const std::string&) { return std::string(); });
        if (rec) check_bounded(*rec, bytes.size());
        break;
      }
      const format::PerfSampleLayout layout =
          format::perf_ring_layout((data[0] / 4 & 1) != 0, (data[0] / 4 & 2) != 0);
      std::vector<format::PerfRecord> records;
      (void)format::parse_perf_records(bytes, layout, records);  // what came before a damaged record stays
      format::SampleRecording rec;
      sample::PerfRecordingBuilder builder(rec, [](const format::PerfMmap&) { return std::string(); }, 1, "/prog");
      for (const format::PerfRecord& r : records) builder.add(r, 0);
      builder.root_ended(true);
      builder.finish();
      check_bounded(rec, bytes.size());
      for (const format::Sample& s : rec.samples)
        if (s.image >= rec.images.size()) fail("a sample of no image");
      break;
    }
  }
  return 0;
}
