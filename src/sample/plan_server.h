#pragma once
// Breakpoint mode's plan, served to the runtime inside the program: in
// breakpoint mode libcovkit-sample plants its own int3s and asks covkit,
// for each object it finds loaded, where to plant (the protocol is in
// runtime/sample/sample_contract.h). The analysis stays here, in covkit: a
// thread answers on a unix socket in a private directory (mode 0700, so
// only the user's own processes can ask), from the provider, and keeps
// every answer for the other processes of the run.
#include <memory>
#include <string>

#include "sample/breakpoint_plan.h"
#include "util/expected.h"

namespace covkit::sample {

class PlanServer {
 public:
  // Listening when it returns; an Error when the socket cannot be made.
  static Expected<std::unique_ptr<PlanServer>> start(BreakpointProvider provider);
  ~PlanServer();  // stops answering; the socket and its directory are removed
  PlanServer(const PlanServer&) = delete;
  PlanServer& operator=(const PlanServer&) = delete;

  // For the runtime's environment (CKS_ENV_PLAN_SOCKET).
  const std::string& socket_path() const;

  struct State;  // the serving thread's

 private:
  explicit PlanServer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace covkit::sample
