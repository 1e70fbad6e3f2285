// The gcov_info decoder of `covkit live` on process images built by hand:
// GCC 11 and 12 records decode to what libgcov would write, and hostile or
// half-written ones (pointers out of the module, loops, huge counts,
// unterminated names, unknown versions) are refused with a reason.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "format/gcda_reader.h"
#include "format/gcda_writer.h"
#include "format/gcov_tags.h"
#include "live/dump_output.h"
#include "live/elf_image.h"
#include "live/gcov_info_layout.h"
#include "live/module_roots.h"
#include "live/process_maps.h"
#include "live/snapshot.h"
#include "util/file_io.h"

namespace covkit::live {
namespace live_layout_test {

constexpr uint32_t kB22 = 0x4232322A;  // GCC 12.2
constexpr uint32_t kB13 = 0x4231332A;  // GCC 11.3
constexpr uint32_t kB31 = 0x4233312A;  // GCC 13.1

// A sparse process image: bytes at addresses, reads outside them fail.
class Image : public MemorySource {
 public:
  Image() {
    code_ = {0x1000, 0x2000, false, true};
    rodata_ = {0x8000, 0x9000, false, false};
    data_ = {0x10000, 0x20000, true, false};
    for (const AddressRange& r : {code_, rodata_, data_}) bytes_[r.start] = std::vector<uint8_t>(r.end - r.start);
  }
  Expected<void> read(uint64_t address, void* out, size_t len) const override {
    for (const auto& [start, bytes] : bytes_)
      if (address >= start && address + len <= start + bytes.size()) {
        std::memcpy(out, bytes.data() + (address - start), len);
        return {};
      }
    return Error("unmapped");
  }
  void put32(uint64_t a, uint32_t v) { put(a, &v, 4); }
  void put64(uint64_t a, uint64_t v) { put(a, &v, 8); }
  void put_string(uint64_t a, const std::string& s) { put(a, s.c_str(), s.size() + 1); }
  void put(uint64_t a, const void* p, size_t n) {
    for (auto& [start, bytes] : bytes_)
      if (a >= start && a + n <= start + bytes.size()) {
        std::memcpy(bytes.data() + (a - start), p, n);
        return;
      }
    ADD_FAILURE() << "put outside the image";
  }
  ModuleBounds bounds() const { return ModuleBounds({code_, rodata_, data_}); }

