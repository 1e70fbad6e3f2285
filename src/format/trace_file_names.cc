#include "format/trace_file_names.h"

#include <charconv>

#include "runtime/trace/trace_contract.h"

namespace covkit::format {

namespace {

std::optional<uint32_t> number(std::string_view s) {
  uint32_t v = 0;
  if (s.empty() || s.size() > 10 || s.front() == '+') return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// "<a>" or "<a>.<b>" (b >= 1).
bool numbered(std::string_view s, uint32_t& a, uint32_t& b) {
  size_t dot = s.find(CKT_SEQUENCE_SEPARATOR);
  auto first = number(s.substr(0, dot));
  if (!first) return false;
  a = *first;
  b = 0;
  if (dot == std::string_view::npos) return true;
  auto second = number(s.substr(dot + 1));
  if (!second || *second == 0) return false;
  b = *second;
  return true;
}

std::optional<ImageName> image_name(std::string_view stem) {
  ImageName image;
  if (!numbered(stem, image.pid, image.sequence)) return std::nullopt;
  image.stem = std::string(stem);
  return image;
}

}  // namespace

std::optional<ImageName> parse_meta_name(std::string_view name) {
  constexpr std::string_view suffix = CKT_META_SUFFIX;
  if (!name.ends_with(suffix)) return std::nullopt;
  return image_name(name.substr(0, name.size() - suffix.size()));
}

std::optional<StreamName> parse_stream_name(std::string_view name) {
  constexpr std::string_view suffix = CKT_STREAM_SUFFIX;
  if (!name.ends_with(suffix)) return std::nullopt;
  std::string_view stem = name.substr(0, name.size() - suffix.size());
  size_t dash = stem.find(CKT_THREAD_SEPARATOR);
  if (dash == std::string_view::npos) return std::nullopt;
  auto image = image_name(stem.substr(0, dash));
  if (!image) return std::nullopt;
  StreamName out;
  out.image = std::move(*image);
  if (!numbered(stem.substr(dash + 1), out.tid, out.sequence)) return std::nullopt;
  return out;
}

}  // namespace covkit::format
