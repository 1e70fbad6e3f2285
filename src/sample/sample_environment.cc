#include "sample/sample_environment.h"

#include <fmt/format.h>

#include <string_view>

#include "runtime/sample/sample_contract.h"
#include "trace/record_environment.h"

namespace covkit::sample {

std::vector<std::string> sampled_environment(const std::vector<std::string>& environment,
                                             const SampleSettings& settings) {
  std::vector<std::string> env;
  // The program's own COVKIT_SAMPLE_* (a recording inside a recording) give
  // way, but for the emulation's diagnostic knobs, which the user sets for
  // covkit and the runtime reads (the stepping, its cost, the step cap).
  const auto knob = [](std::string_view e, std::string_view name) {
    return e.starts_with(name) && e.size() > name.size() && e[name.size()] == '=';
  };
  for (const std::string& e : environment)
    if (!std::string_view(e).starts_with("COVKIT_SAMPLE_") || knob(e, CKS_ENV_STEPPING) || knob(e, CKS_ENV_STEP_STATS) ||
        knob(e, CKS_ENV_STEP_CAP))
      env.push_back(e);
  env = trace::preloaded_environment(env, settings.runtime);
  env.push_back(fmt::format("{}={}", CKS_ENV_DIR, settings.dir));
  env.push_back(fmt::format("{}={}", CKS_ENV_MODE, settings.breakpoint ? "breakpoint" : settings.branch ? "branch" : "pc"));
  if (settings.breakpoint) env.push_back(fmt::format("{}={}", CKS_ENV_PLAN_SOCKET, settings.plan_socket));
  env.push_back(fmt::format("{}={}", CKS_ENV_PERIOD_NS, settings.period_ns));
  env.push_back(fmt::format("{}={}", CKS_ENV_VECTOR, settings.vector_length));
  return env;
}

std::string sample_environment_help() {
  return fmt::format(
      "Environment given to PROG (the runtime's settings):\n"
      "  LD_PRELOAD=<dir of covkit>/{} (before any LD_PRELOAD already set)\n"
      "  {:<26} the recording directory (absolute)\n"
      "  {:<26} branch, pc or breakpoint, from --mode\n"
      "  {:<26} breakpoint mode: covkit's plan server (a unix socket)\n"
      "  {:<26} from --period\n"
      "  {:<26} from --vector-length\n"
      "  {:<26} kept from covkit's environment: instruction single-steps\n"
      "  {:<26}   every instruction of an emulated branch vector (the reference);\n"
      "  {:<26}   block (default) steps from branch to branch with the\n"
      "  {:<26}   thread's four debug registers, the way ahead first run in\n"
      "  {:<26}   a look-ahead interpreter; block1 to block3 with fewer\n"
      "  {:<26}   registers (block1: a stop at every conditional branch);\n"
      "  {:<26}   decode as block without the interpreter\n"
      "  {:<26} kept from covkit's environment: each process notes its\n"
      "  {:<26}   vectors, their CPU time, traps, breakpoint moves, counted\n"
      "  {:<26}   loops, returns passed without a stop and steps the\n"
      "  {:<26}   interpreter predicted in a warning (benches)\n"
      "  {:<26} kept from covkit's environment: the steps a vector holds at\n"
      "  {:<26}   most (default {}, 16 to {}; tests)\n",
      kSampleRuntimeName, CKS_ENV_DIR, CKS_ENV_MODE, CKS_ENV_PLAN_SOCKET, CKS_ENV_PERIOD_NS, CKS_ENV_VECTOR,
      CKS_ENV_STEPPING, "", "", "", "", "", "", CKS_ENV_STEP_STATS, "", "", "", CKS_ENV_STEP_CAP, "",
      static_cast<int>(CKS_DEFAULT_STEP_CAP), static_cast<int>(CKS_MAX_STEP_CAP));
}

}  // namespace covkit::sample
