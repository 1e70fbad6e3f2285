#pragma once
// The temporary files of outputs being written (AtomicOutput), removed when
// covkit is interrupted (SIGINT, SIGTERM, SIGHUP): the target was never
// touched, and no half-written "X.covkit-tmp.PID" is left beside it.
// Handlers are installed only for signals whose disposition is the default
// (a command that handles one itself keeps its handler), and re-raise the
// signal after the clean-up, so covkit still dies of it.
namespace covkit::util {

// Registers a temporary file: `name` in the directory `dir` (a descriptor
// that stays open until the file is forgotten; the name is copied). False
// when the table is full (then it is not removed on a signal, as before).
bool track_staged_file(int dir, const char* name);
// Forgets it (after it was renamed or removed).
void untrack_staged_file(int dir, const char* name);

}  // namespace covkit::util
