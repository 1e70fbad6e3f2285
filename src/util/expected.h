#pragma once
// Expected<T>: a value, or the Error that says why there is none. The one way
// covkit's functions report a failure their caller must handle (a file that
// cannot be read, damaged input, a failed write). Exceptions are kept for the
// command line's boundary (allocation failure, option parsing).
//
//   Expected<FileData> data = read_file(path);
//   if (!data) return fail(path, data.error());   // "PATH: what is wrong"
//   use(data->bytes());
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include <fmt/format.h>

namespace covkit {

struct Error {
  std::string message;             // one line, without the file name
  std::optional<uint64_t> offset;  // byte offset in the input, when one place is at fault
  int errno_value = 0;             // the system's error number, when a system call failed

  Error() = default;
  explicit Error(std::string m) : message(std::move(m)) {}
  Error(uint64_t at, std::string m) : message(std::move(m)), offset(at) {}

  // "corrupt at byte N: message" when the error has a place, else the message.
  std::string describe() const {
    return offset ? fmt::format("corrupt at byte {}: {}", *offset, message) : message;
  }
};

// E is Error, or a type derived from it that says more (util::WriteError).
template <typename T, typename E = Error>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Expected(E error) : v_(std::in_place_index<1>, std::move(error)) {}

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const E& error() const& { return std::get<1>(v_); }
  E&& error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, E> v_;
};

// Success or an Error, for operations without a value.
template <typename E>
class [[nodiscard]] Expected<void, E> {
 public:
  Expected() = default;
  Expected(E error) : error_(std::move(error)) {}

  bool has_value() const { return !error_; }
  explicit operator bool() const { return has_value(); }
  const E& error() const { return *error_; }

 private:
  std::optional<E> error_;
};

}  // namespace covkit
