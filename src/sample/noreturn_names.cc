#include "sample/noreturn_names.h"

#include <array>

namespace covkit::sample {

bool is_known_noreturn(std::string_view name) {
  // A versioned import reads "exit@GLIBC_2.2.5" in some tables.
  if (auto at = name.find('@'); at != std::string_view::npos) name = name.substr(0, at);
  // _longjmp: the BSD name glibc keeps (Lua's LUAI_THROW on POSIX).
  static constexpr std::array<std::string_view, 19> kNames = {
      "exit",          "_exit",           "_Exit",          "abort",         "__assert_fail",
      "__stack_chk_fail", "__cxa_throw",  "__cxa_rethrow",  "_Unwind_Resume", "longjmp",
      "siglongjmp",    "__longjmp_chk",   "__fortify_fail", "__chk_fail",    "quick_exit",
      "__cxa_bad_cast", "_longjmp",       "pthread_exit",   "__assert_perror_fail",
  };
  for (std::string_view n : kNames)
    if (name == n) return true;
  // std::__throw_logic_error and friends: _ZSt<len>__throw_<what>.
  if (name.starts_with("_ZSt")) {
    std::string_view rest = name.substr(4);
    while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') rest.remove_prefix(1);
    if (rest.starts_with("__throw_")) return true;
  }
  return false;
}

}  // namespace covkit::sample
