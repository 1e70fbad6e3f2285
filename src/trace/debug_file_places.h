#pragma once
// Where a module's separate debug file may be, in the order gdb looks:
// /usr/lib/debug/.build-id/xx/rest.debug by its build-id, then the name its
// .gnu_debuglink section gives, beside the module, in .debug/ beside it, and
// under /usr/lib/debug. The link's name is the module's own data, written by
// whoever built it: covkit, run as root on another user's trace, must not let
// it reach outside those places, so a name that is not a plain file name
// ("../../root/secret", "/etc/x", "..") gives no place (gdb and the
// GNU linker's --add-gnu-debuglink store only a file's base name). The tree
// under /usr/lib/debug mirrors absolute directories only.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace covkit::trace {

// `module` is the module's path as covkit opens it; `build_id` its bytes
// (none when it has none); `link` the .gnu_debuglink name (empty when none).
std::vector<std::string> debug_file_places(std::string_view module, std::span<const unsigned char> build_id,
                                           std::string_view link);

// A name that stays in the directory it is joined to.
bool is_plain_file_name(std::string_view name);

}  // namespace covkit::trace
