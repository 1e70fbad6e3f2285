#include "util/source_date_epoch.h"

#include <charconv>
#include <cstdlib>
#include <ctime>
#include <string_view>

#include <fmt/format.h>

#include "util/printable.h"

namespace covkit::util {

Expected<int64_t> output_timestamp() {
  const char* value = std::getenv("SOURCE_DATE_EPOCH");
  if (!value || !*value) return int64_t(std::time(nullptr));
  const std::string_view text(value);
  int64_t seconds = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec != std::errc() || end != text.data() + text.size() || seconds < 0)
    return Error(fmt::format("SOURCE_DATE_EPOCH=\"{}\" is not a number of seconds since 1970-01-01 (unset it for "
                             "the current time)",
                             printable(text)));
  return seconds;
}

}  // namespace covkit::util
