#include "clang/profile_names.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>

#include "clang/byte_cursor.h"
#include "util/md5.h"
#include "util/zlib_inflate.h"

namespace covkit::clang {

namespace {

// The most a names blob may hold: far beyond any program (a clang binary
// holds ~300,000 names in ~40 MB), far below what a small hostile blob
// would cost: names inflate a thousandfold, and each takes its slots in a
// NameTable (65 KB of compressed "a\x01a\x01..." made covkit take 3 GB; a
// 3 MB profile of six 512 MiB blocks, 4 GB).
constexpr uint64_t kMaxNamesText = uint64_t(1) << 30;
constexpr size_t kMaxNames = size_t(1) << 23;
// The most a compressed block's names may inflate to, per compressed byte.
// Real names compress 5x to 9x (jsoncpp's blocks, built by clang 16: 5.2x
// to 8.4x); zlib reaches 1032x on repeated bytes, which made a 24 KB
// profile of 2^23 one-byte names cost 820 MB and a 98 KB one of four
// profiles 3.26 GB. With this limit a blob costs at most 64 times its
// bytes in text, whatever it holds.
constexpr uint64_t kMaxNamesInflation = 64;

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
    if (*plain_size > kMaxNamesText - std::min<uint64_t>(joined.size(), kMaxNamesText))
      return Error(block, fmt::format("claims {} more bytes of function names, past the {} MiB a program's come to",
                                      *plain_size, kMaxNamesText >> 20));
    if (packed && *plain_size > kMaxNamesInflation * *packed_size)
      return Error(block, fmt::format("claims {} bytes of function names from {} compressed ones, more than {} "
                                      "times (names compress less than 10 times)",
                                      *plain_size, *packed_size, kMaxNamesInflation));
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
  if (size_t(std::count(joined.begin(), joined.end(), '\x01')) > kMaxNames)
    return Error(base, fmt::format("more than {} function names", kMaxNames));
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

NameTable::NameTable(std::string joined, NameRefMemo* memo) : text_(std::move(joined)) {
  size_t count = 1;  // the names: one more than the separators
  for (const char *at = text_.data(), *end = at + text_.size();
       (at = static_cast<const char*>(std::memchr(at, '\x01', size_t(end - at)))) != nullptr; ++at)
    ++count;
  // Room for the names' count, up to a point: past it the table grows with
  // the distinct names (a hostile blob's 2^23 names may be 255 one-byte
  // names over and over, whose slots for 2^24 took 400 MB).
  constexpr size_t kRoomAhead = size_t(1) << 20;
  size_t capacity = 16;
  while (capacity < 2 * std::min(count, kRoomAhead)) capacity *= 2;
  slots_.resize(capacity);
  auto place = [&](const Slot& slot) {
    for (size_t i = slot_of(slot.ref);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.at == kEmpty) {
        s = slot;
        ++size_;
        return;
      }
      if (s.ref == slot.ref) return;  // the first of a NameRef is kept
    }
  };
  auto insert = [&](std::string_view name, uint64_t ref) {
    const size_t at = size_t(name.data() - text_.data());
    if (at >= kEmpty || name.size() >= kEmpty - at) return;
    if (2 * (size_ + 1) > slots_.size()) {
      std::vector<Slot> old(slots_.size() * 2);
      old.swap(slots_);
      size_ = 0;
      for (const Slot& o : old)
        if (o.at != kEmpty) place(o);
    }
    place(Slot{ref, uint32_t(at), uint32_t(name.size())});
  };
  if (!memo) {
    each_joined_name(text_, [&](std::string_view name) { insert(name, name_ref(name)); });
    return;
  }
  // A few hundred names at a time: the memo locks once per batch, and the
  // batch's room is reused (a whole blob's views and refs were pages of
  // their own).
  constexpr size_t kBatch = 512;
  std::vector<std::string_view> batch;
  std::vector<uint64_t> refs;
  batch.reserve(kBatch);
  auto flush = [&] {
    memo->refs_of(batch, refs);
    for (size_t k = 0; k < batch.size(); ++k) insert(batch[k], refs[k]);
    batch.clear();
  };
  each_joined_name(text_, [&](std::string_view name) {
    batch.push_back(name);
    if (batch.size() == kBatch) flush();
  });
  if (!batch.empty()) flush();
}

size_t NameTable::slot_of(uint64_t ref) const {
  const uint64_t mixed = (ref ^ probe_seed()) * 0x9e3779b97f4a7c15ull;
  return size_t(mixed >> 32) & (slots_.size() - 1);
}

std::optional<std::string_view> NameTable::find(uint64_t ref) const {
  if (slots_.empty()) return std::nullopt;
  for (size_t i = slot_of(ref);; i = (i + 1) & (slots_.size() - 1)) {
    const Slot& s = slots_[i];
    if (s.at == kEmpty) return std::nullopt;
    if (s.ref == ref) return std::string_view(text_).substr(s.at, s.size);
  }
}

uint64_t name_ref(std::string_view name) { return util::md5_low64(name); }

namespace {

// A name's bucket in the memo, mixed with the per-process seed (the
// string hash alone is not keyed).
uint64_t memo_hash(std::string_view name) {
  return (std::hash<std::string_view>{}(name) ^ probe_seed()) * 0x9e3779b97f4a7c15ull;
}

}  // namespace

NameRefMemo::Slot* NameRefMemo::slot_for(std::string_view name, uint64_t hash) {
  if (slots_.empty()) return nullptr;
  const size_t mask = slots_.size() - 1;
  size_t i = size_t(hash >> 32) & mask;
  for (size_t probe = 0; probe < kMaxProbe; ++probe, i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.name.data() == nullptr || (s.hash == hash && s.name == name)) return &s;
  }
  return nullptr;
}

void NameRefMemo::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(std::max<size_t>(1024, old.size() * 2), Slot{});
  size_ = 0;
  for (const Slot& o : old) {
    if (o.name.data() == nullptr) continue;
    if (Slot* s = slot_for(o.name, o.hash)) {  // one that finds no room is forgotten
      *s = o;
      ++size_;
    }
  }
}

void NameRefMemo::refs_of(const std::vector<std::string_view>& names, std::vector<uint64_t>& refs) {
  refs.assign(names.size(), 0);
  std::vector<uint64_t> hashes(names.size());
  std::vector<size_t> unknown;
  {
    std::lock_guard lock(mutex_);
    for (size_t k = 0; k < names.size(); ++k) {
      hashes[k] = memo_hash(names[k]);
      const Slot* s = slot_for(names[k], hashes[k]);
      if (s && s->name.data() != nullptr)
        refs[k] = s->ref;
      else
        unknown.push_back(k);
    }
  }
  // The MD5s outside the lock: another thread's table may be looking.
  for (size_t k : unknown) refs[k] = name_ref(names[k]);
  std::lock_guard lock(mutex_);
  for (size_t k : unknown) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    Slot* s = slot_for(names[k], hashes[k]);
    if (!s || s->name.data() != nullptr) continue;  // no room near it, or put there meanwhile
    *s = Slot{hashes[k], names[k], refs[k]};
    ++size_;
  }
}

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
  if (names) decoded = std::make_shared<NameTable>(std::move(*names), &refs_);
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
