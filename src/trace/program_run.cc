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

TerminalSignalsToProgram::TerminalSignalsToProgram() {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGINT, &ignore, &old_int_);
  ::sigaction(SIGQUIT, &ignore, &old_quit_);
}

TerminalSignalsToProgram::~TerminalSignalsToProgram() {
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGQUIT, &old_quit_, nullptr);
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