 private:
  AddressRange code_, rodata_, data_;
  std::map<uint64_t, std::vector<uint8_t>> bytes_;
};

// Addresses of the hand-built module.
constexpr uint64_t kRoot = 0x10000, kInfo = 0x10100, kTable = 0x10200, kFn0 = 0x10300, kFn1 = 0x10400,
                   kCounters = 0x11000, kName = 0x8000, kMerge = 0x1100, kOtherInfo = 0x10800;

// One object, two functions: the first owned with three arc counters, the
// second a COMDAT copy another object owns.
Image one_object(uint32_t version = kB22) {
  Image m;
  m.put64(kRoot, kInfo);
  m.put32(kInfo, version);
  m.put64(kInfo + 8, 0);  // next
  m.put32(kInfo + 16, 0x11223344);  // stamp
  if (version == kB22) m.put32(kInfo + 20, 0x55667788);  // checksum
  m.put64(kInfo + 24, kName);
  m.put64(kInfo + 32, kMerge);  // merge[0]: arcs
  m.put32(kInfo + 96, 2);
  m.put64(kInfo + 104, kTable);
  m.put_string(kName, "/build/a.gcda");
  m.put64(kTable, kFn0);
  m.put64(kTable + 8, kFn1);
  m.put64(kFn0, kInfo);
  m.put32(kFn0 + 8, 7);
  m.put32(kFn0 + 12, 0xAAAA);
  m.put32(kFn0 + 16, 0xBBBB);
  m.put32(kFn0 + 24, 3);
  m.put64(kFn0 + 32, kCounters);
  m.put64(kFn1, kOtherInfo);
  m.put32(kFn1 + 8, 9);
  m.put32(kFn1 + 24, 1);
  m.put64(kFn1 + 32, kCounters + 24);
  m.put64(kCounters, 5);
  m.put64(kCounters + 8, 0);
  m.put64(kCounters + 16, 7);
  return m;
}

// The snapshot of one_object()'s module: its one object's counters as read
// in a stop ({5, 0, 7} arcs; its second function belongs to another object).
struct OneSnapshot {
  ModuleSnapshot module;
  ObjectSnapshot object;
};

OneSnapshot snapshot_of(const Image& m, uint64_t run_max = 7) {
  auto mod = decode_module(m, m.bounds(), kRoot);
  EXPECT_TRUE(mod) << mod.error().message;
  OneSnapshot s{{}, {mod->objects[0], true, {{{5, 0, 7}}, {{0}}}}};
  s.module.root = mod->root;
  s.module.layout = mod->layout;
  s.module.run_max = run_max;
  return s;
}

std::string refusal(const Image& m) {
  auto mod = decode_module(m, m.bounds(), kRoot);
  return mod ? "" : mod.error().message;
}

TEST(LiveLayout, DecodesGcc12Records) {
  Image m = one_object();
  auto mod = decode_module(m, m.bounds(), kRoot);
  ASSERT_TRUE(mod) << mod.error().message;
  EXPECT_EQ(mod->layout.gcc_major, 12);
  ASSERT_EQ(mod->objects.size(), 1u);
  const ObjectRecord& o = mod->objects[0];
  EXPECT_EQ(o.filename, "/build/a.gcda");
  EXPECT_EQ(o.stamp, 0x11223344u);
  EXPECT_EQ(o.checksum, 0x55667788u);
  EXPECT_EQ(o.kinds, 1u);
  ASSERT_EQ(o.functions.size(), 2u);
  EXPECT_TRUE(o.functions[0].owned);
  EXPECT_FALSE(o.functions[1].owned);
  EXPECT_EQ(o.functions[0].ident, 7u);
  ASSERT_EQ(o.functions[0].counters.size(), 1u);
  EXPECT_EQ(o.functions[0].counters[0].num, 3u);
  EXPECT_EQ(o.functions[0].counters[0].values, kCounters);
}

TEST(LiveLayout, WritesWhatLibgcovWrites) {
  auto [ms, os] = snapshot_of(one_object());
  format::DataFile f = object_data_file(ms, os);
  std::vector<uint8_t> bytes = format::write_data(f);
  auto back = format::read_data(bytes);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->stamp, 0x11223344u);
  EXPECT_EQ(back->checksum, 0x55667788u);
  ASSERT_EQ(back->records.size(), 4u);  // summary, function + arcs, placeholder
  EXPECT_EQ(back->records[0].runs, 1u);
  EXPECT_EQ(back->records[0].sum_max, 7u);
  EXPECT_EQ(back->records[1].ident, 7u);
  EXPECT_EQ(back->records[2].counters, (std::vector<int64_t>{5, 0, 7}));
  EXPECT_TRUE(back->records[3].placeholder);
  // In memory (covkit live report) the records hold the length fields the
  // file holds: the model checks them against the notes.
  EXPECT_EQ(f.records[2].length, back->records[2].length);
  // After a dump that counted the run, libgcov adds no run and no maximum.
  ms.root.flags = 2;
  auto again = format::read_data(format::write_data(object_data_file(ms, os)));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->records[0].runs, 0u);
  EXPECT_EQ(again->records[0].sum_max, 0u);
  // All-zero arrays carry no payload (GCC >= 11).
  os.counts[0][0] = {0, 0, 0};
  format::DataFile z = object_data_file(ms, os);
  EXPECT_TRUE(z.records[2].all_zero);
  EXPECT_EQ(z.records[2].num_counters, 3u);
  auto z_back = format::read_data(format::write_data(z));
  ASSERT_TRUE(z_back);
  EXPECT_EQ(z.records[2].length, z_back->records[2].length);
}

