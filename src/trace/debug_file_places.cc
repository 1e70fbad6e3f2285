#include "trace/debug_file_places.h"

#include "util/hex_text.h"

namespace covkit::trace {

bool is_plain_file_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

std::vector<std::string> debug_file_places(std::string_view module, std::span<const unsigned char> build_id,
                                           std::string_view link) {
  std::vector<std::string> places;
  // One byte names the directory, the rest the file: an id of one byte or
  // none names no file.
  if (build_id.size() > 1) {
    std::string place = "/usr/lib/debug/.build-id/";
    util::append_hex(place, build_id.first(1));
    place += '/';
    util::append_hex(place, build_id.subspan(1));
    place += ".debug";
    places.push_back(std::move(place));
  }
  if (is_plain_file_name(link)) {
    const std::string dir(module.substr(0, module.rfind('/') + 1));
    const std::string name(link);
    places.push_back(dir + name);
    places.push_back(dir + ".debug/" + name);
    // The tree under /usr/lib/debug mirrors absolute directories only.
    if (!dir.empty() && dir.front() == '/') places.push_back("/usr/lib/debug" + dir + name);
  }
  return places;
}

}  // namespace covkit::trace
