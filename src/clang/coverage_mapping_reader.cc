#include "clang/coverage_mapping_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

#include "clang/byte_cursor.h"
#include "clang/elf_sections.h"
#include "clang/producer_version.h"
#include "clang/profile_names.h"
#include "util/md5.h"
#include "util/zlib_inflate.h"

namespace covkit::clang {

namespace {

// The header's version word counts from 0: 3 is format 4, 5 is format 6.
constexpr uint32_t kFirstVersionWord = 3;
constexpr uint32_t kLastVersionWord = 5;
constexpr size_t kCovfunHeaderBytes = 8 + 4 + 8 + 8;  // NameRef, data size, hash, FilenamesRef
constexpr uint64_t kGapBit = 1ull << 31;
constexpr uint64_t kMaxUnsigned = std::numeric_limits<uint32_t>::max();

// LLVM's path::append of one relative name to a directory, then
// remove_dots with ".." folded: "/b/x/../y.c" is "/b/y.c".
std::string join_compile_dir(const std::string& dir, const std::string& name) {
  std::string joined = dir;
  if (!joined.empty() && joined.back() != '/') joined += '/';
  joined += name;
  const bool absolute = !joined.empty() && joined[0] == '/';
  std::vector<std::string_view> parts;
  std::string_view rest = joined;
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    std::string_view c = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
        continue;
      }
      if (absolute) continue;
    }
    parts.push_back(c);
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '/';
    out += parts[i];
  }
  return out;
}

// A LEB128 that must not exceed the bytes left (a count of things that each
// take at least a byte, or a length).
std::optional<uint64_t> read_size(ByteCursor& in) {
  auto v = in.uleb128();
  if (!v || *v > in.remaining()) return std::nullopt;
  return v;
}

// What a binary's units' file names may come to as decoded (each name's
// bytes and its string), per byte of its coverage map, plus a floor. Real
// lists take 2x to 8x their bytes (a unit's list is compressed 2x to 10x,
// and format 6 joins each relative name to the compile directory); a
// hostile list inflated to 1 GiB (zlib's own limit), six of them in a 3 MB
// binary took 2.06 GB and 62 s, and a long compile directory joined to
// each of many one-byte names would have taken terabytes.
constexpr uint64_t kFileNamesPerMapByte = 64;
constexpr uint64_t kFileNamesFloor = uint64_t(1) << 20;

// A translation unit's file names; `budget` is what the binary's names
// may still take (the error says when they would take more).
Expected<std::vector<std::string>> decode_filenames(ByteCursor in, uint32_t version_word, uint64_t& budget) {
  const uint64_t where = in.offset();
  auto count = read_size(in);
  if (!count) return Error(where, "the number of file names is damaged");
  if (*count == 0) return Error(where, "a translation unit without file names");
  auto plain_size = in.uleb128();
  auto packed_size = read_size(in);
  if (!plain_size || !packed_size) return Error(where, "the file names' sizes are damaged");
  const auto over_budget = [&] {
    return Error(where, fmt::format("the units' file names come to more than {} times the coverage map's bytes "
                                    "and 1 MiB, covkit's limit for them (real ones take less than 10 times)",
                                    kFileNamesPerMapByte));
  };
  if (*plain_size > budget) return over_budget();
  std::string inflated;
  ByteCursor names = in;
  if (*packed_size > 0) {
    auto plain = util::zlib_inflate_exact(*in.bytes(size_t(*packed_size)), *plain_size);
    if (!plain) return Error(where, "compressed file names: " + plain.error().message);
    inflated = std::move(*plain);
    names = ByteCursor(std::span(reinterpret_cast<const uint8_t*>(inflated.data()), inflated.size()));
  }
  std::vector<std::string> out;
  std::string compile_dir;
  for (uint64_t i = 0; i < *count; ++i) {
    auto len = read_size(names);
    if (!len) return Error(where, fmt::format("file name {} of {} is cut short", i + 1, *count));
    std::string name(*names.text(size_t(*len)));
    // Format 6: the first name is the compile directory, which the
    // relative names below are joined to.
    if (version_word >= 5) {
      if (i == 0) {
        compile_dir = name;
      } else if (name.empty() || name[0] != '/') {
        name = join_compile_dir(compile_dir, name);
      }
    }
    const uint64_t cost = name.size() + sizeof(std::string);
    if (cost > budget) return over_budget();
    budget -= cost;
    out.push_back(std::move(name));
  }
  return out;
}