TEST(LiveLayout, DecodesGcc11RecordsWithoutChecksum) {
  Image m = one_object(kB13);
  auto mod = decode_module(m, m.bounds(), kRoot);
  ASSERT_TRUE(mod) << mod.error().message;
  EXPECT_EQ(mod->layout.gcc_major, 11);
  EXPECT_EQ(mod->objects[0].checksum, 0u);
  ModuleSnapshot ms;
  ms.root = mod->root;
  ms.layout = mod->layout;
  ObjectSnapshot os{mod->objects[0], true, {{{5, 0, 7}}, {{0}}}};
  auto back = format::read_data(format::write_data(object_data_file(ms, os)));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->version.major, 11);
  EXPECT_EQ(object_data_file(ms, os).records[2].length, back->records[2].length);  // in words
  // Data in what is padding in GCC 11 is not GCC 11's layout.
  m.put32(kInfo + 20, 1);
  EXPECT_NE(refusal(m).find("padding"), std::string::npos);
}

TEST(LiveLayout, RefusesUnknownVersions) {
  Image m = one_object(kB31);
  EXPECT_NE(refusal(m).find("GCC 13.1"), std::string::npos) << refusal(m);
  EXPECT_NE(refusal(m).find("unknown"), std::string::npos);
  m.put32(kInfo, 0x12345678);
  EXPECT_NE(refusal(m).find("no GCC version"), std::string::npos) << refusal(m);
  EXPECT_FALSE(layout_for_version(0x4230312A).has_value());  // GCC 10.1
  EXPECT_FALSE(layout_for_version(0x4234312A).has_value());  // GCC 14.1
}

TEST(LiveLayout, RefusesHostileRecords) {
  struct Case {
    const char* what;
    void (*spoil)(Image&);
    const char* reason;
  };
  const Case cases[] = {
      {"list loops", [](Image& m) { m.put64(kInfo + 8, kInfo); }, "loops"},
      {"next leaves the module", [](Image& m) { m.put64(kInfo + 8, 0x900000); }, "outside"},
      {"root list out", [](Image& m) { m.put64(kRoot, 0x7fff0000); }, "leaves the module"},
      {"root flags", [](Image& m) { m.put32(kRoot + 8, 0xff); }, "flags"},
      {"name out", [](Image& m) { m.put64(kInfo + 24, 0x50000); }, "file name"},
      {"name unterminated", [](Image& m) {
         std::string s(0x1000, 'a');
         m.put(kName, s.data(), s.size());
       }, "file name"},
      {"empty name", [](Image& m) { m.put32(kName, 0); }, "empty"},
      // Names become paths: only what a compiler writes (issue 32 item 1:
      // a process renamed an object to /x.conf and root wrote it there).
      {"not a .gcda", [](Image& m) { m.put_string(kName, "/x.conf"); }, "named /x.conf: a name that is no .gcda file name"},
      {"only .gcda", [](Image& m) { m.put_string(kName, "/b/.gcda"); }, "no .gcda file name"},
      {"a directory", [](Image& m) { m.put_string(kName, "/b/x.gcda/.."); }, "no .gcda file name"},
      {"control bytes", [](Image& m) { m.put_string(kName, "/b/\nx.gcda"); }, "control characters"},
      {"long component", [](Image& m) { m.put_string(kName, "/" + std::string(300, 'a') + ".gcda"); },
       "a component of 305 bytes"},
      {"merge not code", [](Image& m) { m.put64(kInfo + 32, kCounters); }, "code"},
      {"too many functions", [](Image& m) { m.put32(kInfo + 96, 0xffffffff); }, "functions"},
      {"table out", [](Image& m) { m.put64(kInfo + 104, 0x1ffff8); }, "table"},
      {"function out", [](Image& m) { m.put64(kTable, 0x30000); }, "outside"},
      {"misaligned function", [](Image& m) { m.put64(kTable, kFn0 + 4); }, "outside"},
      {"huge counter count", [](Image& m) { m.put32(kFn0 + 24, 0x7fffffff); }, "claims"},
      {"counters read-only", [](Image& m) { m.put64(kFn0 + 32, kName); }, "outside the module's data"},
      {"counters past the end", [](Image& m) { m.put64(kFn0 + 32, 0x1fff0); }, "outside the module's data"},
  };
  for (const Case& c : cases) {
    Image m = one_object();
    c.spoil(m);
    std::string why = refusal(m);
    EXPECT_NE(why.find(c.reason), std::string::npos) << c.what << ": " << why;
  }
  // Top-N arrays hold three words per counter.
  Image m = one_object();
  m.put64(kInfo + 32, 0);
  m.put64(kInfo + 32 + 8 * kCounterTopn, kMerge);
  m.put32(kFn0 + 24, 4);
  EXPECT_NE(refusal(m).find("multiple of 3"), std::string::npos) << refusal(m);
}

