#pragma once
// Something made from a function's symbol (a view's rendering of its name,
// say), kept per address, so that views naming millions of calls look each
// function up once. A symbol depends on the call's time only at an address
// that two modules of the process held (a library unloaded and another
// mapped there): such an address is kept per module too, the one
// TraceProcess::module_for picks for the call, as the Symbolizer does.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>

#include "format/trace_reader.h"
#include "trace/symbolizer.h"

namespace covkit::trace {

// The function at `address` in `process` at counter time `when`
// (Symbolizer::lookup, or a table in tests). Its answer may depend on `when`
// only through the module module_for(address, when) picks. The reference
// must stay valid until the next call.
using SymbolLookup =
    std::function<const SymbolInfo&(const format::TraceProcess& process, uint64_t address, uint64_t when)>;

template <class T>
class SymbolMemo {
 public:
  using Make = std::function<void(const SymbolInfo& symbol, T& out)>;

  SymbolMemo(const SymbolLookup& symbols, Make make) : symbols_(symbols), make_(std::move(make)) {}

  // What `make` made of the call's symbol; valid as long as the memo.
  const T& operator()(const format::TraceProcess& process, uint64_t address, uint64_t when) {
    Key key{&process, address, nullptr};
    if (last_ != nullptr && last_key_ == key) return *last_;  // calls of one function come in runs
    auto it = memo_.find(key);
    if (it == memo_.end()) {
      if (!held_by_one(process, address)) {  // not kept as the last: the next call may be of another module
        key.module = process.module_for(address, when);
        return made(key, process, address, when);
      }
      it = memo_.try_emplace(key).first;
      make_(symbols_(process, address, when), it->second);
    }
    last_key_ = key;
    last_ = &it->second;
    return it->second;
  }

 private:
  struct Key {
    const format::TraceProcess* process;
    uint64_t address;
    const format::TraceModule* module;  // only where two modules held the address
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept {
      return std::hash<uint64_t>()(k.address ^ uint64_t(reinterpret_cast<uintptr_t>(k.process)) * 0x9E3779B97F4A7C15ull ^
                                   uint64_t(reinterpret_cast<uintptr_t>(k.module)));
    }
  };

  static bool held_by_one(const format::TraceProcess& process, uint64_t address) {
    int holders = 0;
    for (const format::TraceModule& m : process.modules)
      if (std::any_of(m.segments.begin(), m.segments.end(),
                      [&](const format::TraceSegment& s) { return address >= s.lo && address < s.hi; }) &&
          ++holders > 1)
        return false;
    return true;
  }

  const T& made(const Key& key, const format::TraceProcess& process, uint64_t address, uint64_t when) {
    auto [it, fresh] = memo_.try_emplace(key);
    if (fresh) make_(symbols_(process, address, when), it->second);
    return it->second;
  }

  const SymbolLookup& symbols_;
  const Make make_;
  std::unordered_map<Key, T, KeyHash> memo_;  // nodes stay put
  Key last_key_{nullptr, 0, nullptr};
  const T* last_ = nullptr;  // in memo_, of an address one module holds
};

}  // namespace covkit::trace