Counter::Kind counter_kind(uint64_t tag) { return tag == 1 ? Counter::kCounter : Counter::kExpression; }

// Decodes one function's mapping (RawCoverageMappingReader's format).
class MappingDecoder {
 public:
  MappingDecoder(ByteCursor in, const std::vector<std::string>& unit_files, FunctionMapping& out)
      : in_(in), unit_files_(unit_files), out_(out) {}

  Expected<void> decode() {
    auto nfiles = read_size(in_);
    if (!nfiles) return damage("the number of file ids");
    for (uint64_t i = 0; i < *nfiles; ++i) {
      auto index = in_.uleb128();
      if (!index || *index >= unit_files_.size()) return damage("a file id's file name index");
      out_.filenames.push_back(unit_files_[size_t(*index)]);
    }
    auto nexpr = read_size(in_);
    if (!nexpr) return damage("the number of expressions");
    out_.expressions.resize(size_t(*nexpr));
    for (CounterExpression& e : out_.expressions) {
      if (!read_counter(e.lhs) || !read_counter(e.rhs)) return damage("an expression");
    }
    for (uint32_t file = 0; file < out_.filenames.size(); ++file)
      if (auto r = decode_regions(file); !r) return r;
    return propagate_expansion_counts();
  }

 private:
  Error damage(const char* what) const { return in_.error(fmt::format("{}: {} is damaged", out_.name, what)); }

  bool decode_counter(uint64_t value, Counter& c) {
    const uint64_t tag = value & 3;
    if (tag == 0) {
      c = Counter{};
      return true;
    }
    c.kind = counter_kind(tag);
    c.id = uint32_t(value >> 2);
    if (c.kind == Counter::kExpression) {
      if (c.id >= out_.expressions.size()) return false;
      // The referring counter says whether the expression subtracts or adds.
      out_.expressions[c.id].subtract = tag == 2;
    }
    return true;
  }
  bool read_counter(Counter& c) {
    auto v = in_.uleb128();
    return v && *v < kMaxUnsigned && decode_counter(*v, c);
  }

  Expected<void> decode_regions(uint32_t file) {
    auto nregions = read_size(in_);
    if (!nregions) return damage("the number of regions");
    // A region takes at least 5 bytes (its header and range), so a
    // damaged count reserves no more than the bytes left allow.
    const size_t wanted = out_.regions.size() + size_t(std::min<uint64_t>(*nregions, in_.remaining() / 5));
    if (wanted > out_.regions.capacity()) out_.regions.reserve(std::max(wanted, 2 * out_.regions.capacity()));
    uint64_t line = 0;
    for (uint64_t i = 0; i < *nregions; ++i) {
      MappingRegion r;
      r.file_id = file;
      auto header = in_.uleb128();
      if (!header || *header >= kMaxUnsigned) return damage("a region's header");
      if ((*header & 3) != 0) {
        if (!decode_counter(*header, r.count)) return damage("a region's counter");
      } else if (*header & 4) {
        r.kind = RegionKind::kExpansion;
        r.expanded_file_id = uint32_t(*header >> 3);
        if (r.expanded_file_id >= out_.filenames.size()) return damage("an expansion's file id");
      } else {
        switch (*header >> 3) {
          case 0:  // code counted by the zero counter
            break;
          case 2:
            r.kind = RegionKind::kSkipped;
            break;
          case 4:
            r.kind = RegionKind::kBranch;
            if (!read_counter(r.count) || !read_counter(r.false_count)) return damage("a branch's counters");
            break;
          default:
            return damage("a region's kind");
        }
      }
      auto delta = in_.uleb128();
      auto col_start = in_.uleb128();
      auto nlines = in_.uleb128();
      auto col_end = in_.uleb128();
      if (!delta || !col_start || !nlines || !col_end || *delta >= kMaxUnsigned || *col_start > kMaxUnsigned ||
          *nlines >= kMaxUnsigned || *col_end >= kMaxUnsigned)
        return damage("a region's range");
      line += *delta;
      uint64_t end_col = *col_end, start_col = *col_start;
      if (end_col & kGapBit) {
        r.kind = RegionKind::kGap;
        end_col &= ~kGapBit;
      }
      // A whole line is encoded as columns 0 to 0.
      if (start_col == 0 && end_col == 0) {
        start_col = 1;
        end_col = kMaxUnsigned;
      }
      if (line > kMaxUnsigned || line + *nlines > kMaxUnsigned) return damage("a region's lines");
      r.line_start = uint32_t(line);
      r.line_end = uint32_t(line + *nlines);
      r.column_start = uint32_t(start_col);
      r.column_end = uint32_t(end_col);
      if (r.line_start == r.line_end && r.column_start > r.column_end) return damage("a region's columns");
      out_.regions.push_back(r);
    }
    return {};
  }

