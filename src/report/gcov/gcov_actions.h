#pragma once
// What a gcov run does to the outside world, as a list: text for stdout and
// stderr, files to write or remove, exit statuses. Sessions are computed in
// parallel into action lists; the lists are then carried out strictly in
// argument order, so output never depends on the number of threads.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/session_diagnostics.h"
#include "util/atomic_output.h"
#include "util/terminal_text.h"

namespace covkit::report {

// A .gcov file written ahead of its turn (by the worker that rendered it),
// or to be written in turn.
enum class WriteOutcome { kNotYet, kInTurn, kWritten, kOpenFailed, kWriteFailed };

// Writes a .gcov file now (any thread): how it went, for its action; `why`
// gets covkit's own refusal to open it (a link of another user in the way).
WriteOutcome write_now(const std::string& name, std::string_view content, std::string* why = nullptr);

// The same for a text written piece by piece as it is made (any thread):
// opened, written, then committed (the file whole, or untouched).
class GcovFileWriter {
 public:
  // Opens `name`; failed() then says whether it could not be.
  explicit GcovFileWriter(const std::string& name);
  ~GcovFileWriter();
  GcovFileWriter(const GcovFileWriter&) = delete;
  GcovFileWriter& operator=(const GcovFileWriter&) = delete;

  bool failed() const { return outcome_ != WriteOutcome::kNotYet; }
  void write(std::string_view piece);
  // How it went (kOpenFailed when it could not be opened); `why` as write_now's.
  WriteOutcome commit(std::string* why = nullptr);

 private:
  std::unique_ptr<util::AtomicOutput> out_;
  WriteOutcome outcome_ = WriteOutcome::kNotYet;
  std::string why_;
};

struct Action {
  enum class Kind { kOut, kErr, kDiagnostic, kWriteGcov, kWrittenGcov, kWriteQuiet, kRemove, kWriteJson, kReturnCode };
  Kind kind;
  std::string name;  // file name (kWriteGcov, kRemove, kWriteJson)
  std::string text;  // output text or file content
  int code = 0;      // kReturnCode
  // kDiagnostic: worded when carried out, so that gcov's once-per-run notes
  // come once however many sessions ran in parallel.
  std::optional<model::Diagnostic> diagnostic;
};

class ActionList {
 public:
  void out(std::string s) { append(Action::Kind::kOut, {}, std::move(s)); }
  void err(std::string s) {
    if (!s.empty()) append(Action::Kind::kErr, {}, std::move(s));
  }
  void write_gcov(std::string name, std::string content) {
    append(Action::Kind::kWriteGcov, std::move(name), std::move(content));
  }
  // A .gcov file written already (write_now): its messages and status in turn.
  void written_gcov(std::string name, WriteOutcome outcome, std::string why = {}) {
    actions_.push_back(Action{Action::Kind::kWrittenGcov, std::move(name), std::move(why), int(outcome), {}});
  }
  // A .gcov file whose "Creating" line was printed with its summary
  // (llvm-cov's order); a failure is the system's message on stderr.
  void write_quiet(std::string name, std::string content) {
    append(Action::Kind::kWriteQuiet, std::move(name), std::move(content));
  }
  void remove(std::string name) { append(Action::Kind::kRemove, std::move(name), {}); }
  void write_json(std::string name, std::string gzip_bytes) {
    append(Action::Kind::kWriteJson, std::move(name), std::move(gzip_bytes));
  }
  void diagnostic(model::Diagnostic d) {
    actions_.push_back(Action{Action::Kind::kDiagnostic, {}, {}, 0, std::move(d)});
  }
  void return_code(int code) { actions_.push_back(Action{Action::Kind::kReturnCode, {}, {}, code, {}}); }
  std::vector<Action>& actions() { return actions_; }

 private:
  void append(Action::Kind k, std::string name, std::string text) {
    // Adjacent stdout text is merged: fewer, larger writes.
    if (k == Action::Kind::kOut && !actions_.empty() && actions_.back().kind == k) {
      actions_.back().text += text;
      return;
    }
    actions_.push_back(Action{k, std::move(name), std::move(text), 0, {}});
  }
  std::vector<Action> actions_;
};

// Exit statuses as gcov 12 sets them; `damage` keeps the last status that
// means a file is damaged or output was lost (2, 4, 6), which covkit reports
// even where gcov 11 would exit 0.
struct ExitState {
  int gcov12 = 0;
  int damage = 0;
  void set(int code) {
    gcov12 = code;
    if (code == 2 || code == 4 || code == 6) damage = code;
  }
};

// Carries out `actions` in order, updating `exit` as gcov would; `messages`
// words the diagnostics (one for the whole run). On a terminal, what the
// text holds that would act on it is shown as \xNN, except, with kKeep,
// the colours of stdout's text (-t -k: covkit's own).
class GcovMessages;
void perform(std::vector<Action>& actions, ExitState& exit, GcovMessages& messages,
             util::Colours out_colours = util::Colours::kEscape);

}  // namespace covkit::report
