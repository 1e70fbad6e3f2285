#include "trace/program_run.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace covkit::trace {

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  return env;
}

namespace {

volatile sig_atomic_t forward_target = 0;  // the program's pid, once known

void forward_stop(int sig) {
  const pid_t program = pid_t(forward_target);
  if (program > 0) {
    ::kill(program, sig);
    return;
  }
  ::signal(sig, SIG_DFL);  // no program yet: covkit ends, as without this object
  ::raise(sig);
}

}  // namespace

TerminalSignalsToProgram::TerminalSignalsToProgram() {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGINT, &ignore, &old_int_);
  ::sigaction(SIGQUIT, &ignore, &old_quit_);
  forward_target = 0;
  struct sigaction forward {};
  forward.sa_handler = forward_stop;
  forward.sa_flags = SA_RESTART;
  sigemptyset(&forward.sa_mask);
  ::sigaction(SIGTERM, &forward, &old_term_);
  ::sigaction(SIGHUP, &forward, &old_hup_);
}

void TerminalSignalsToProgram::forward_to(pid_t program) { forward_target = program; }

TerminalSignalsToProgram::~TerminalSignalsToProgram() {
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGQUIT, &old_quit_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
  ::sigaction(SIGHUP, &old_hup_, nullptr);
  forward_target = 0;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

Expected<ProgramEnd> run_program(const std::string& program, const std::vector<std::string>& args,
                                 const std::vector<std::string>& environment) {
  std::vector<std::string> arg_copy = args, env_copy = environment;
  std::vector<char*> argv = c_strings(arg_copy), envp = c_strings(env_copy);

  TerminalSignalsToProgram terminal;  // until the program has ended
  // The program gets the default dispositions back.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, program.c_str(), nullptr, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  if (rc == 0) terminal.forward_to(pid);
  int status = 0;
  if (rc == 0)
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  if (rc != 0) return Error(std::strerror(rc));

  ProgramEnd end;
  if (WIFSIGNALED(status)) {
    end.signal = WTERMSIG(status);
    end.core_dumped = WCOREDUMP(status);
  } else {
    end.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  return end;
}

}  // namespace covkit::trace