  // An expansion region counts what the first region of the file it
  // expands counts; nested expansions take several passes.
  Expected<void> propagate_expansion_counts() {
    std::vector<MappingRegion*> expanding(out_.filenames.size(), nullptr);
    for (size_t pass = 0; pass <= out_.regions.size() + 1; ++pass) {
      for (MappingRegion& r : out_.regions)
        if (r.kind == RegionKind::kExpansion) expanding[r.expanded_file_id] = &r;
      bool changed = false;
      for (MappingRegion& r : out_.regions) {
        MappingRegion*& slot = expanding[r.file_id];
        if (!slot) continue;
        if (!(slot->count == r.count)) {
          slot->count = r.count;
          changed = true;
        }
        slot = nullptr;
      }
      if (!changed) return {};
    }
    return damage("expansions that expand each other");
  }

  ByteCursor in_;
  const std::vector<std::string>& unit_files_;
  FunctionMapping& out_;
};

// A record emitted for a function a unit saw but did not use: hash 0, one
// file, no expressions, one region counted by zero.
bool is_dummy_mapping(uint64_t hash, std::span<const uint8_t> mapping) {
  if (hash != 0) return false;
  ByteCursor in(mapping);
  auto nfiles = in.uleb128();
  if (!nfiles || *nfiles != 1 || !in.uleb128()) return false;
  auto nexpr = in.uleb128();
  if (!nexpr || *nexpr != 0) return false;
  auto nregions = in.uleb128();
  if (!nregions || *nregions != 1) return false;
  auto header = in.uleb128();
  return header && (*header & 3) == 0;
}

struct UnitFiles {
  std::shared_ptr<const std::vector<std::string>> names;
  bool collided = false;  // two units' different lists share an MD5
};

