#include "clang/profile_names.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <random>

#include "clang/byte_cursor.h"
#include "util/md5.h"
#include "util/zlib_inflate.h"

namespace covkit::clang {

namespace {

// The names of a joined text, in order.
template <typename Each>
void each_joined_name(std::string_view joined, Each&& each) {
  size_t start = 0;
  while (start < joined.size()) {
    const size_t sep = joined.find('\x01', start);
    if (sep == std::string_view::npos) {
      each(joined.substr(start));
      return;
    }
    each(joined.substr(start, sep - start));
    start = sep + 1;
  }
}

}  // namespace

Expected<std::string> joined_profile_names(std::span<const uint8_t> blob, uint64_t base) {
  // Blocks are joined as their names are: the names of a block and those
  // of the next are separated as names within a block are.
  std::string joined;
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
      if (joined.empty())
        joined = std::move(*plain);
      else
        joined += *plain;
    } else {
      joined.append(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    }
    joined += '\x01';
    while (!in.at_end() && in.data()[in.position()] == 0) in.skip(1);
  }
  // An empty name: two separators in a row, or one first.
  if (joined.starts_with('\x01') || joined.find("\x01\x01") != std::string::npos)
    return Error(base, "a function name is empty");
  return joined;
}

Expected<std::vector<std::string>> decode_profile_names(std::span<const uint8_t> blob, uint64_t base) {
  auto joined = joined_profile_names(blob, base);
  if (!joined) return std::move(joined).error();
  std::vector<std::string> names;
  each_joined_name(*joined, [&](std::string_view n) { names.emplace_back(n); });
  return names;
}

namespace {

// Where a NameRef's probe starts: NameRefs are MD5 bits, but names come
// from files another user wrote, so the slot is mixed with a per-process
// value a file cannot aim at.
uint64_t probe_seed() {
  static const uint64_t seed = std::random_device{}() | uint64_t(std::random_device{}()) << 32;
  return seed;
}

}  // namespace

NameTable::NameTable(std::string joined) : text_(std::move(joined)) {
  size_t count = 0;
  for (char c : text_) count += c == '\x01';
  size_t capacity = 16;
  while (capacity < 2 * count) capacity *= 2;
  slots_.resize(capacity);
  each_joined_name(text_, [&](std::string_view name) {
    const uint64_t ref = name_ref(name);
    for (size_t i = slot_of(ref);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.name.data() == nullptr) {
        s = Slot{ref, name};
        ++size_;
        return;
      }
      if (s.ref == ref) return;  // the first of a NameRef is kept
    }
  });
}

size_t NameTable::slot_of(uint64_t ref) const {
  const uint64_t mixed = (ref ^ probe_seed()) * 0x9e3779b97f4a7c15ull;
  return size_t(mixed >> 32) & (slots_.size() - 1);
}

const std::string_view* NameTable::find(uint64_t ref) const {
  if (slots_.empty()) return nullptr;
  for (size_t i = slot_of(ref);; i = (i + 1) & (slots_.size() - 1)) {
    const Slot& s = slots_[i];
    if (s.name.data() == nullptr) return nullptr;
    if (s.ref == ref) return &s.name;
  }
}

uint64_t name_ref(std::string_view name) { return util::md5_low64(name); }

namespace {

// A blob's key in the cache: its size and a sample of its bytes. The cache
// compares blobs in full, so the key only spreads them; hashing each of 67
// profiles' blobs whole cost as much as that comparison.
uint64_t blob_key(std::span<const uint8_t> b) {
  uint64_t h = (b.size() + 1) * 0x9e3779b97f4a7c15ull;
  const size_t step = std::max<size_t>(1, b.size() / 64);
  for (size_t i = 0; i < b.size(); i += step) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

}  // namespace

Expected<std::shared_ptr<const NameTable>> NameTableCache::table(std::span<const uint8_t> blob, uint64_t base) {
  const uint64_t key = blob_key(blob);
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
  auto names = joined_profile_names(blob, base);
  std::shared_ptr<NameTable> decoded;
  if (names) decoded = std::make_shared<NameTable>(std::move(*names));
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
  auto names = joined_profile_names(blob, base);
  if (!names) return std::move(names).error();
  return std::shared_ptr<const NameTable>(std::make_shared<NameTable>(std::move(*names)));
}

}  // namespace covkit::clang
