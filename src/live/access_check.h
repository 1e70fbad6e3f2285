#pragma once
// Why the kernel refused covkit a process, in one line. covkit asks for no
// more than the kernel's ptrace access rules grant (the same user, or root;
// Yama's kernel.yama.ptrace_scope; a process that made itself undumpable is
// root's only); when they refuse, the line says which rule did and what
// would allow it.
#include <sys/types.h>

#include <string>

#include "util/expected.h"

namespace covkit::live {

// Whether `e` is a refusal (EPERM/EACCES) rather than another failure.
bool is_refusal(const Error& e);
// "process 123 belongs to user bob (uid 1001): only that user or root may
// read its counters" and the like.
std::string explain_refusal(pid_t pid, const Error& e);

}  // namespace covkit::live
