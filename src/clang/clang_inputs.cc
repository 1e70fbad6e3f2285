#include "clang/clang_inputs.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

#include "clang/coverage_mapping_reader.h"
#include "clang/elf_sections.h"
#include "clang/profdata_reader.h"
#include "clang/profraw_reader.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/printable.h"
#include "util/thread_pool.h"

namespace covkit::clang {

namespace {

bool ends_with(const std::string& s, std::string_view suffix) { return std::string_view(s).ends_with(suffix); }


// Shared libraries are named lib.so or lib.so.1.2 and need not be executable.
bool shared_library_name(const std::string& name) {
  return ends_with(name, ".so") || name.find(".so.") != std::string::npos;
}

std::array<uint8_t, 18> first_bytes(int fd, size_t& got) {
  std::array<uint8_t, 18> b{};
  const ssize_t n = pread(fd, b.data(), b.size(), 0);
  got = n > 0 ? size_t(n) : 0;
  return b;
}

// An executable or shared library (not an object file: the program that
// links it holds the same mapping) with a coverage mapping. Opened once:
// a build tree's executables are many (zstd's: 103 files with an x bit),
// and each open of a regular file is three system calls and a /proc look-up.
bool instrumented_binary(const std::string& path) {
  auto fd = util::open_input_file(path);
  if (!fd) return false;
  size_t got = 0;
  auto head = first_bytes(fd->get(), got);
  if (got < 18 || !looks_like_elf(std::span(head.data(), got))) return false;
  const uint16_t type = head[5] == 2 ? uint16_t(head[16] << 8 | head[17]) : uint16_t(head[17] << 8 | head[16]);
  if (type != 2 && type != 3) return false;
  auto data = util::read_open_file(fd->get(), path);
  return data && has_coverage_mapping(data->bytes());
}

void walk(const std::string& dir, bool want_binaries, ClangInputs& out, int depth) {
  if (depth > 64) return;
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  // Names and their types as the directory gives them: most entries of a
  // build tree need no stat (directories, profiles; and, when binaries are
  // named by --object, every file), and one that does is looked at beside
  // its directory's descriptor, not by its whole path again.
  std::vector<std::pair<std::string, unsigned char>> names;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    names.emplace_back(std::move(name), e->d_type);
  }
  std::sort(names.begin(), names.end());
  const int dir_fd = dirfd(d);
  for (const auto& [name, type] : names) {
    const std::string path = dir + (dir.ends_with('/') ? "" : "/") + name;
    bool is_dir = type == DT_DIR, is_file = type == DT_REG;
    mode_t mode = 0;
    const bool need_mode = type == DT_UNKNOWN || (is_file && !profile_name(name) && want_binaries);
    if (need_mode) {
      struct stat st;
      if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      is_dir = S_ISDIR(st.st_mode);
      is_file = S_ISREG(st.st_mode);
      mode = st.st_mode;
    }
    if (is_dir) {
      if (name[0] != '.') walk(path, want_binaries, out, depth + 1);
      continue;
    }
    if (!is_file) continue;
    if (profile_name(name)) {
      out.profiles.push_back(path);
    } else if (want_binaries && ((mode & S_IXUSR) || shared_library_name(name)) && instrumented_binary(path)) {
      out.binaries.push_back(path);
    }
  }
  closedir(d);
}

std::string some_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 3; ++i) out += (i ? ", " : "") + util::printable(names[i]);
  if (names.size() > 3) out += fmt::format(" and {} more", names.size() - 3);
  return out;
}

}  // namespace

bool profile_name(const std::string& name) { return ends_with(name, ".profraw") || ends_with(name, ".profdata"); }

FileKind file_kind(const std::string& path) {
  // Regular files only, never a FIFO's or a device's open (a build tree
  // another user can write may hold either), and no link followed with
  // rights its owner lacks.
  auto fd = util::open_input_file(path);
  return fd ? file_kind(fd->get()) : FileKind::kOther;
}

