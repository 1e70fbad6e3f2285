#include "report/gcov/gcov_actions.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "report/gcov/gcov_messages.h"
#include "util/file_io.h"
#include "util/terminal_text.h"

namespace covkit::report {

namespace {

// On a terminal, names and source lines from other users' files are shown
// with their controls as \xNN (util/terminal_text.h); elsewhere gcov's bytes.
void print(FILE* f, const std::string& s, util::Colours colours = util::Colours::kEscape) {
  if (f == stderr) std::fflush(stdout);
  util::write_for_terminal(f, s, colours);
}

// gcov's words for a .gcov file written (or not).
// `why`: covkit's own refusal to open it (another user's symbolic link in
// the way), said on the line after gcov's.
void report_gcov(const std::string& name, WriteOutcome outcome, const std::string& why, ExitState& rc) {
  if (outcome == WriteOutcome::kWritten) {
    print(stdout, fmt::format("Creating '{}'\n", name));
    return;
  }
  if (outcome == WriteOutcome::kOpenFailed) {
    print(stderr, fmt::format("Could not open output file '{}'\n", name));
    if (!why.empty()) print(stderr, why + "\n");
  } else {
    print(stdout, fmt::format("Creating '{}'\n", name));
    print(stderr, fmt::format("Error writing output file '{}'\n", name));
  }
  rc.set(6);
}

void write_quiet(const Action& a, ExitState& rc) {
  auto written = util::write_file_atomic(a.name, a.text);
  if (written) return;
  const int e = written.error().errno_value;
  print(stderr, (e ? std::string(std::strerror(e)) : written.error().message) + "\n");
  rc.set(6);
}

// `a.text` holds the gzip bytes, compressed on a worker thread.
void write_json(const Action& a, ExitState& rc) {
  print(stdout, fmt::format("Creating '{}'\n", a.name));
  auto written = util::write_file_atomic(a.name, a.text);
  if (written) return;
  print(stderr, written.error().stage == util::WriteStage::kOpen ? fmt::format("Cannot open JSON output file {}\n", a.name)
                                                      : fmt::format("Error writing JSON output file {}\n", a.name));
  rc.set(6);
}

}  // namespace

WriteOutcome write_now(const std::string& name, std::string_view content, std::string* why) {
  auto written = util::write_file_atomic(name, content);
  if (written) return WriteOutcome::kWritten;
  if (why && written.error().stage == util::WriteStage::kOpen && written.error().errno_value == 0)
    *why = written.error().message;
  return written.error().stage == util::WriteStage::kOpen ? WriteOutcome::kOpenFailed : WriteOutcome::kWriteFailed;
}

GcovFileWriter::GcovFileWriter(const std::string& name) {
  auto out = util::AtomicOutput::open(name);
  if (out) {
    out_ = std::make_unique<util::AtomicOutput>(std::move(*out));
    return;
  }
  outcome_ = WriteOutcome::kOpenFailed;
  if (out.error().errno_value == 0) why_ = out.error().message;
}

GcovFileWriter::~GcovFileWriter() = default;

void GcovFileWriter::write(std::string_view piece) {
  if (out_) out_->write(piece);
}

WriteOutcome GcovFileWriter::commit(std::string* why) {
  if (out_) {
    outcome_ = out_->commit() ? WriteOutcome::kWritten : WriteOutcome::kWriteFailed;
    out_.reset();
  }
  if (why) *why = why_;
  return outcome_;
}

void perform(std::vector<Action>& actions, ExitState& return_code, GcovMessages& messages, util::Colours out_colours) {
  for (Action& a : actions) {
    switch (a.kind) {
      case Action::Kind::kOut: print(stdout, a.text, out_colours); break;
      case Action::Kind::kErr: print(stderr, a.text); break;
      case Action::Kind::kDiagnostic:
        print(stderr, messages.render(*a.diagnostic));
        if (int status = a.diagnostic->gcov_status()) return_code.set(status);
        break;
      case Action::Kind::kWriteGcov: {
        std::string why;
        const WriteOutcome outcome = write_now(a.name, a.text, &why);
        report_gcov(a.name, outcome, why, return_code);
        break;
      }
      case Action::Kind::kWrittenGcov: report_gcov(a.name, WriteOutcome(a.code), a.text, return_code); break;
      case Action::Kind::kWriteQuiet: write_quiet(a, return_code); break;
      case Action::Kind::kRemove:
        ::unlink(a.name.c_str());
        print(stdout, fmt::format("Removing '{}'\n", a.name));
        break;
      case Action::Kind::kWriteJson: write_json(a, return_code); break;
      case Action::Kind::kReturnCode: return_code.set(a.code); break;
    }
    a.text.clear();
    a.text.shrink_to_fit();
  }
}

}  // namespace covkit::report
