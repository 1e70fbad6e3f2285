#include "cli/terminal_colour.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace covkit::cli {

bool colour_wanted(std::string_view when, int fd) {
  if (when == "always") return true;
  if (when != "auto") return false;
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour && *no_colour) return false;
  const char* term = std::getenv("TERM");
  if (term && std::strcmp(term, "dumb") == 0) return false;
  return isatty(fd) == 1;
}

}  // namespace covkit::cli