Expected<MappingIndex> index_sections(const MappingSections& s, NameTableCache* cache) {
  MappingIndex out;
  out.has_mapping = true;
  out.big_endian = s.big_endian;
  auto table = name_table(s.names, s.names_offset, cache);
  if (!table) return std::move(table).error();
  out.names = std::move(*table);
  const NameTable& names = *out.names;

  // The units' headers and file names.
  std::unordered_map<uint64_t, UnitFiles> units;
  ByteCursor map(s.covmap, s.big_endian, s.covmap_offset);
  uint64_t names_budget = kFileNamesFloor + kFileNamesPerMapByte * s.covmap.size();
  uint32_t version = 0;
  while (!map.at_end()) {
    const uint64_t where = map.offset();
    auto nrecords = map.u32(), filenames_size = map.u32(), coverage_size = map.u32(), v = map.u32();
    if (!v) return Error(where, "a coverage map header is cut short");
    if (*v < kFirstVersionWord || *v > kLastVersionWord)
      return Error(where + 12, fmt::format("coverage mapping format {}: covkit reads formats 4 to 6 (clang 11 to "
                                           "16)",
                                           *v + 1));
    if (version != 0 && *v != version)
      return Error(where + 12, fmt::format("coverage mapping formats {} and {} in one binary", version + 1, *v + 1));
    version = *v;
    if (*nrecords != 0 || *coverage_size != 0)
      return Error(where, "a format 4+ coverage map with records or mappings in its header");
    auto blob = *filenames_size <= map.remaining() ? map.bytes(*filenames_size) : std::nullopt;
    if (!blob) return Error(where, fmt::format("file names of {} bytes run past the section", *filenames_size));
    auto files = decode_filenames(ByteCursor(*blob, s.big_endian, where + 16), version, names_budget);
    if (!files) return std::move(files).error();
    const uint64_t ref = util::md5_low64(
        std::string_view(reinterpret_cast<const char*>(blob->data()), blob->size()));
    auto [it, fresh] = units.try_emplace(ref, UnitFiles{nullptr, false});
    if (fresh)
      it->second.names = std::make_shared<const std::vector<std::string>>(std::move(*files));
    else if (*it->second.names != *files)
      it->second.collided = true;
    if (!map.align(8)) break;  // the section may end without padding
  }
  if (version == 0) return Error(s.covmap_offset, "an empty __llvm_covmap section");
  out.format_version = version + 1;

  // The functions: the first record of a name wins, unless it is a dummy
  // and a later one is not.
  std::vector<EncodedFunction>& records = out.functions;
  std::unordered_map<uint64_t, size_t> by_name_ref;
  // Counted first: a program's 2,000 records grown by doubling touched
  // twice the memory they take.
  size_t upto = 0;
  for (ByteCursor c(s.covfun, s.big_endian); c.remaining() >= kCovfunHeaderBytes; ++upto) {
    c.skip(8);
    const uint32_t size = *c.u32();
    if (!c.skip(size_t(16) + size) || !c.align(8)) break;
  }
  records.reserve(upto + 1);
  by_name_ref.reserve(upto + 1);
  ByteCursor fun(s.covfun, s.big_endian, s.covfun_offset);
  while (!fun.at_end()) {
    const uint64_t where = fun.offset();
    if (fun.remaining() < kCovfunHeaderBytes) return Error(where, "a function record is cut short");
    const uint64_t name_ref_value = *fun.u64();
    const uint32_t size = *fun.u32();
    const uint64_t hash = *fun.u64();
    const uint64_t files_ref = *fun.u64();
    const uint64_t mapping_at = fun.offset();
    auto mapping = size <= fun.remaining() ? fun.bytes(size) : std::nullopt;
    if (!mapping) return Error(where, fmt::format("a function record's mapping of {} bytes runs past the section", size));
    if (!fun.align(8)) fun.seek(fun.size());
    auto unit = units.find(files_ref);
    if (unit == units.end())
      return Error(where, fmt::format("a function record names file list {:#018x}, which no coverage map has",
                                      files_ref));
    if (unit->second.collided) continue;
    auto [slot, fresh] = by_name_ref.try_emplace(name_ref_value, records.size());
    if (fresh) {
      const std::optional<std::string_view> name = names.find(name_ref_value);
      if (!name)
        return Error(where, fmt::format("a function record names function {:#018x}, which is not in "
                                        "__llvm_prf_names",
                                        name_ref_value));
      records.push_back(EncodedFunction{*name, name_ref_value, hash, *mapping, mapping_at, unit->second.names});
      continue;
    }
    EncodedFunction& old = records[slot->second];
    if (is_dummy_mapping(old.hash, old.mapping) && !is_dummy_mapping(hash, *mapping)) {
      old.hash = hash;
      old.mapping = *mapping;
      old.mapping_offset = mapping_at;
      old.unit_files = unit->second.names;
    }
  }
  return out;
}

Expected<BinaryMapping> decode_all(const MappingIndex& index) {
  BinaryMapping out;
  out.has_mapping = index.has_mapping;
  out.format_version = index.format_version;
  out.build_id = index.build_id;
  out.functions.reserve(index.functions.size());
  for (const EncodedFunction& e : index.functions) {
    auto f = decode_function(index, e);
    if (!f) return std::move(f).error();
    out.functions.push_back(std::move(*f));
  }
  return out;
}

}  // namespace

