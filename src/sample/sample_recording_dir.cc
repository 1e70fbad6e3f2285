#include "sample/sample_recording_dir.h"

#include "format/sample_recording_reader.h"
#include "runtime/sample/sample_contract.h"
#include "runtime/trace/trace_contract.h"

namespace covkit::sample {

bool written_by_sampler(const std::string& name) {
  return name == CKT_RECORD_MARKER || name == CKS_RECORDING_JSON || format::parse_sample_file_name(name).has_value() ||
         format::is_shared_breakpoint_file_name(name);
}

Expected<trace::RecordingDir> prepare_sample_dir(const std::string& dir, const std::string& command) {
  return trace::prepare_recording_dir(dir, command, trace::RecorderFiles{"covkit sample record", written_by_sampler});
}

}  // namespace covkit::sample
