#pragma once
// Where an output goes, found without following another user's symbolic
// link, and the trees below it walked without following any.
//
// covkit runs as root on other users' directories: a link another user
// planted in an output path (the output itself, or a directory on the way
// to it) would make root write where that user chose. So an output path is
// walked one component at a time from a descriptor (openat, O_NOFOLLOW),
// and a symbolic link on the way is followed only when it belongs to root
// or to the user covkit runs as (nobody else can have made it); one of
// another user is an error that names it. This is the kernel's own rule for
// world-writable sticky directories (fs.protected_symlinks), applied to
// every directory, since a home or a build directory is no less another
// user's. What the walk reached is held open: renaming a directory on the
// way afterwards changes nothing, and the output is created, written and
// renamed relative to that descriptor, never looked up by name again.
//
// Below a directory covkit fills (an output tree), no link is followed at
// all: the *_below functions open each component with O_NOFOLLOW.
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"
#include "util/unique_fd.h"

namespace covkit::util {

struct OutputLocation {
  UniqueFd parent;   // the directory that holds the output (an O_PATH descriptor)
  std::string name;  // the output's name in it: a plain name, not a link (a trusted link was followed)
  std::string path;  // the parent's absolute path as the walk reached it, "/", the name: for messages
  bool via_link = false;  // the name is the end of a symbolic link that was followed
};

enum class MissingParents { kCreate, kError };

// A symbolic link the walk would not follow: its owner, and whether it was
// the path's last component.
struct UntrustedLink {
  uid_t owner = 0;
  bool last = false;
};

// Walks `path` as described above. Missing directories on the way are
// created (mode 0777, less the umask and output_mode_mask()) or are an
// error. The output itself need not exist. "." or ".." at the end stand for
// the directory they name. When the walk stops at another user's link,
// `untrusted` (if given) says whose (a reader opens the file with that
// user's rights instead: util/foreign_data.h).
Expected<OutputLocation> locate_output(const std::string& path, MissingParents missing,
                                       std::optional<UntrustedLink>* untrusted = nullptr);

// Whether covkit may follow a symbolic link of this owner in an output path:
// root's, covkit's user's, or that of the user whose file-system identity
// the calling thread took.
bool trusted_link_owner(uid_t owner);

// Opens the directory that holds `relative`'s last component below `root`
// ('/'-separated, no "." or ".." or empty parts), creating missing
// directories with `mode` when `create`; nullopt when one is missing and
// not created. Never follows a link: one on the way is an error naming
// `shown_root`/... . `last` gets the last component.
Expected<std::optional<UniqueFd>> open_parent_below(int root, std::string_view relative, bool create, mode_t mode,
                                                    const std::string& shown_root, std::string* last);

// The bytes of the regular file `relative` below `root`, no link followed;
// nullopt when there is no such file.
Expected<std::optional<std::string>> read_below(int root, std::string_view relative, const std::string& shown_root);

// The names in the directory `dir` (held open; "." and ".." aside), never
// following a link; nullopt, errno set, when it cannot be read.
std::optional<std::vector<std::string>> entry_names_at(int dir);

// Removes the entry `name` of `dir` and, if it is a directory, everything
// below it, never following a link (a link is removed, not what it leads to).
void remove_tree_at(int dir, const std::string& name);
// Removes everything inside the directory `dir` (held open), as above.
void remove_contents(int dir);

// Whether `relative` is a plain relative path: not empty, no leading '/',
// no empty, "." or ".." component.
bool plain_relative_path(std::string_view relative);

// Test hook: when COVKIT_TEST_STOP_AT (a comma-separated list) names
// `point`, covkit stops itself (SIGSTOP) there, so that a test can act in a
// window it could otherwise only hit by chance (tests/security: a staging
// directory swapped for a link between its creation and the swap) and then
// let it go on (SIGCONT). Inert without the variable. Points: "staging"
// (a staging directory was just created), "swap" (just before it is swapped
// in), "output" (a single output file's temporary was just created),
// "live-report" (`live report` of a clang-instrumented process read it and
// is about to report), "elf-open" (an ELF file is about to be opened by its
// path: a process's module by the path its maps showed a moment ago),
// "output-special" (a FIFO or device of covkit's own at an output's name was
// looked at and is about to be opened), "input" (a data file given to covkit
// is about to be looked at and opened: util::open_input_file).
void test_stop_point(const char* point);

}  // namespace covkit::util
