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

void NameTable::add_all(std::vector<std::string> names) {
  names_.reserve(names_.size() + names.size());
  for (std::string& n : names) add(std::move(n));
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

Expected<std::shared_ptr<const NameTable>> NameTableCache::table(std::span<const uint8_t> blob, uint64_t base) {
  const uint64_t key = std::hash<std::string_view>{}(as_text(blob));
  auto same_blob = [&](const Known& k) { return std::equal(k.blob.begin(), k.blob.end(), blob.begin(), blob.end()); };
  {
    std::unique_lock lock(mutex_);
    for (;;) {
      std::vector<Known>& same_hash = known_[key];
      auto it = std::find_if(same_hash.begin(), same_hash.end(), same_blob);
      if (it == same_hash.end()) {
        // This thread decodes it; others asking meanwhile wait.
        same_hash.push_back(Known{std::vector<uint8_t>(blob.begin(), blob.end()), nullptr});
        break;
      }
      if (it->table) return it->table;
      decoded_.wait(lock);  // then looked up again: a failed decode is no longer listed
    }
  }
  // Decoded outside the lock.
  auto names = decode_profile_names(blob, base);
  std::shared_ptr<NameTable> decoded;
  if (names) {
    decoded = std::make_shared<NameTable>();
    decoded->add_all(std::move(*names));
  }
  {
    std::lock_guard lock(mutex_);
    std::vector<Known>& same_hash = known_[key];
    auto it = std::find_if(same_hash.begin(), same_hash.end(),
                           [&](const Known& k) { return !k.table && same_blob(k); });
    if (decoded)
      it->table = decoded;
    else
      same_hash.erase(it);  // not kept: whoever asks again decodes it and gets its error
  }
  decoded_.notify_all();
  if (!names) return std::move(names).error();
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
