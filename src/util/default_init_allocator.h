#pragma once
// An allocator whose value-less construction leaves the element as it is
// (default-initialised: no zeroing for bytes), for buffers that a read
// overwrites at once: std::vector's resize() zeroes what it adds, which for
// a file's bytes is a second pass over memory that read() then overwrites.
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace covkit::util {

template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    std::allocator_traits<std::allocator<T>>::construct(static_cast<std::allocator<T>&>(*this), p,
                                                        std::forward<Args>(args)...);
  }
};

}  // namespace covkit::util
