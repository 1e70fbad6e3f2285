// Fuzzes `covkit live unpack`'s readers: the binary coverage stream (first
// byte even) or its ':gcov:' hex form (first byte odd), then the unpacking.
// Round-trip properties: a stream the reader accepts is exactly the bytes
// its entries write back to (gcfn header + write_data); decoded hex bytes
// encoded again decode to the same bytes; every unpacked file reads back
// as a clean .gcda whose runs count the dumps it holds.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/gcda_reader.h"
#include "format/gcda_writer.h"
#include "format/gcov_hex_dump.h"
#include "format/gcov_stream_reader.h"
#include "model/stream_unpack.h"

using namespace covkit;

namespace {

[[noreturn]] void fail(const char* what, size_t index) {
  std::fprintf(stderr, "fuzz_stream: %s (%zu)\n", what, index);
  std::abort();
}

void put_word(std::vector<uint8_t>& out, uint32_t v, bool swapped) {
  if (swapped) v = __builtin_bswap32(v);
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + 4);
}

// The stream the entries describe, as a target would send it.
std::vector<uint8_t> write_stream(const format::GcovStream& stream) {
  std::vector<uint8_t> out;
  for (const format::StreamEntry& e : stream.entries) {
    const bool swapped = e.data.swapped;
    put_word(out, format::kFilenameMagic, swapped);
    put_word(out, e.data.version.raw, swapped);
    put_word(out, uint32_t(e.filename.size() + 1), swapped);
    out.insert(out.end(), e.filename.begin(), e.filename.end());
    out.push_back(0);
    std::vector<uint8_t> data = format::write_data(e.data);
    out.insert(out.end(), data.begin(), data.end());
  }
  return out;
}

void check_hex_round_trip(const format::HexDump& dump) {
  std::string text;
  for (size_t at = 0; at < dump.bytes.size(); at += 32) {
    const auto* p = reinterpret_cast<const char*>(dump.bytes.data()) + at;
    text += format::encode_hex_line(uint32_t(at), std::string_view(p, std::min<size_t>(32, dump.bytes.size() - at)));
    text += "\r\n";
  }
  text += format::encode_hex_line(uint32_t(dump.bytes.size()), "") + "\n";
  auto again = format::decode_hex_dump(text);
  if (!again) fail("re-encoded hex does not decode", 0);
  if (again->bytes != dump.bytes) fail("re-encoded hex decodes to other bytes", again->bytes.size());
}

void check_unpack(const format::GcovStream& stream) {
  // A directory that does not exist: nothing is there to add to, nothing is written.
  auto result = model::unpack_stream(stream, "/nonexistent/covkit-fuzz-stream", {});
  if (!result) return;
  // Runs add up in 32 bits, wrapping as libgcov's do: a summary the stream
  // brings with a huge count may wrap below the dumps.
  bool huge = false;
  for (const format::StreamEntry& e : stream.entries)
    for (const format::DataRecord& r : e.data.records)
      if (r.kind == format::DataRecord::Kind::kSummary && r.runs > UINT32_MAX / 2) huge = true;
  for (size_t i = 0; i < result->files.size(); ++i) {
    const model::UnpackedFile& f = result->files[i];
    auto bytes = std::span(reinterpret_cast<const uint8_t*>(f.bytes.data()), f.bytes.size());
    auto data = format::read_data(bytes);
    if (!data || data->error) fail("an unpacked file does not read back", i);
    uint32_t runs = 0;
    for (const format::DataRecord& r : data->records)
      if (r.kind == format::DataRecord::Kind::kSummary) runs += r.runs;
    if (runs < f.dumps && !huge) fail("an unpacked file counts fewer runs than its dumps", i);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool hex = data[0] & 1;
  std::span<const uint8_t> input(data + 1, size - 1);
  std::vector<uint8_t> decoded;
  if (hex) {
    auto dump = format::decode_hex_dump(std::string_view(reinterpret_cast<const char*>(input.data()), input.size()));
    if (!dump) return 0;
    check_hex_round_trip(*dump);
    decoded = std::move(dump->bytes);
    input = decoded;
  }
  auto stream = format::read_gcov_stream(input);
  if (!stream) {
    if (!stream.error().offset || *stream.error().offset > input.size()) fail("an error outside the stream", 0);
    return 0;
  }
  const std::vector<uint8_t> written = write_stream(*stream);
  if (written.size() != input.size() || !std::equal(written.begin(), written.end(), input.begin()))
    fail("the stream does not write back to its own bytes", written.size());
  check_unpack(*stream);
  return 0;
}
