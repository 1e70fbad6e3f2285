#pragma once
// The names of the files in a trace directory (runtime/trace/trace_contract.h):
// IMAGE.meta and IMAGE-<tid>[.<k>].ckt, IMAGE = <pid> or <pid>.<n>.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace covkit::format {

struct ImageName {
  uint32_t pid = 0;
  uint32_t sequence = 0;  // 0 for "<pid>", n for "<pid>.<n>"
  std::string stem;       // as written
};

struct StreamName {
  ImageName image;
  uint32_t tid = 0;
  uint32_t sequence = 0;  // k of "<tid>.<k>" (the same tid again in one image)
};

// nullopt when `name` is not of that form.
std::optional<ImageName> parse_meta_name(std::string_view name);
std::optional<StreamName> parse_stream_name(std::string_view name);

}  // namespace covkit::format
