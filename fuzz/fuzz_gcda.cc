// Fuzzes the data reader and writer: whatever read_data accepts must be
// written by write_data in a form that reads back as the same records, and
// writing that again must give the same bytes. The writer never invents
// payload: its output is at most the input plus the end-of-file word.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <variant>
#include <vector>

#include "format/gcda_reader.h"
#include "format/gcda_writer.h"

using namespace covkit::format;

namespace {

[[noreturn]] void fail(const char* what, size_t index) {  // index: a record, or a size
  std::fprintf(stderr, "fuzz_gcda: %s (%zu)\n", what, index);
  std::abort();
}

void expect_same(const DataFile& a, const DataFile& b) {
  if (a.version.raw != b.version.raw || a.stamp != b.stamp || a.checksum != b.checksum || a.swapped != b.swapped)
    fail("header changed", 0);
  if (a.records.size() != b.records.size()) fail("record count changed", a.records.size());
  for (size_t i = 0; i < a.records.size(); ++i) {
    const DataRecord& x = a.records[i];
    const DataRecord& y = b.records[i];
    if (x.kind != y.kind || x.tag != y.tag) fail("record kind or tag changed", i);
    switch (x.kind) {
      case DataRecord::Kind::kSummary:
        if (x.runs != y.runs || x.sum_max != y.sum_max) fail("summary changed", i);
        break;
      case DataRecord::Kind::kFunction:
        if (x.has_ids != y.has_ids) fail("function ids appeared or vanished", i);
        if (x.has_ids && (x.ident != y.ident || x.lineno_checksum != y.lineno_checksum ||
                          x.cfg_checksum != y.cfg_checksum))
          fail("function ids changed", i);
        break;
      case DataRecord::Kind::kCounters:
        // A record of no counters is empty whichever form it was written in.
        if (x.num_counters == 0 && y.num_counters == 0 && x.counters.empty() && y.counters.empty()) break;
        if (x.all_zero != y.all_zero || x.num_counters != y.num_counters || x.counters != y.counters)
          fail("counters changed", i);
        break;
      case DataRecord::Kind::kOther:
        if (x.words != y.words) fail("payload changed", i);
        break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto first = read_data(std::span<const uint8_t>(data, size));
  auto* df = (first ? &*first : nullptr);
  if (!df) return 0;
  // The writer leaves out a record the file ends inside (gcov's reading of
  // it, zeros for what is missing): compare without it.
  if (!df->records.empty() && df->records.back().cut_short) df->records.pop_back();
  std::vector<uint8_t> written = write_data(*df);
  if (written.size() > size + 4) fail("writer output longer than its input (bytes written)", written.size());
  auto second = read_data(written);
  auto* df2 = (second ? &*second : nullptr);
  if (!df2) fail("written file does not read back", 0);
  if (df2->error) fail("written file reads back as corrupt", df2->records.size());
  expect_same(*df, *df2);
  if (write_data(*df2) != written) fail("second write differs from the first", 0);

  // Compacting zero counters keeps the counts and stays a fixed point.
  DataFile compacted = *df;
  compact_zero_counters(compacted);
  std::vector<uint8_t> cw = write_data(compacted);
  auto third = read_data(cw);
  auto* df3 = (third ? &*third : nullptr);
  if (!df3 || df3->error) fail("compacted file does not read back", 0);
  if (df3->records.size() != df->records.size()) fail("compacting changed the record count", 0);
  return 0;
}
