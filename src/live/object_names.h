#pragma once
// The .gcda names a process gives its objects (each gcov_info's filename),
// which covkit uses as paths: where a dump goes below `-o DIR`, where the
// program's own file is, where its .gcno is read from. The process is not
// trusted (its owner may have rewritten its records), so a name must be
// what a compiler writes: ending in ".gcda" after a file name, no control
// characters, no component over 255 bytes (NAME_MAX), at most 4096 bytes
// (PATH_MAX). GCC writes "." and ".." components and doubled slashes as
// the object's -o path had them (`-o ../obj/x.o` gives ".../obj/../obj/
// x.gcda"): those are kept, and resolved lexically where the file goes
// below DIR, where a ".." that would climb above DIR is refused.
#include <string>
#include <string_view>

#include "util/expected.h"

namespace covkit::live {

// Why `name` is not a .gcda name a compiler writes (one line, without the
// name), or nothing.
Expected<void> check_object_name(std::string_view name);

// What a ".." above the root means: under -o DIR it would climb out of DIR
// (refused); in a rescue of the program's own files it is what the kernel
// made of it when the program wrote there, the root itself.
enum class AboveRoot { kRefuse, kStayAtRoot };

// Where `name` (made absolute against `cwd` when it is relative) goes below
// an output directory: its components without the leading '/', empty and
// "." ones dropped, ".." ones applied; a ".." above the root as `above` says.
Expected<std::string> relative_below_directory(std::string_view cwd, std::string_view name,
                                               AboveRoot above = AboveRoot::kRefuse);

}  // namespace covkit::live
