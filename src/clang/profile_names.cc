#include "clang/profile_names.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "clang/byte_cursor.h"
#include "util/md5.h"
#include "util/zlib_inflate.h"

namespace covkit::clang {

namespace {

void split_names(std::string_view run, std::vector<std::string>& out) {
  size_t start = 0;
  while (true) {
    const size_t sep = run.find('\x01', start);
    out.emplace_back(run.substr(start, sep == std::string_view::npos ? std::string_view::npos : sep - start));
    if (sep == std::string_view::npos) return;
    start = sep + 1;
  }
}

}  // namespace

Expected<std::vector<std::string>> decode_profile_names(std::span<const uint8_t> blob, uint64_t base) {
  std::vector<std::string> names;
  ByteCursor in(blob, false, base);
  while (!in.at_end()) {
    const uint64_t block = in.offset();
    auto plain_size = in.uleb128();
    auto packed_size = in.uleb128();
    if (!plain_size || !packed_size) return Error(block, "the names' block sizes are cut short");
    const bool packed = *packed_size != 0;
    const uint64_t stored = packed ? *packed_size : *plain_size;
    auto bytes = stored <= in.remaining() ? in.bytes(size_t(stored)) : std::nullopt;
    if (!bytes)
      return Error(block, fmt::format("a names block of {} bytes where {} are left", stored, in.remaining()));
    if (packed) {
      auto plain = util::zlib_inflate_exact(*bytes, *plain_size);
      if (!plain) return Error(block, "compressed function names: " + plain.error().message);
      split_names(*plain, names);
    } else {
      split_names(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), names);
    }
    while (!in.at_end() && in.data()[in.position()] == 0) in.skip(1);
  }
  for (const std::string& n : names)
    if (n.empty()) return Error(base, "a function name is empty");
  return names;
}

void NameTable::add(std::string name) {
  const uint64_t ref = name_ref(name);
  names_.try_emplace(ref, std::move(name));
}

const std::string* NameTable::find(uint64_t ref) const {
  auto it = names_.find(ref);
  return it == names_.end() ? nullptr : &it->second;
}

uint64_t name_ref(std::string_view name) { return util::md5_low64(name); }

namespace {

std::string_view as_text(std::span<const uint8_t> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

}  // namespace

std::shared_ptr<const NameTable> NameTableCache::find(std::span<const uint8_t> blob, uint64_t key) {
  std::lock_guard lock(mutex_);
  auto it = known_.find(key);
  if (it == known_.end()) return nullptr;
  for (const Known& k : it->second)
    if (std::equal(k.blob.begin(), k.blob.end(), blob.begin(), blob.end())) return k.table;
  return nullptr;
}

Expected<std::shared_ptr<const NameTable>> NameTableCache::table(std::span<const uint8_t> blob, uint64_t base) {
  const uint64_t key = std::hash<std::string_view>{}(as_text(blob));
  if (auto known = find(blob, key)) return known;
  // Decoded outside the lock: two threads may both decode one blob, and
  // the second keeps the first's table.
  auto names = decode_profile_names(blob, base);
  if (!names) return std::move(names).error();
  auto decoded = std::make_shared<NameTable>();
  decoded->add_all(std::move(*names));
  std::lock_guard lock(mutex_);
  std::vector<Known>& same_hash = known_[key];
  for (const Known& k : same_hash)
    if (std::equal(k.blob.begin(), k.blob.end(), blob.begin(), blob.end())) return k.table;
  same_hash.push_back(Known{std::vector<uint8_t>(blob.begin(), blob.end()), decoded});
  return std::shared_ptr<const NameTable>(std::move(decoded));
}

Expected<std::shared_ptr<const NameTable>> name_table(std::span<const uint8_t> blob, uint64_t base,
                                                      NameTableCache* cache) {
  if (cache) return cache->table(blob, base);
  auto names = decode_profile_names(blob, base);
  if (!names) return std::move(names).error();
  auto decoded = std::make_shared<NameTable>();
  decoded->add_all(std::move(*names));
  return std::shared_ptr<const NameTable>(std::move(decoded));
}

}  // namespace covkit::clang
