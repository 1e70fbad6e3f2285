#pragma once
// Reading a `covkit sample record` directory (docs/sample-format.md):
// recording.json and one IMAGE.cks file per process image. Hostile input
// only produces an Error naming the file, the byte offset and what is
// wrong; sizes are bounded before anything is allocated.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "format/sample_records.h"
#include "util/expected.h"

namespace covkit::format {

// How much of a recording to keep. `summary` checks every record as `all`
// does but only counts the planted addresses (planted_not_kept): a breakpoint
// recording of many processes lists tens of thousands per process, and
// `sample record` reads its recording back only to summarize it.
enum class SampleDetail { all, summary };

// The whole recording; images are numbered in (pid, n) order of their files.
Expected<SampleRecording> read_sample_recording(const std::string& dir, SampleDetail detail = SampleDetail::all);

// One IMAGE.cks file's bytes, appended to `into` as image `into.images.size()`;
// `name` is used in messages. Exposed for tests and fuzzers.
Expected<void> read_sample_file(std::span<const uint8_t> bytes, const std::string& name, SampleRecording& into,
                                SampleDetail detail = SampleDetail::all);

// recording.json's text into `into` (mode, period, command, ...).
Expected<void> read_recording_json(std::string_view text, SampleRecording& into);

// "<build-id hex>-<path hash>-<sites>.hits" and ".text" (and ".text.<pid>.tmp"):
// breakpoint mode's hit flags and planted text shared by the processes of a
// recording (the runtime's; readers need nothing from them).
bool is_shared_breakpoint_file_name(std::string_view name);

// (pid, n) of "<pid>-<n>.cks", nullopt for any other name.
std::optional<std::pair<int32_t, uint32_t>> parse_sample_file_name(std::string_view name);

}  // namespace covkit::format
