#pragma once
// The rings of a PerfEventSession read into a PerfRecordingBuilder while
// the program runs. Each CPU has its ring: a thread's sample on one CPU may
// be read before its process's exec or fork on another. Records go to the
// builder in time order, and those of the last moments wait for the next
// read (a record is stamped a little before it lands in its ring).
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "format/perf_event_records.h"
#include "format/sample_records.h"
#include "sample/perf_event_session.h"
#include "sample/perf_recording_builder.h"

namespace covkit::sample {

class PerfRingReader {
 public:
  PerfRingReader(PerfEventSession& session, PerfRecordingBuilder& builder, format::SampleRecording& rec);

  // Waits for the rings (50 ms at most), reads them and draws new periods.
  void step();
  // Everything left, once sampling is over.
  void finish();

 private:
  void drain(bool all);

  PerfEventSession& session_;
  PerfRecordingBuilder& builder_;
  format::SampleRecording& rec_;
  std::mt19937_64 random_;
  std::vector<format::PerfRecord> pending_;  // read, not yet given to the builder (time order)
  std::vector<std::string> warnings_;
  size_t warnings_total_ = 0;
};

}  // namespace covkit::sample
