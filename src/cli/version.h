#pragma once
namespace covkit::cli {
inline constexpr const char* kVersion = "0.1.0";
}
