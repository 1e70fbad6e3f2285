#pragma once
#include <span>
#include <variant>

#include "format/gcda.h"
#include "format/gcno_reader.h"  // HeaderError

namespace covkit::format {

using DataResult = std::variant<DataFile, HeaderError>;

// Parses a whole .gcda image. Never reads outside `data`.
DataResult read_data(std::span<const uint8_t> data);

}  // namespace covkit::format