TEST(LiveLayout, EmptyListIsNoObjects) {
  Image m = one_object();
  m.put64(kRoot, 0);
  auto mod = decode_module(m, m.bounds(), kRoot);
  ASSERT_TRUE(mod);
  EXPECT_TRUE(mod->objects.empty());
}

TEST(LiveLayout, ScanFindsTheRootOfAStrippedModule) {
  Image m = one_object();
  Module mod;
  mod.bounds = m.bounds();
  auto root = scan_for_root(mod, m);
  ASSERT_TRUE(root.has_value());
  EXPECT_EQ(*root, kRoot);
  // A second word pointing at the head: covkit refuses to guess.
  m.put64(0x12000, kInfo);
  EXPECT_FALSE(scan_for_root(mod, m).has_value());
}

TEST(LiveMaps, ParsesProcMaps) {
  auto maps = parse_maps(
      "55d0c0000000-55d0c0001000 r--p 00000000 fd:01 1234                       /usr/bin/my prog (deleted)\n"
      "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
      "7f0000000000-7f0000001000 r-xs 00001000 08:02 99\n");
  ASSERT_TRUE(maps);
  ASSERT_EQ(maps->size(), 3u);
  EXPECT_EQ((*maps)[0].path, "/usr/bin/my prog (deleted)");
  EXPECT_EQ((*maps)[0].inode, 1234u);
  EXPECT_EQ((*maps)[0].dev_major, 0xfdu);
  EXPECT_TRUE((*maps)[1].writable);
  EXPECT_TRUE((*maps)[2].executable && (*maps)[2].shared);
  EXPECT_EQ((*maps)[2].offset, 0x1000u);
  EXPECT_FALSE(parse_maps("zz-10 r--p 0 0:0 0\n"));
  EXPECT_FALSE(parse_maps("10-5 r--p 0 0:0 0\n"));  // ends before it starts
}

TEST(LiveElf, ReadsItsOwnExecutable) {
  auto self = util::read_file("/proc/self/exe");
  ASSERT_TRUE(self);
  auto load = parse_load_info(self->bytes().subspan(0, 4096));
  ASSERT_TRUE(load) << load.error().message;
  EXPECT_FALSE(load->loads.empty());
  auto syms = find_symbols(self->bytes(), false, {"main"});
  ASSERT_TRUE(syms);
  EXPECT_TRUE(symbol_value(*syms, "main").has_value());
  std::vector<uint8_t> junk(64, 0x7f);
  EXPECT_FALSE(parse_load_info(junk));
}

TEST(LiveMerge, AddsAsLibgcovAdds) {
  auto [ms, os] = snapshot_of(one_object());
  format::DataFile now = object_data_file(ms, os);
  std::vector<uint8_t> old = format::write_data(now);
  bool replaced = true;
  auto sum = merge_like_libgcov(old, now, &replaced);
  ASSERT_TRUE(sum) << sum.error().message;
  EXPECT_FALSE(replaced);
  EXPECT_EQ(sum->records[0].runs, 2u);
  EXPECT_EQ(sum->records[0].sum_max, 14u);
  EXPECT_EQ(sum->records[2].counters, (std::vector<int64_t>{10, 0, 14}));
  // Another compilation (GCC 12: another checksum) is replaced, as libgcov does.
  format::DataFile other = now;
  other.checksum ^= 1;
  auto fresh = merge_like_libgcov(format::write_data(other), now, &replaced);
  ASSERT_TRUE(fresh);
  EXPECT_TRUE(replaced);
  EXPECT_EQ(fresh->records[0].runs, 1u);
  // Not a data file at all: refused, as libgcov refuses to write it.
  std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o', '!', '!', '!'};
  EXPECT_FALSE(merge_like_libgcov(text, now, &replaced));
}

