#pragma once
// Running the traced program the way system() does: its standard streams
// are its own, and while it runs ^C and ^\ are its to handle (covkit waits
// to summarize what it wrote).
#include <signal.h>

#include <string>
#include <vector>

#include "util/expected.h"

namespace covkit::trace {

struct ProgramEnd {
  int exit_status = 0;  // when it exited
  int signal = 0;       // when a signal killed it (then exit_status is 0)
  bool core_dumped = false;
};

// As system() does: while an object lives, ^C and ^\ (SIGINT, SIGQUIT) are
// ignored by covkit, so that they are the program's to handle (a child must
// set their default dispositions back before it execs); covkit's own come
// back after. And as perf record does, SIGTERM and SIGHUP sent to covkit
// alone (a CI job's time limit, a closed session) are passed on to the
// program once forward_to() names it: the program ends, and covkit keeps
// and writes what it recorded instead of dying and leaving the program
// running unrecorded. Before that they end covkit as they would have.
class TerminalSignalsToProgram {
 public:
  TerminalSignalsToProgram();
  ~TerminalSignalsToProgram();
  TerminalSignalsToProgram(const TerminalSignalsToProgram&) = delete;
  TerminalSignalsToProgram& operator=(const TerminalSignalsToProgram&) = delete;

  void forward_to(pid_t program);

 private:
  struct sigaction old_int_ {}, old_quit_ {}, old_term_ {}, old_hup_ {};
};

// argv/envp for exec: pointers into `strings`, then a null.
std::vector<char*> c_strings(std::vector<std::string>& strings);

// Runs `program` with `args` (args[0] is its name) and `environment`, and
// waits for it; an Error when it cannot be started.
// covkit's own environment, NAME=VALUE, to hand on to the program it runs.
std::vector<std::string> current_environment();

Expected<ProgramEnd> run_program(const std::string& program, const std::vector<std::string>& args,
                                 const std::vector<std::string>& environment);

}  // namespace covkit::trace
