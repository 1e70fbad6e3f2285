#pragma once
// The user whose data a process's counters are: covkit reading another
// user's process notes it (util/foreign_data.h), so that the files its
// data names (its .gcno files, the sources in them) are read with that
// user's rights, and the outputs made of it are no more open than the
// process's memory, which only its user (and root) may read.
#include <sys/types.h>

#include <optional>

#include "util/foreign_data.h"

namespace covkit::live {

// The process's file-system uid and gid and its supplementary groups
// (/proc/PID/status); nullopt when it is gone.
std::optional<util::DataOwner> process_owner(pid_t pid);

// Notes the process's data as foreign when covkit's user is not its owner
// (a gone process changes nothing: nothing of it is read).
void note_process_data(pid_t pid);

}  // namespace covkit::live