TEST(LivePlace, PathsAsLibgcovOpensThem) {
  TargetPlace p;
  p.cwd = "/srv/run";
  EXPECT_EQ(program_path(p, "/build/obj/a.gcda"), "/build/obj/a.gcda");
  EXPECT_EQ(program_path(p, "rel/a.gcda"), "/srv/run/rel/a.gcda");
  p.gcov_prefix = "/cov";
  p.gcov_prefix_strip = 1;
  EXPECT_EQ(program_path(p, "/build/obj/a.gcda"), "/cov/obj/a.gcda");
  EXPECT_EQ(*path_below_directory(p, "/build/obj/a.gcda"), "build/obj/a.gcda");
  EXPECT_EQ(*path_below_directory(p, "x.gcda"), "srv/run/x.gcda");
  // GCC keeps the object's -o path as it was given: "..", "." and "//"
  // resolve as libgcov's mkdir under GCOV_PREFIX would; out of DIR is refused.
  EXPECT_EQ(*path_below_directory(p, "/build/obj/../obj//./a.gcda"), "build/obj/a.gcda");
  EXPECT_EQ(*path_below_directory(p, "../x.gcda"), "srv/x.gcda");
  auto out = path_below_directory(p, "/build/../../../etc/x.gcda");
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message,
            "/build/../../../etc/x.gcda: a .gcda name whose '..' climbs above the root (out of the output directory)");
  EXPECT_FALSE(path_below_directory(p, "../../../x.gcda"));
  // A rescue keeps such a name where the kernel put the program's write: at the root.
  EXPECT_EQ(*path_below_directory(p, "/build/../../../etc/x.gcda", AboveRoot::kStayAtRoot), "etc/x.gcda");
  EXPECT_EQ(*path_below_directory(p, "../../../x.gcda", AboveRoot::kStayAtRoot), "x.gcda");
  EXPECT_FALSE(path_below_directory(p, "/..", AboveRoot::kStayAtRoot));  // names no file
}

}  // namespace
}  // namespace covkit::live

// A segment's .bss past the last page of the file is an anonymous mapping
// right after the file's writable page, so the module's writable data is two
// ranges that touch, and a counter array may lie across the seam (found with
// lighttpd's mod_accesslog.so). A gap, or a read-only piece, still refuses.
TEST(LiveBounds, SpansRangesThatTouch) {
  covkit::live::ModuleBounds b({{0x1000, 0x2000, false, true},   // code
                  {0x3000, 0x3800, false, false},  // RELRO
                  {0x3800, 0x4000, true, false},   // file-backed data
                  {0x4000, 0x4400, true, false},   // anonymous .bss tail
                  {0x5000, 0x6000, true, false}}); // after a gap
  EXPECT_TRUE(b.holds(0x3f00, 0x200, true));
  EXPECT_TRUE(b.holds(0x3800, 0xc00, true));
  EXPECT_FALSE(b.holds(0x3800, 0xc08, true));       // one word past the end
  EXPECT_FALSE(b.holds(0x4300, 0xd00, true));       // across the gap
  EXPECT_FALSE(b.holds(0x3700, 0x200, true));       // starts in RELRO
  EXPECT_TRUE(b.holds(0x3700, 0x200, false));
  EXPECT_TRUE(b.holds(0x4400, 0, true));
  EXPECT_FALSE(b.holds(0x4400, 8, true));
  EXPECT_FALSE(b.holds(UINT64_MAX - 4, 8, true));   // wraps
}