bool decode_alike(const EncodedFunction& a, const EncodedFunction& b) {
  if (a.hash != b.hash || a.name != b.name ||
      !std::equal(a.mapping.begin(), a.mapping.end(), b.mapping.begin(), b.mapping.end()))
    return false;
  if (a.unit_files == b.unit_files) return true;
  // The mapping starts with its file ids' indexes into the unit's names
  // (MappingDecoder::decode): those names are all it reads of them.
  ByteCursor in(a.mapping);
  auto nfiles = read_size(in);
  if (!nfiles) return *a.unit_files == *b.unit_files;
  for (uint64_t i = 0; i < *nfiles; ++i) {
    auto index = in.uleb128();
    if (!index || *index >= a.unit_files->size() || *index >= b.unit_files->size())
      return *a.unit_files == *b.unit_files;  // damaged: alike only when wholly the same
    if ((*a.unit_files)[size_t(*index)] != (*b.unit_files)[size_t(*index)]) return false;
  }
  return true;
}

Expected<FunctionMapping> decode_function(const MappingIndex& index, const EncodedFunction& e) {
  FunctionMapping f;
  if (auto d = decode_function(index, e, f); !d) return std::move(d).error();
  return f;
}

Expected<void> decode_function(const MappingIndex& index, const EncodedFunction& e, FunctionMapping& f) {
  f.name.assign(e.name);
  f.name_ref = e.name_ref;
  f.hash = e.hash;
  f.filenames.clear();
  f.expressions.clear();
  f.regions.clear();
  return MappingDecoder(ByteCursor(e.mapping, index.big_endian, e.mapping_offset), *e.unit_files, f).decode();
}

Expected<BinaryMapping> decode_coverage_mapping(const MappingSections& s, NameTableCache* cache) {
  auto index = index_sections(s, cache);
  if (!index) return std::move(index).error();
  return decode_all(*index);
}

bool has_coverage_mapping(std::span<const uint8_t> elf_bytes) {
  auto img = read_elf_sections(elf_bytes);
  return img && !img->named("__llvm_covmap").empty();
}

Expected<MappingIndex> index_coverage_mapping(std::span<const uint8_t> elf_bytes, NameTableCache* names) {
  auto img = read_elf_sections(elf_bytes);
  if (!img) return std::move(img).error();
  MappingIndex none;
  none.build_id = img->build_id;
  const auto covmaps = img->named("__llvm_covmap");
  const auto prf_names = img->named("__llvm_prf_names");
  if (covmaps.empty()) return none;
  if (covmaps.size() != 1) return Error(covmaps[1]->offset, "more than one __llvm_covmap section");
  if (prf_names.empty()) return Error(covmaps[0]->offset, "a __llvm_covmap section without __llvm_prf_names");
  for (const ElfSection* s : {covmaps[0], prf_names[0]})
    if (s->flags & kShfCompressed)
      return Error(s->offset, fmt::format("section {} is compressed (SHF_COMPRESSED), which covkit does not read",
                                          s->name));
  // Several __llvm_covfun sections (an object file's comdats) are read as
  // one, each padded to 8 bytes.
  std::vector<uint8_t> joined;
  const auto covfuns = img->named("__llvm_covfun");
  MappingSections s;
  if (covfuns.size() == 1) {
    s.covfun = covfuns[0]->bytes;
    s.covfun_offset = covfuns[0]->offset;
  } else {
    for (const ElfSection* f : covfuns) {
      joined.insert(joined.end(), f->bytes.begin(), f->bytes.end());
      joined.resize((joined.size() + 7) / 8 * 8, 0);
    }
    s.covfun = joined;
  }
  s.covmap = covmaps[0]->bytes;
  s.covmap_offset = covmaps[0]->offset;
  s.names = prf_names[0]->bytes;
  s.names_offset = prf_names[0]->offset;
  s.big_endian = img->big_endian;
  auto m = index_sections(s, names);
  if (!m) return std::move(m).error();
  m->build_id = img->build_id;
  for (const ElfSection* c : img->named(".comment")) m->clang_major = std::max(m->clang_major, clang_major_version(c->bytes));
  m->joined_covfun = std::move(joined);  // the buffer moves with it: the records' spans stay valid
  return m;
}

Expected<BinaryMapping> read_coverage_mapping(std::span<const uint8_t> elf_bytes, NameTableCache* names) {
  auto index = index_coverage_mapping(elf_bytes, names);
  if (!index) return std::move(index).error();
  return decode_all(*index);
}

}  // namespace covkit::clang
