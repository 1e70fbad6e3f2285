#include "format/gcov_stream_reader.h"

#include <fmt/format.h>

#include <cstring>

#include "format/byte_reader.h"
#include "format/gcda_reader.h"
#include "format/gcov_tags.h"
#include "util/printable.h"

namespace covkit::format {

namespace {

uint32_t load_word(std::span<const uint8_t> bytes, size_t at) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + at, 4);
  return v;
}

bool is_magic(uint32_t word, uint32_t magic) { return word == magic || __builtin_bswap32(word) == magic; }

// Why the 4 bytes at `at` do not start an entry.
Error not_an_entry(std::span<const uint8_t> bytes, size_t at) {
  const uint32_t word = load_word(bytes, at);
  if (at == 0 && is_magic(word, kDataMagic))
    return Error(0, "a .gcda file, not a stream (no \"gcfn\" header naming it)");
  if (at == 0) return Error(0, "not a gcov stream (it starts without a \"gcfn\" header)");
  return Error(at, fmt::format("expected the \"gcfn\" header of the next file, found 0x{:08x}", word));
}

// The record kinds __gcov_info_to_gcda writes, with the lengths it gives
// them (in bytes: streams exist from GCC 12 on). A record of another kind or
// length means the stream is not what libgcov sent, even if it parses.
std::optional<std::string> unexpected_record(const DataRecord& rec) {
  switch (rec.kind) {
    case DataRecord::Kind::kFunction:
      if (rec.length == 0 || rec.length == 12) return std::nullopt;  // not 13..15: has_ids counts whole words
      return fmt::format("function record of {} bytes (libgcov writes 0 or 12)", rec.length);
    case DataRecord::Kind::kCounters: {
      const uint32_t magnitude = rec.all_zero ? 0u - rec.length : rec.length;
      if (magnitude % 8 == 0) return std::nullopt;
      return fmt::format("counter record of {} bytes (not whole 8-byte counters)", magnitude);
    }
    case DataRecord::Kind::kSummary:
      if (rec.length == 8) return std::nullopt;
      return fmt::format("object summary of {} bytes (libgcov writes 8)", rec.length);
    case DataRecord::Kind::kOther:
      break;
  }
  return fmt::format("record tag 0x{:08x} is not one libgcov writes into a stream", rec.tag);
}

// The "gcfn" header at `at`: magic, version, name. Sets `entry`'s name and
// returns the offset of the data after it.
Expected<size_t> read_header(std::span<const uint8_t> bytes, size_t at, StreamEntry& entry, GcovVersion& version,
                             bool& swapped) {
  ByteReader r(bytes.subspan(at));
  if (!r.read_magic(kFilenameMagic)) return not_an_entry(bytes, at);
  swapped = r.swapped();
  auto raw = r.u32();
  if (!raw) return Error(at + 4, "the stream ends inside a \"gcfn\" header");
  auto v = GcovVersion::decode(*raw);
  if (!v || !v->supported()) return Error(at + 4, unsupported_version_message(*raw));
  // __gcov_info_to_gcda came with GCC 12, whose layout (lengths in bytes,
  // unpadded strings) the rest of this reader assumes.
  if (!v->lengths_in_bytes())
    return Error(at + 4, fmt::format("version '{}': GCC {} has no freestanding stream (GCC 12 and later)",
                                     v->four_chars(), v->major));
  version = *v;
  auto length = r.u32();
  if (!length) return Error(at + 8, "the stream ends inside a \"gcfn\" header");
  if (*length == 0) return Error(at + 8, "the \"gcfn\" header names no file (a NULL name)");
  if (*length > kMaxStreamFileName)
    return Error(at + 8, fmt::format("a file name of {} bytes (at most {})", *length, kMaxStreamFileName));
  if (*length > r.remaining())
    return Error(at + 8, fmt::format("a file name of {} bytes runs past the end of the stream ({} bytes left)",
                                     *length, r.remaining()));
  const auto* name = reinterpret_cast<const char*>(bytes.data() + at + 12);
  const size_t n = *length - 1;
  if (name[n] != '\0') return Error(at + 12, "the file name does not end with a NUL byte");
  if (std::memchr(name, '\0', n)) return Error(at + 12, "the file name holds a NUL byte");
  entry.filename.assign(name, n);
  return at + 12 + *length;
}

// The .gcda bytes at `at`, up to and including their end word.
Expected<void> read_entry_data(std::span<const uint8_t> bytes, size_t at, const GcovVersion& version,
                               bool swapped, StreamEntry& entry) {
  const std::string name = util::printable(entry.filename);
  auto data = read_data(bytes.subspan(at));
  if (!data) {
    const auto& e = data.error();
    return Error(at, fmt::format("{}: {}", name,
                                 e.problem == HeaderProblem::kNotThisKind ? "no \"gcda\" data after the file name"
                                 : e.problem == HeaderProblem::kTruncatedHeader ? "the stream ends inside the header"
                                                                                 : e.message));
  }
  // One target writes both in its byte order.
  if (data->swapped != swapped)
    return Error(at, fmt::format("{}: data in the other byte order than its \"gcfn\" header", name));
  if (data->version.raw != version.raw)
    return Error(at + 4, fmt::format("{}: data of version '{}' under a \"gcfn\" header of version '{}'", name,
                                     data->version.four_chars(), version.four_chars()));
  if (data->error) return Error(at + data->error->offset.value_or(0), fmt::format("{}: {}", name, data->error->message));
  if (!data->terminated)
    return Error(at + data->bytes_read,
                 fmt::format("{}: the stream ends inside this file's data (its end word is missing)", name));
  for (const DataRecord& rec : data->records)
    if (auto why = unexpected_record(rec)) return Error(at + rec.offset, fmt::format("{}: {}", name, *why));
  entry.data = std::move(*data);
  return {};
}

}  // namespace

bool looks_like_binary_stream(std::span<const uint8_t> bytes) {
  return bytes.size() >= 4 && is_magic(load_word(bytes, 0), kFilenameMagic);
}

Expected<GcovStream> read_gcov_stream(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return Error(0, "the stream is empty");
  GcovStream stream;
  size_t at = 0;
  while (at < bytes.size()) {
    if (bytes.size() - at < 4)
      return Error(at, fmt::format("{} stray bytes after the last file", bytes.size() - at));
    StreamEntry entry;
    entry.offset = at;
    GcovVersion version;
    bool swapped = false;
    auto data_at = read_header(bytes, at, entry, version, swapped);
    if (!data_at) return std::move(data_at).error();
    entry.data_offset = *data_at;
    if (auto d = read_entry_data(bytes, *data_at, version, swapped, entry); !d) return d.error();
    at = entry.data_offset + entry.data.bytes_read;
    stream.entries.push_back(std::move(entry));
  }
  return stream;
}

}  // namespace covkit::format
