#include "sample/recording_input.h"

#include "format/input_kind.h"
#include "format/perf_data_file.h"
#include "format/sample_recording_reader.h"
#include "sample/perf_data_import.h"
#include "util/file_io.h"
#include "util/foreign_data.h"

namespace covkit::sample {

Expected<format::SampleRecording> read_recording_input(const std::string& path) {
  if (util::is_directory(path)) return format::read_sample_recording(path);
  auto data = util::read_input_file(path);
  if (!data) return data.error();
  if (!format::is_perf_data(data->bytes()))
    return Error("neither a recording directory (covkit sample record -o DIR) nor a perf.data file" +
                 format::wrong_kind_hint(path, format::InputKind::perf_data));
  util::note_data_file(path, *data);  // its owner's rights read the files it names (util/foreign_data.h)
  auto rec = import_perf_data(data->bytes());
  if (rec) rec->command = {"perf-import", path};
  return rec;
}

}  // namespace covkit::sample