FileKind file_kind(int fd) {
  size_t got = 0;
  auto head = first_bytes(fd, got);
  std::span<const uint8_t> b(head.data(), got);
  if (looks_like_profraw(b)) return FileKind::kProfraw;
  if (looks_like_profdata(b)) return FileKind::kProfdata;
  if (looks_like_elf(b)) return FileKind::kElf;
  return FileKind::kOther;
}

ClangInputs find_clang_inputs(const std::vector<std::string>& paths, const std::vector<std::string>& binaries) {
  ClangInputs out;
  out.binaries = binaries;
  for (const std::string& p : paths) {
    struct stat st;
    if (stat(p.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      walk(p, binaries.empty(), out, 0);
      continue;
    }
    switch (file_kind(p)) {
      case FileKind::kProfraw:
      case FileKind::kProfdata:
        out.profiles.push_back(p);
        break;
      case FileKind::kElf:
        out.binaries.push_back(p);
        break;
      case FileKind::kOther:
        if (profile_name(p)) out.profiles.push_back(p);  // damaged: its reader says how
        break;
    }
  }
  auto unique = [](std::vector<std::string>& v) {
    std::vector<std::string> seen;
    std::erase_if(v, [&](const std::string& s) {
      if (std::find(seen.begin(), seen.end(), s) != seen.end()) return true;
      seen.push_back(s);
      return false;
    });
  };
  unique(out.profiles);
  unique(out.binaries);
  return out;
}

namespace {

// One profile file read: its functions, or why not (a warning), or nothing
// (an empty file).
struct ReadProfile {
  util::FileData data;                   // what `raw` points into
  std::vector<RawProfileRecords> raw;    // a .profraw's profiles, counters where they lie
  std::vector<FunctionCounts> functions; // a .profdata's
  uint64_t variant = 0;
  std::string problem;
  bool empty = false;
};

ReadProfile read_profile_file(const std::string& path, NameTableCache* names) {
  ReadProfile out;
  const std::string shown = util::printable(path);
  // Only a regular file is read (a FIFO planted among the profiles must not
  // block, a device's driver must not run), one reached through another
  // user's link with that user's rights: they chose it.
  auto data = util::read_input_file(path);
  if (!data) {
    out.problem = fmt::format("{}: cannot read the profile: {}", shown, data.error().message);
    return out;
  }
  // A process that died before writing its profile leaves it empty:
  // nothing ran that it could tell, and llvm-profdata skips it silently.
  if (data->bytes().empty()) {
    out.empty = true;
    return out;
  }
  if (looks_like_profraw(data->bytes())) {
    auto raw = scan_profraw(data->bytes(), names);
    if (!raw) {
      out.problem = fmt::format("{}: damaged raw profile, left out: {}", shown, raw.error().describe());
      return out;
    }
    out.raw = std::move(*raw);
    out.data = std::move(*data);  // moved, not copied: the records' spans stay valid
    if (!out.raw.empty()) out.variant = out.raw.back().header.variant;
  } else if (looks_like_profdata(data->bytes())) {
    auto indexed = read_profdata(data->bytes());
    if (!indexed) {
      out.problem = fmt::format("{}: damaged indexed profile, left out: {}", shown, indexed.error().describe());
      return out;
    }
    out.variant = indexed->variant;
    out.functions = std::move(indexed->functions);
  } else {
    out.problem = fmt::format("{}: not a clang profile (neither .profraw nor .profdata), left out", shown);
  }
  return out;
}

// Profiles read on several threads and handed over in the order given, as
// each is read: the adding up (one thread, in order) overlaps the reading
// of the files after, and each file's bytes and records are freed once
// added instead of all being held until the last is read.
class ProfilesInOrder {
 public:
  ProfilesInOrder(const std::vector<std::string>& files, NameTableCache* names)
      : files_(files), names_(names), read_(files.size()), ready_(files.size(), 0) {}

  // Reads files not yet taken by any thread until none is left.
  void read_all() {
    while (read_next()) {
    }
  }
  // File `i`, read: by this thread when no other has started it.
  ReadProfile& wait_for(size_t i) {
    while (!ready(i) && read_next()) {
    }
    std::unique_lock lock(mutex_);
    read_done_.wait(lock, [&] { return ready_[i] != 0; });
    if (failure_) std::rethrow_exception(failure_);
    return read_[i];
  }

 private:
  bool ready(size_t i) {
    std::lock_guard lock(mutex_);
    return ready_[i] != 0;
  }
  bool read_next() {
    const size_t i = next_.fetch_add(1);
    if (i >= files_.size()) return false;
    try {
      read_[i] = read_profile_file(files_[i], names_);
    } catch (...) {  // out of memory: said by the thread that adds up
      std::lock_guard lock(mutex_);
      if (!failure_) failure_ = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      ready_[i] = 1;
    }
    read_done_.notify_all();
    return true;
  }

  const std::vector<std::string>& files_;
  NameTableCache* names_;
  std::vector<ReadProfile> read_;
  std::vector<uint8_t> ready_;  // under mutex_
  std::atomic<size_t> next_{0};
  std::mutex mutex_;
  std::condition_variable read_done_;
  std::exception_ptr failure_;  // under mutex_ until every file is ready
};

// The records of the last profile read with one names table, and where
// ProfileCounts keeps each one's counts: the next run of the same program
// lists the same functions in the same order, and a record whose NameRef
// and hash are those of the record at its place is added there without
// being looked up by name. The table is held, so that its address names it.
struct RecordPlaces {
  struct Place {
    uint64_t name_ref = 0, hash = 0;
    ProfileCounts::Slot slot;
  };
  std::shared_ptr<const NameTable> table;
  std::vector<Place> places;
};

void add_up_profiles(const std::vector<std::string>& files, ProfilesInOrder& in_order, LoadedProfiles& out) {
  std::vector<uint64_t> counts;  // one record's, reused
  std::unordered_map<const NameTable*, RecordPlaces> places_of;
  for (size_t i = 0; i < files.size(); ++i) {
    ReadProfile& r = in_order.wait_for(i);
    const std::string shown = util::printable(files[i]);
    if (r.empty) continue;
    if (!r.problem.empty()) {
      out.warnings.push_back(std::move(r.problem));
      ++out.damaged;
      continue;
    }
    const uint64_t kind = r.variant & (kVariantIrLevel | kVariantContextIr);
    if (out.counts.variant_set && kind != (out.counts.variant & (kVariantIrLevel | kVariantContextIr))) {
      out.warnings.push_back(fmt::format("{}: an IR-level profile (-fprofile-generate) among front-end ones "
                                         "(-fprofile-instr-generate), or the other way round: left out",
                                         shown));
      ++out.damaged;
      continue;
    }
    if (!out.counts.variant_set && (kind & kVariantIrLevel))
      out.warnings.push_back(fmt::format("{}: an IR-level profile (-fprofile-generate): its counters do not match "
                                         "coverage mappings, which -fprofile-instr-generate makes",
                                         shown));
    out.counts.variant = r.variant;
    out.counts.variant_set = true;
    std::vector<std::string> mismatched, overflowed;
    auto note = [&](std::string_view name, ProfileCounts::Added added) {
      switch (added) {
        case ProfileCounts::Added::kCountMismatch:
          mismatched.emplace_back(name);
          break;
        case ProfileCounts::Added::kOverflow:
          overflowed.emplace_back(name);
          break;
        default:
          break;
      }
    };
    for (const FunctionCounts& f : r.functions)
      note(f.name, out.counts.add(f.name, name_ref(f.name), f.hash, f.counts));
    for (const RawProfileRecords& p : r.raw) {
      RecordPlaces& known = places_of[p.names.get()];
      if (!known.table) known.table = p.names;
      if (known.places.size() < p.records.size()) known.places.resize(p.records.size());
      for (size_t k = 0; k < p.records.size(); ++k) {
        const RawRecord& rec = p.records[k];
        record_counts(p, rec, counts);
        RecordPlaces::Place& place = known.places[k];
        if (place.slot.named != ProfileCounts::Slot{}.named && place.name_ref == rec.name_ref &&
            place.hash == rec.hash) {
          note(rec.name, out.counts.add_at(place.slot, counts));
          continue;
        }
        place.name_ref = rec.name_ref;
        place.hash = rec.hash;
        note(rec.name, out.counts.add(rec.name, rec.name_ref, rec.hash, counts, place.slot));
      }
    }
    r = ReadProfile{};  // its bytes and names are no longer needed
    if (!mismatched.empty())
      out.warnings.push_back(fmt::format("{}: {} function{} with another number of counters than in the profiles "
                                         "before (another build of the program?), left out: {}",
                                         shown, mismatched.size(), mismatched.size() == 1 ? "" : "s",
                                         some_names(mismatched)));
    if (!overflowed.empty())
      out.warnings.push_back(fmt::format("{}: counters of {} function{} overflowed 2^64-1 when added (kept at "
                                         "2^64-1): {}",
                                         shown, overflowed.size(), overflowed.size() == 1 ? "" : "s",
                                         some_names(overflowed)));
    ++out.read;
  }
}

}  // namespace

LoadedProfiles load_profiles(const std::vector<std::string>& files, unsigned threads, NameTableCache* names) {
  LoadedProfiles out;
  // Read and decoded in parallel, added up in the order given (job 0, on
  // whichever thread takes it, while the others read).
  ProfilesInOrder in_order(files, names);
  util::parallel_for(std::max(1u, threads), std::max(1u, threads), [&](size_t job) {
    if (job == 0)
      add_up_profiles(files, in_order, out);
    else
      in_order.read_all();
  });
  return out;
}

namespace {

// A binary read as far as its function records.
struct IndexedBinary {
  util::FileData data;  // what the index's spans point into
  std::optional<Expected<MappingIndex>> index;
  std::vector<uint64_t> keys;  // encoding_key of each function, hashed on the thread that read it
};

// Where a function record was seen first: binary and record.
struct RecordAt {
  size_t binary = 0, record = 0;
};

// Records alike (decode_alike) have the same name, hash and mapping bytes:
// the key only spreads them, from the record's NameRef, hash and size and
// the mapping's first and last bytes (hashing the whole mappings of 29,000
// records was 2% of a report). A key's records are compared in full.
uint64_t encoding_key(const EncodedFunction& f, bool big_endian) {
  constexpr uint64_t kMix = 0x9e3779b97f4a7c15ull;
  const size_t n = f.mapping.size(), edge = std::min<size_t>(n, 8);
  uint64_t head = 0, tail = 0;
  if (edge > 0) {
    std::memcpy(&head, f.mapping.data(), edge);
    std::memcpy(&tail, f.mapping.data() + (n - edge), edge);
  }
  uint64_t key = f.name_ref;
  for (uint64_t v : {f.hash, uint64_t(n), head, tail}) key = (key ^ v) * kMix + (key >> 29);
  return key + big_endian;
}

}  // namespace

LoadedMappings load_mappings(const std::vector<std::string>& binaries, const ProfileCounts& profile,
                             unsigned threads, NameTableCache* names) {
  LoadedMappings out;
  // 1. Each binary's function records found, in parallel.
  std::vector<IndexedBinary> bins(binaries.size());
  util::parallel_for(binaries.size(), threads, [&](size_t i) {
    // Found in a tree another user may write: read as every input is
    // (another user's link with their rights), not through any link.
    auto data = util::read_input_file(binaries[i]);
    if (!data) {
      bins[i].index.emplace(Error("cannot read the binary: " + data.error().message));
      return;
    }
    bins[i].data = std::move(*data);
    auto m = index_coverage_mapping(bins[i].data.bytes(), names);
    if (!m) {
      bins[i].index.emplace(Error("damaged coverage mapping, left out: " + m.error().describe()));
      return;
    }
    bins[i].keys.reserve(m->functions.size());
    for (const EncodedFunction& f : m->functions) bins[i].keys.push_back(encoding_key(f, m->big_endian));
    bins[i].index.emplace(std::move(*m));
  });
  auto usable = [&](size_t i) { return *bins[i].index && (*bins[i].index)->has_mapping; };
  // One llvm-cov reads all the binaries: the one of the newest clang that
  // built them, the newest rules when no binary says.
  unsigned newest_clang = 0;
  for (size_t i = 0; i < bins.size(); ++i)
    if (usable(i)) newest_clang = std::max(newest_clang, (*bins[i].index)->clang_major);
  const auto rule = newest_clang != 0 && newest_clang <= 14 ? ProfileCounts::MismatchRule::kAnyOtherHash
                                                            : ProfileCounts::MismatchRule::kSameContextFlag;

  // 2. A record that another binary (one before it) holds byte for byte
  // decodes to the same function: only the first is decoded, and the
  // others are counted from it (programs linking one library's sources).
  // Records are numbered across the binaries in order (base[i] + k).
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<size_t> base(bins.size() + 1, 0);
  for (size_t i = 0; i < bins.size(); ++i)
    base[i + 1] = base[i] + (usable(i) ? (*bins[i].index)->functions.size() : 0);
  const size_t records = base.back();
  // 2a. Each encoding key's records in order, chained through one array
  // (a vector per key cost an allocation per distinct record).
  std::vector<RecordAt> at_of(records);
  std::vector<uint32_t> next_of_key(records, kNone), first_of_key(records, kNone);
  {
    struct Chain {
      uint32_t head, tail;
    };
    std::unordered_map<uint64_t, Chain> chains;
    chains.reserve(records);
    for (size_t i = 0; i < bins.size(); ++i) {
      if (!usable(i)) continue;
      for (size_t k = 0; k < (*bins[i].index)->functions.size(); ++k) {
        const uint32_t g = uint32_t(base[i] + k);
        at_of[g] = RecordAt{i, k};
        auto [chain, fresh] = chains.try_emplace(bins[i].keys[k], Chain{g, g});
        if (!fresh) {
          next_of_key[chain->second.tail] = g;
          chain->second.tail = g;
        }
        first_of_key[g] = chain->second.head;
      }
    }
  }
  // 2b. Each record's first alike record before it, found on every
  // thread: being alike is an equivalence, so the first one alike is
  // itself a first copy. Records crafted to share a key are compared with
  // a few only (one not found then is decoded itself: the same counts).
  std::vector<uint32_t> alike_of(records, kNone);
  constexpr size_t kComparedPerKey = 8;
  constexpr size_t kAlikeChunk = 1024;
  util::parallel_for((records + kAlikeChunk - 1) / kAlikeChunk, threads, [&](size_t c) {
    for (size_t g = c * kAlikeChunk; g < std::min(records, (c + 1) * kAlikeChunk); ++g) {
      const RecordAt at = at_of[g];
      const MappingIndex& index = **bins[at.binary].index;
      const EncodedFunction& f = index.functions[at.record];
      size_t compared = 0;
      for (uint32_t h = first_of_key[g]; h != g && h != kNone && compared < kComparedPerKey;
           h = next_of_key[h], ++compared) {
        const RecordAt o = at_of[h];
        const MappingIndex& other = **bins[o.binary].index;
        if (other.big_endian == index.big_endian && decode_alike(other.functions[o.record], f)) {
          alike_of[g] = h;
          break;
        }
      }
    }
  });
  // 2c. The first copies, in order, and where each one's decoding lands.
  std::vector<RecordAt> to_decode;
  std::vector<uint32_t> decoded_slot(records, kNone);
  for (size_t g = 0; g < records; ++g) {
    if (alike_of[g] != kNone) continue;
    decoded_slot[g] = uint32_t(to_decode.size());
    to_decode.push_back(at_of[g]);
  }

  // 3. The first copies decoded and counted, in parallel, into one array:
  // slots per record of every binary (29,000 for zstd's 17 programs) cost
  // more to make and free than decoding the 10,000 distinct ones. A
  // function's counts do not depend on the binaries before it (only
  // whether one like it was taken does, step 4), and a thread's decoding
  // reuses one mapping's room: only the counted record is kept.
  struct Decoded {
    std::optional<Error> damage;
    CountedFunction counted;
  };
  std::vector<Decoded> decoded(to_decode.size());
  constexpr size_t kChunk = 256;
  util::parallel_for((to_decode.size() + kChunk - 1) / kChunk, threads, [&](size_t c) {
    FunctionMapping mapping;
    for (size_t j = c * kChunk; j < std::min(to_decode.size(), (c + 1) * kChunk); ++j) {
      const RecordAt at = to_decode[j];
      const MappingIndex& index = **bins[at.binary].index;
      if (auto d = decode_function(index, index.functions[at.record], mapping); !d)
        decoded[j].damage = std::move(d).error();
      else
        decoded[j].counted = count_function(std::move(mapping), profile, rule);  // takes its file names only
    }
  });

  std::deque<CountedFunction> redecoded;  // copies of a damaged first copy (they stay put)
  out.set.reserve(to_decode.size());      // at most the distinct ones are taken (copies aside)
  // 4. Taken in the order given (the first binary's copy of a shared
  // function is the one kept, as llvm-cov keeps it).
  for (size_t i = 0; i < binaries.size(); ++i) {
    const std::string shown = util::printable(binaries[i]);
    Expected<MappingIndex>& index = *bins[i].index;
    if (!index) {
      out.warnings.push_back(fmt::format("{}: {}", shown, index.error().message));
      ++out.damaged;
      continue;
    }
    if (!index->has_mapping) {
      out.warnings.push_back(fmt::format("{}: no coverage mapping (built without -fprofile-instr-generate "
                                         "-fcoverage-mapping?), left out",
                                         shown));
      ++out.without_mapping;
      continue;
    }
    // The binary's functions in record order; the first damaged one
    // leaves the binary out, as reading it whole did.
    std::vector<CountedFunction*> functions;
    functions.reserve(index->functions.size());
    std::optional<Error> damage;
    for (size_t k = 0; k < index->functions.size() && !damage; ++k) {
      const size_t g = base[i] + k;
      const bool copy = alike_of[g] != kNone;  // of a record decoded before
      Decoded& d = decoded[decoded_slot[copy ? alike_of[g] : g]];
      if (!d.damage) {
        functions.push_back(&d.counted);
        continue;
      }
      if (!copy) {
        damage = d.damage;
        continue;
      }
      // A damaged first copy: this one is too, and says where.
      auto again = decode_function(*index, index->functions[k]);
      if (!again)
        damage = again.error();
      else
        functions.push_back(&redecoded.emplace_back(count_function(*again, profile, rule)));
    }
    if (damage) {
      out.warnings.push_back(fmt::format("{}: damaged coverage mapping, left out: {}", shown, damage->describe()));
      ++out.damaged;
      continue;
    }
    std::vector<MismatchedFunction> mismatched;
    out.set.add(functions, mismatched);
    if (!mismatched.empty()) {
      std::vector<std::string> names;
      for (const MismatchedFunction& m : mismatched) names.push_back(m.name);
      out.warnings.push_back(fmt::format("{}: {} function{} {} mismatched data: the profile's record has another "
                                         "hash (a profile of another build), left out: {}",
                                         shown, mismatched.size(), mismatched.size() == 1 ? "" : "s",
                                         mismatched.size() == 1 ? "has" : "have", some_names(names)));
    }
    ++out.read;
  }
  return out;
}

}  // namespace covkit::clang
