#include "sample/breakpoint_session.h"

#include <fmt/format.h>

#include "format/sample_recording_reader.h"
#include "format/sample_recording_writer.h"
#include "runtime/sample/sample_contract.h"
#include "sample/breakpoint_recorder.h"
#include "sample/breakpoint_site_cache.h"
#include "sample/cfg_breakpoint_provider.h"
#include "sample/plan_server.h"
#include "sample/sample_recording_dir.h"
#include "util/file_io.h"
#include "util/printable.h"

namespace covkit::sample {

namespace {

// The runtime plants and takes the int3s inside the program; covkit serves
// the plan while the program runs, then adds what the plan left alone to
// recording.json.
Expected<RecordOutcome, RecordError> record_in_process(RecordRequest r, BreakpointProvider provider,
                                                       const PlanLog& log) {
  auto server = PlanServer::start(std::move(provider));
  if (!server) return RecordError(server.error().message, false);
  r.plan_socket = (*server)->socket_path();
  auto out = record_samples(r);
  server->reset();  // no more answers: the log is complete
  if (!out) return out;
  format::SampleRecording meta;
  auto json = util::read_file(out->dir + "/" + CKS_RECORDING_JSON);
  if (!json || !format::read_recording_json(json->text(), meta)) return out;
  log.fill(meta);
  if (meta.left_out.empty() && meta.unplanted.empty()) return out;
  if (auto ok = format::write_recording_json(out->dir, meta); !ok)
    return RecordError(fmt::format("{}: {}", util::printable(out->dir), ok.error().message), false);
  if (out->recording) log.fill(*out->recording);
  return out;
}

}  // namespace

Expected<RecordOutcome, RecordError> record_breakpoint_session(const RecordRequest& r, ImageSelection images) {
  auto log = std::make_shared<PlanLog>();
  const PlanWindow window = r.attach_pid ? PlanWindow::attached : PlanWindow::whole_run;
  auto provider = cfg_breakpoint_provider(std::move(images), default_site_cache_dir(), window, log);
  if (r.in_process && !r.attach_pid) return record_in_process(r, std::move(provider), *log);
  std::string joined;
  for (const std::string& w : r.command) joined += (joined.empty() ? "" : " ") + w;
  if (r.attach_pid) joined = fmt::format("--pid {}", r.attach_pid);
  auto dir = prepare_sample_dir(r.dir, joined);
  if (!dir) return RecordError(fmt::format("{}: {}", util::printable(r.dir), dir.error().message), false);

  trace::ProgramEnd end;
  bool ended = true;
  const std::string started = utc_now();
  Expected<format::SampleRecording> rec = Error("");
  if (r.attach_pid) {
    AttachedEnd attached;
    rec = record_breakpoints_attached(r.attach_pid, provider, BreakpointOptions{}, r.attach_seconds, &attached,
                                      r.on_attached);
    if (!rec) return RecordError(rec.error().message, false);
    ended = attached.ended;
    end = attached.end;
  } else {
    std::vector<std::string> argv = r.command;
    argv[0] = r.program;
    rec = record_breakpoints(argv, provider, BreakpointOptions{}, &end);
    if (!rec) return RecordError(rec.error().message, true);
    rec->command = r.command;
  }
  rec->mode = "breakpoint";
  rec->attached = r.attach_pid != 0;
  log->fill(*rec);
  rec->start_time = started;
  rec->covkit_version = r.covkit_version;
  if (auto ok = format::write_sample_recording(dir->path(), *rec); !ok)
    return RecordError(fmt::format("{}: {}", util::printable(dir->path()), ok.error().message), false);

  RecordOutcome out;
  out.dir = dir->path();
  out.moved_to = dir->moved_to();
  out.end = end;
  out.ended = ended;
  out.recording = std::move(*rec);
  return out;
}

}  // namespace covkit::sample
