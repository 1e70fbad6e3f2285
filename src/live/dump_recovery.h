#pragma once
// Finishing what a covkit killed during a `live dump --reset` or `live reset`
// left in its journal (dump_journal.h). For each process of the journal the
// reset marker in its memory (snapshot.h, ResetMarker) tells what happened:
//
//   not begun   the counts are still in the process: nothing to write
//   done        the counts left the process: its files are written now,
//               where the dump would have written them
//   cut short   covkit died inside the one write that resets it: some
//               counters may be zero, others not. What it read goes to a
//               rescue directory, added to nothing, and the line says so
//   unknown     the process ended before anyone could look (and the
//               journal does not say the reset was written): as cut short
//
// Every `covkit live dump` and `reset` finishes the journals left before it
// starts, so the next dump says what happened, in one line per journal.
#include <functional>
#include <string>

namespace covkit::live {

// Tells one line per journal finished (or that could not be), as soon as it
// is: the dump that finishes a journal may itself be killed a moment later,
// and what it did (files written, a rescue) must have been said by then.
// Journals of processes covkit may not read are left for later.
void finish_left_journals(const std::function<void(const std::string&)>& tell);

}  // namespace covkit::live
