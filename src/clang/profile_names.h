#pragma once
// Function names as clang's profiles and binaries store them (a raw
// profile's names, a binary's __llvm_prf_names section): a sequence of
// blocks, each [uncompressed size: LEB128][compressed size: LEB128][bytes],
// the bytes zlib-compressed unless the compressed size is 0, holding names
// separated by '\x01'; zero bytes pad between blocks. Records refer to a
// name by its NameRef, the low 64 bits of its MD5 (util::md5_low64).
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/expected.h"

namespace covkit::clang {

// The names of a names blob, in order. `base` is the blob's offset in its
// file, for the error's byte offset.
Expected<std::vector<std::string>> decode_profile_names(std::span<const uint8_t> blob, uint64_t base = 0);

// Names already MD5'd, with their NameRef: the blobs of several programs
// that link one library's sources repeat its names (zstd's 17 programs
// hold 65,000 names, 7,400 of them distinct), and the MD5s were a tenth of
// a report's time. Shared by the tables of one NameTableCache, on any
// thread. Its names are views into those tables' text, which must outlive
// it. Names from a hostile file may be crafted to share a bucket: a name
// that finds neither itself nor room within a few slots is hashed and not
// kept, so the memo never costs more than a few compares per name.
class NameRefMemo {
 public:
  // The NameRef of each of `names`, in order.
  void refs_of(const std::vector<std::string_view>& names, std::vector<uint64_t>& refs);

 private:
  struct Slot {
    uint64_t hash = 0;
    std::string_view name;  // null data: empty
    uint64_t ref = 0;
  };
  static constexpr size_t kMaxProbe = 16;
  // The slot holding `name`, or an empty one to put it in, or null.
  Slot* slot_for(std::string_view name, uint64_t hash);
  void grow();
  std::mutex mutex_;
  std::vector<Slot> slots_;  // a power of two, at most half full
  size_t size_ = 0;
};

// NameRef -> name, of one names blob: the names in one buffer and a flat
// table of their NameRefs (a table per name and a string per name cost
// more than the MD5s for the 29,000 names of zstd's 17 programs).
class NameTable {
 public:
  NameTable() = default;
  // `joined`: names each followed by '\x01' (joined_profile_names).
  // `memo`: NameRefs known from other tables (it keeps views of this
  // table's names: the table must outlive it).
  explicit NameTable(std::string joined, NameRefMemo* memo = nullptr);
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;
  // Nullopt when no name has this NameRef; else a view into this table.
  std::optional<std::string_view> find(uint64_t name_ref) const;
  size_t size() const { return size_; }

 private:
  // A name as its place in text_: 16 bytes, not a view's 24 (a report
  // looks up 144,000 records in 17 tables of ~8,000 slots, mostly cache
  // misses). Names are at most kMaxNamesText into a joined blob; one
  // further than 4 GiB into a text given directly is not indexed.
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    uint64_t ref = 0;
    uint32_t at = kEmpty;  // kEmpty: an empty slot
    uint32_t size = 0;
  };
  size_t slot_of(uint64_t ref) const;
  std::string text_;
  std::vector<Slot> slots_;  // a power of two, at most half full
  size_t size_ = 0;
};

// A blob's names joined, each followed by '\x01', or why it is damaged
// (as decode_profile_names).
Expected<std::string> joined_profile_names(std::span<const uint8_t> blob, uint64_t base = 0);

uint64_t name_ref(std::string_view name);

// Names blobs decoded once and shared: every profile a program's runs
// write holds the names its binary holds, byte for byte, so a report of 67
// runs of 17 programs decodes (inflates and MD5s) 17 blobs, not 84. A blob
// is known by its bytes (compared in full, not trusted to a hash); one
// that fails to decode is not kept, so its error is the same every time.
// Safe to use from several threads: a thread that asks for a blob another
// is decoding waits for that table instead of decoding it too (two runs of
// one program read side by side did).
class NameTableCache {
 public:
  // The table of `blob`, or decode_profile_names' error (`base` as there).
  Expected<std::shared_ptr<const NameTable>> table(std::span<const uint8_t> blob, uint64_t base = 0);

 private:
  struct Known {
    std::vector<uint8_t> blob;
    std::shared_ptr<const NameTable> table;  // null while it is being decoded
  };
  std::mutex mutex_;
  std::condition_variable decoded_;
  std::unordered_map<uint64_t, std::vector<Known>> known_;  // by a hash of the blob
  NameRefMemo refs_;  // after known_: destroyed before the tables its names point into
};

// The table of `blob`: from `cache` when there is one, else decoded.
Expected<std::shared_ptr<const NameTable>> name_table(std::span<const uint8_t> blob, uint64_t base,
                                                      NameTableCache* cache);

}  // namespace covkit::clang
