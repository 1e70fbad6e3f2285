// format/notes_layout and model/notes_reuse: notes of the same code read
// once. Every object loaded through NotesReuse must be what
// load_object_files gives for it (graphs, idents, stamp, counts), whether
// its graphs were read, copied or taken; notes of one size that differ
// elsewhere than in the varying words are read on their own; and a copied
// graph's views are into its own arrays.
#include "model/notes_reuse.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>
#include <cstring>
#include <string>
#include <vector>

#include "format/gcov_tags.h"
#include "format/notes_layout.h"
#include "gcov_image_builder.h"
#include "model/project_builder.h"
#include "test_support.h"

namespace covkit::model {
namespace notes_reuse_test {

using testing::GcovImageBuilder;
using testing::Layout;
using testing::TempDir;

constexpr uint32_t kFall = format::kArcFallthrough;

// f() and g() as one compilation wrote them: `stamp` and the idents vary
// between programs the source is built into, `line` (of g) is code. g has
// what counting changes and reset_to_notes must put back: a branch whose
// successors the notes list in descending order, a call that can throw (a
// fake arc out, a catch: an exceptional block), a call whose return block
// the solver marks (its only other way out), and lines out of order.
std::vector<uint8_t> notes(Layout layout, uint32_t stamp, uint32_t checksum, uint32_t ident_f, uint32_t ident_g,
                           uint32_t line = 10, std::string_view cwd = "/build/dir", bool big_endian = false) {
  GcovImageBuilder n(layout, big_endian);
  n.notes_header(stamp, cwd, true, checksum);
  n.function(ident_f, 2, 3, "f", false, "s.c", 1, 1, 5, 1).blocks(5);
  n.arcs(0, {{2, kFall}});
  n.arcs(2, {{3, kFall}, {4, 0}});
  n.arcs(3, {{1, 0}});
  n.arcs(4, {{1, 0}});
  n.lines(2, {{"s.c", {1, 2}}});
  n.lines(3, {{"s.c", {3}}, {"h.h", {7}}});
  n.lines(4, {{"s.c", {4}}});
  n.function(ident_g, 5, 6, "g", false, "h.h", line, 1, line + 1, 1).blocks(8);
  n.arcs(0, {{2, kFall}});
  n.arcs(2, {{4, 0}, {3, kFall}});
  n.arcs(3, {{5, kFall}, {1, format::kArcFake}, {6, 0}});  // returns, throws out, or is caught
  n.arcs(4, {{1, format::kArcOnTree}});
  n.arcs(5, {{7, kFall}, {1, format::kArcFake}});  // a call: returns to 7 or throws out
  n.arcs(6, {{1, format::kArcOnTree}});
  n.arcs(7, {{1, format::kArcOnTree}});
  n.lines(2, {{"h.h", {line + 1, line}}});
  n.lines(3, {{"h.h", {line}}});
  n.lines(6, {{"h.h", {line + 1}}});
  return n.take();
}

std::vector<uint8_t> data(uint32_t stamp, uint32_t checksum, uint32_t ident_f, uint32_t ident_g,
                          const std::vector<int64_t>& f, int64_t g, Layout layout = Layout::kGcc12,
                          bool big_endian = false) {
  GcovImageBuilder d(layout, big_endian);
  d.data_header(stamp, checksum).summary(1, 5);
  d.data_function(ident_f, 2, 3).counters(f);
  d.data_function(ident_g, 5, 6).counters({g, 0, g, g, 0, 0, g, 0});  // g ran: to 3, returned from both calls
  d.word(0);
  return d.take();
}

uint32_t word(const std::vector<uint8_t>& bytes, size_t at) {
  uint32_t w = 0;
  std::memcpy(&w, bytes.data() + at, 4);
  return w;
}

TEST(NotesLayout, FindsStampChecksumAndIdents) {
  const std::vector<uint8_t> b = notes(Layout::kGcc12, 0x11111111, 0x22222222, 0x33333333, 0x44444444);
  const auto layout = format::notes_layout(b);
  ASSERT_TRUE(layout);
  EXPECT_FALSE(layout->swapped);
  EXPECT_EQ(word(b, layout->stamp_offset), 0x11111111u);
  ASSERT_TRUE(layout->checksum_offset);
  EXPECT_EQ(word(b, *layout->checksum_offset), 0x22222222u);
  ASSERT_EQ(layout->ident_offsets.size(), 2u);
  EXPECT_EQ(layout->word_at(b, layout->ident_offsets[0]), 0x33333333u);
  EXPECT_EQ(layout->word_at(b, layout->ident_offsets[1]), 0x44444444u);
  const std::vector<size_t> varying = layout->varying_words();
  EXPECT_TRUE(std::is_sorted(varying.begin(), varying.end()));
  EXPECT_EQ(varying.size(), 4u);
}

TEST(NotesLayout, OlderLayoutHasNoChecksum) {
  const std::vector<uint8_t> b = notes(Layout::kGcc11, 0x11111111, 0, 0x33333333, 0x44444444);
  const auto layout = format::notes_layout(b);
  ASSERT_TRUE(layout);
  EXPECT_EQ(word(b, layout->stamp_offset), 0x11111111u);
  EXPECT_FALSE(layout->checksum_offset);
  ASSERT_EQ(layout->ident_offsets.size(), 2u);
  EXPECT_EQ(layout->word_at(b, layout->ident_offsets[1]), 0x44444444u);
}

TEST(NotesLayout, RefusesWhatItCannotFrame) {
  std::vector<uint8_t> b = notes(Layout::kGcc12, 1, 2, 3, 4);
  EXPECT_FALSE(format::notes_layout(std::span(b).first(b.size() - 2)));  // a record cut short
  EXPECT_FALSE(format::notes_layout(std::span(b).first(10)));            // a header cut short
  std::vector<uint8_t> data_file = data(1, 0, 3, 4, {1, 1, 0, 1, 0}, 1);
  EXPECT_FALSE(format::notes_layout(data_file));  // no notes magic
}

TEST(NotesLayout, SameButVaryingComparesOnlyTheRest) {
  const std::vector<uint8_t> a = notes(Layout::kGcc12, 1, 2, 3, 4);
  const std::vector<uint8_t> b = notes(Layout::kGcc12, 9, 8, 7, 6);
  const std::vector<uint8_t> c = notes(Layout::kGcc12, 1, 2, 3, 4, 20);  // g moved: code, same size
  ASSERT_EQ(a.size(), c.size());
  const std::vector<size_t> varying = format::notes_layout(a)->varying_words();
  EXPECT_TRUE(format::same_but_varying(a, b, varying));
  EXPECT_FALSE(format::same_but_varying(a, c, varying));
  EXPECT_FALSE(format::same_but_varying(a, std::span(b).first(b.size() - 4), varying));
}

// Everything of a graph that a session reads, views followed.
void expect_same_graph(const Function& a, const Function& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.ident, b.ident);
  EXPECT_EQ(a.lineno_checksum, b.lineno_checksum);
  EXPECT_EQ(a.cfg_checksum, b.cfg_checksum);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.start_line, b.start_line);
  EXPECT_EQ(a.end_line, b.end_line);
  EXPECT_EQ(a.has_catch, b.has_catch);
  EXPECT_EQ(a.artificial, b.artificial);
  EXPECT_EQ(a.never_ran, b.never_ran);
  EXPECT_EQ(a.counts, b.counts);
  ASSERT_EQ(a.arcs.size(), b.arcs.size());
  for (size_t i = 0; i < a.arcs.size(); ++i) {
    const Arc& x = a.arcs[i];
    const Arc& y = b.arcs[i];
    EXPECT_EQ(x.src, y.src);
    EXPECT_EQ(x.dst, y.dst);
    EXPECT_EQ(x.count, y.count);
    EXPECT_EQ(x.count_valid, y.count_valid);
    EXPECT_EQ(x.on_tree, y.on_tree);
    EXPECT_EQ(x.fake, y.fake);
    EXPECT_EQ(x.fall_through, y.fall_through);
    EXPECT_EQ(x.is_throw, y.is_throw);
    EXPECT_EQ(x.is_call_non_return, y.is_call_non_return);
    EXPECT_EQ(x.is_nonlocal_return, y.is_nonlocal_return);
    EXPECT_EQ(x.is_unconditional, y.is_unconditional);
  }
  ASSERT_EQ(a.blocks.size(), b.blocks.size());
  for (size_t i = 0; i < a.blocks.size(); ++i) {
    const Block& x = a.blocks[i];
    const Block& y = b.blocks[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.count, y.count);
    EXPECT_EQ(x.count_valid, y.count_valid);
    EXPECT_EQ(x.exceptional, y.exceptional);
    EXPECT_EQ(x.is_call_site, y.is_call_site);
    EXPECT_EQ(x.is_call_return, y.is_call_return);
    EXPECT_EQ(x.is_nonlocal_return, y.is_nonlocal_return);
    EXPECT_TRUE(std::equal(x.succ.begin(), x.succ.end(), y.succ.begin(), y.succ.end()));
    EXPECT_TRUE(std::equal(x.pred.begin(), x.pred.end(), y.pred.begin(), y.pred.end()));
    ASSERT_EQ(x.locations.size(), y.locations.size());
    for (size_t l = 0; l < x.locations.size(); ++l) {
      EXPECT_EQ(x.locations[l].source, y.locations[l].source);
      EXPECT_TRUE(std::equal(x.locations[l].lines.begin(), x.locations[l].lines.end(),
                             y.locations[l].lines.begin(), y.locations[l].lines.end()));
    }
  }
}

template <typename T, typename U>
bool inside(std::span<T> view, const std::vector<U>& array) {
  return view.empty() ||
         (view.data() >= array.data() && view.data() + view.size() <= array.data() + array.size());
}

// What build_project does with an object: its session, counted as a
// report counts it; then its graphs as the notes gave them.
std::vector<SessionFunction> counted_then_taken(LoadedObject obj) {
  SessionOptions so;
  so.branches = true;
  so.json = true;
  GcovSession session(so);
  const std::string name = obj.data_name.empty() ? obj.notes_name : obj.data_name;
  session.add_object(std::move(obj), name);
  session.process_all_functions();
  session.add_line_counts(nullptr);
  for (uint32_t s = 0; s < session.source_count(); ++s) session.accumulate(s);
  return session.take_notes_graphs();
}

// A graph counted and solved, put back, is what reading its notes gives,
// its views into its own arrays still.
TEST(NotesReuse, CountedGraphPutBackIsAsRead) {
  TempDir dir;
  const std::string path = dir / "a.gcno";
  const std::string counts = dir / "a.gcda";
  ASSERT_TRUE(testing::write_bytes(path, notes(Layout::kGcc12, 1, 2, 3, 4)));
  ASSERT_TRUE(testing::write_bytes(counts, data(1, 2, 3, 4, {5, 3, 2, 3, 2}, 7)));
  LoadedObject obj = load_object_files(path, counts);
  ASSERT_EQ(obj.functions.size(), 2u);
  std::vector<SessionFunction> back = counted_then_taken(std::move(obj));
  const LoadedObject read = load_object_files(path, "");
  ASSERT_EQ(back.size(), read.functions.size());
  for (size_t k = 0; k < back.size(); ++k) {
    const Function& c = back[k].fn;
    expect_same_graph(c, read.functions[k].fn);
    EXPECT_FALSE(back[k].is_group);
    EXPECT_TRUE(back[k].lines.empty());
    EXPECT_EQ(back[k].blocks_executed, 0u);
    for (const Block& b : c.blocks) {
      EXPECT_TRUE(inside(b.succ, c.arc_lists));
      EXPECT_TRUE(inside(b.pred, c.arc_lists));
      EXPECT_TRUE(inside(b.locations, c.location_list));
      for (const BlockLocation& loc : b.locations) EXPECT_TRUE(inside(loc.lines, c.line_list));
    }
  }
}

struct Objects {
  TempDir dir;
  std::vector<format::ObjectFiles> files;
  Objects() {
    struct Spec {
      const char* name;
      uint32_t stamp, ident_f, ident_g, line;
      const char* cwd;
      std::vector<int64_t> f;
      int64_t g;
      bool data;
    };
    const std::vector<Spec> specs = {
        {"a", 100, 11, 12, 10, "/build/dir", {5, 3, 2, 3, 2}, 7, true},
        {"b", 200, 21, 22, 10, "/build/dir", {1, 1, 0, 1, 0}, 0, true},
        {"d", 400, 41, 42, 20, "/build/dir", {2, 0, 2, 0, 2}, 4, true},
        {"c", 300, 31, 32, 10, "/build/dir", {}, 0, false},
        {"e", 500, 51, 52, 10, "/build/elsewhere", {1, 0, 1, 0, 1}, 1, true},
    };
    for (const Spec& s : specs) {
      format::ObjectFiles o;
      o.notes = dir / (std::string(s.name) + ".gcno");
      EXPECT_TRUE(testing::write_bytes(
          o.notes, notes(Layout::kGcc12, s.stamp, s.stamp + 1, s.ident_f, s.ident_g, s.line, s.cwd)));
      if (s.data) {
        o.data = dir / (std::string(s.name) + ".gcda");
        EXPECT_TRUE(testing::write_bytes(o.data, data(s.stamp, s.stamp + 1, s.ident_f, s.ident_g, s.f, s.g)));
      }
      files.push_back(o);
    }
  }
};

void expect_same_object(const LoadedObject& a, const LoadedObject& b) {
  EXPECT_EQ(a.notes_name, b.notes_name);
  EXPECT_EQ(a.data_name, b.data_name);
  EXPECT_EQ(a.notes_opened, b.notes_opened);
  EXPECT_EQ(a.data_opened, b.data_opened);
  EXPECT_EQ(a.local_names, b.local_names);
  const auto* na = std::get_if<format::NotesFile>(&a.notes);
  const auto* nb = std::get_if<format::NotesFile>(&b.notes);
  ASSERT_TRUE(na && nb);
  EXPECT_EQ(na->stamp, nb->stamp);
  EXPECT_EQ(na->checksum, nb->checksum);
  EXPECT_EQ(na->cwd, nb->cwd);
  EXPECT_EQ(na->files, nb->files);
  EXPECT_EQ(na->error.has_value(), nb->error.has_value());
  const auto* da = std::get_if<format::DataFile>(&a.data);
  const auto* db = std::get_if<format::DataFile>(&b.data);
  ASSERT_EQ(da != nullptr, db != nullptr);
  if (da) {
    EXPECT_EQ(da->records.size(), db->records.size());
  }
  ASSERT_EQ(a.functions.size(), b.functions.size());
  for (size_t i = 0; i < a.functions.size(); ++i) expect_same_graph(a.functions[i].fn, b.functions[i].fn);
}

TEST(NotesReuse, EveryObjectAsReadAlone) {
  Objects o;
  NotesReuse reuse(o.files);
  std::vector<size_t> order = reuse.order();
  std::vector<size_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<size_t>{0, 1, 2, 3, 4}));  // each once
  for (size_t i : order) {
    SCOPED_TRACE(o.files[i].notes);
    LoadedObject reused = reuse.load(i);
    LoadedObject alone = load_object_files(o.files[i].notes, o.files[i].data);
    expect_same_object(reused, alone);
    // Counted, then given back for the next (e's and the last of a, b, d, c's are not wanted).
    EXPECT_EQ(reuse.wants_back(i), i != 3 && i != 4);
    if (reuse.wants_back(i)) reuse.give_back(i, counted_then_taken(std::move(reused)));
  }
  EXPECT_EQ(reuse.reused(), 2u);  // b (a's graphs) and c (b's: a's again)
}

// The objects of one notes size are one run (loaded in turn on one
// thread), the others a run each; every object in one run, the largest
// run first.
TEST(NotesReuse, ObjectsOfOneSizeAreOneRun) {
  Objects o;
  NotesReuse reuse(o.files);
  const std::vector<size_t>& runs = reuse.runs();
  ASSERT_EQ(runs.size(), 3u);  // a, b, d, c (one size); e (its cwd is longer)
  EXPECT_EQ(runs.front(), 0u);
  EXPECT_EQ(runs.back(), o.files.size());
  const std::vector<size_t> first(reuse.order().begin() + long(runs[0]), reuse.order().begin() + long(runs[1]));
  EXPECT_EQ(first, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(reuse.order()[runs[1]], 4u);
}

TEST(NotesReuse, UnreadableNotesLoadAsAlone) {
  Objects o;
  NotesReuse reuse(o.files);
  // Gone since the sizes were looked at: a directory now.
  ASSERT_EQ(::unlink(o.files[0].notes.c_str()), 0);
  ASSERT_EQ(::mkdir(o.files[0].notes.c_str(), 0700), 0);
  LoadedObject reused = reuse.load(0);
  LoadedObject alone = load_object_files(o.files[0].notes, o.files[0].data);
  EXPECT_FALSE(reused.notes_opened);
  EXPECT_EQ(reused.notes_open_error, alone.notes_open_error);
  for (size_t i = 1; i < o.files.size(); ++i)
    expect_same_object(reuse.load(i), load_object_files(o.files[i].notes, o.files[i].data));
}

// The report of the objects together is the sum of each one's, whichever
// were read and whichever copied.
TEST(NotesReuse, ProjectIsTheSumOfItsObjects) {
  Objects o;
  SourcePathRules paths(o.dir.path(), "", {});
  BuildOptions opts;
  opts.threads = 2;
  const PathFilter filter({}, {}, false);
  BuildResult all = build_project(o.files, paths, filter, opts);
  std::vector<FileCov> parts;
  for (const format::ObjectFiles& f : o.files)
    for (FileCov& fc : build_project({f}, paths, filter, opts).project.files) parts.push_back(std::move(fc));
  // Lines of /build/dir/s.c (e's is another file): each object's counts
  // added; c never ran.
  const std::string source = "/build/dir/s.c";
  const FileCov* s = nullptr;
  for (const FileCov& f : all.project.files)
    if (f.absolute_path == source) s = &f;
  ASSERT_TRUE(s);
  int64_t line1 = 0;
  for (const FileCov& p : parts)
    if (p.absolute_path == source)
      if (const LineCov* l = p.find_line(1)) line1 += l->count;
  ASSERT_TRUE(s->find_line(1));
  EXPECT_EQ(s->find_line(1)->count, line1);
  EXPECT_EQ(line1, 5 + 1 + 0 + 2);
  EXPECT_EQ(all.objects_failed, 0u);
  EXPECT_TRUE(all.diagnostics.empty());
}


// Many objects of one size loaded by several threads at once, in orders
// that put the first of a size anywhere: whichever thread reads, waits,
// copies or takes, and whether a shape is kept or not (more kinds of code
// of one size than are kept), every object is what it is read alone. The
// layouts gcov reads: GCC 11's is a size of its own; GCC 12's in either
// byte order are one size (12 kinds of code, 48 objects).
TEST(NotesReuse, ThreadsInAnyOrderGetWhatEachReadsAlone) {
  TempDir dir;
  std::vector<format::ObjectFiles> files;
  struct Kind {
    Layout layout;
    bool big_endian;
  };
  const Kind kinds[] = {{Layout::kGcc12, false}, {Layout::kGcc11, false}, {Layout::kGcc12, true}};
  uint32_t n = 0;
  for (const Kind& k : kinds)
    for (uint32_t code = 0; code < 6; ++code)  // g at another line: same size, other code
      for (uint32_t copy = 0; copy < 4; ++copy, ++n) {
        format::ObjectFiles o;
        const std::string name = "o" + std::to_string(n);
        const uint32_t stamp = 1000 + n, sum = k.layout == Layout::kGcc12 ? 7000 + n : 0;
        o.notes = dir / (name + ".gcno");
        EXPECT_TRUE(testing::write_bytes(
            o.notes, notes(k.layout, stamp, sum, 10 * n + 1, 10 * n + 2, 10 + 10 * code, "/build/dir", k.big_endian)));
        if (copy != 3) {  // the last of each never ran
          o.data = dir / (name + ".gcda");
          const int64_t c = n;
          EXPECT_TRUE(testing::write_bytes(
              o.data, data(stamp, sum, 10 * n + 1, 10 * n + 2, {c, c, 0, c, 0}, c + 1, k.layout, k.big_endian)));
        }
        files.push_back(o);
      }
  std::vector<LoadedObject> alone;
  for (const format::ObjectFiles& f : files) alone.push_back(load_object_files(f.notes, f.data));
  for (const LoadedObject& a : alone) ASSERT_EQ(a.functions.size(), 2u) << a.notes_name;  // each readable
  // Each object loaded, checked, counted and its graphs given back, as
  // build_project does; by threads in any order, or in order() on one.
  auto load_all = [&](NotesReuse& reuse, const std::vector<size_t>& order, int nthreads) {
    std::atomic<size_t> next{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < nthreads; ++t)
      threads.emplace_back([&] {
        for (size_t k; (k = next++) < order.size();) {
          const size_t i = order[k];
          LoadedObject got = reuse.load(i);
          expect_same_object(got, alone[i]);
          for (size_t f = 0; f < got.functions.size(); ++f) EXPECT_EQ(got.functions[f].fn.ident, 10 * i + 1 + f);
          if (reuse.wants_back(i)) reuse.give_back(i, counted_then_taken(std::move(got)));
        }
      });
    for (std::thread& t : threads) t.join();
  };
  for (unsigned seed = 0; seed < 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    NotesReuse reuse(files);
    std::vector<size_t> order = reuse.order();
    if (seed > 0) std::shuffle(order.begin(), order.end(), std::mt19937(seed));
    load_all(reuse, order, 4);
    EXPECT_LT(reuse.reused(), files.size());
  }
  // In order, on one thread: in each size (GCC 12's notes in either byte
  // order are one, GCC 11's another), the first of each of the first 4
  // codes is read and kept, and the 3 others of its code take its graphs in
  // turn; the other codes are read each time (4 kept at most per size).
  NotesReuse reuse(files);
  load_all(reuse, reuse.order(), 1);
  EXPECT_EQ(reuse.reused(), 2u * 4u * 3u);
}

// Objects loaded through one NotesReuse in `order`, each counted and its
// graphs given back as build_project does: each is what it is read alone.
void expect_each_as_alone(const std::vector<format::ObjectFiles>& files, const std::vector<size_t>& order,
                          size_t reused) {
  NotesReuse reuse(files);
  for (size_t i : order) {
    SCOPED_TRACE(files[i].notes);
    LoadedObject got = reuse.load(i);
    expect_same_object(got, load_object_files(files[i].notes, files[i].data));
    if (reuse.wants_back(i)) reuse.give_back(i, counted_then_taken(std::move(got)));
  }
  EXPECT_EQ(reuse.reused(), reused);
}

// One block of many successors listed in descending destination order
// (crafted: GCC lists them ascending): the solver sorts them by
// destination, and putting them back in notes order is a reversal. An
// insertion sort made that quadratic (100,000 successors: a minute); this
// finishing at 20,000 is the point, and the graph taken must still be the
// notes' own.
TEST(NotesReuse, ManySuccessorsInDescendingOrderPutBack) {
  constexpr uint32_t n = 20000;
  TempDir dir;
  std::vector<format::ObjectFiles> files;
  for (uint32_t k = 0; k < 2; ++k) {
    const uint32_t stamp = 10 + k, ident = 20 + k;
    GcovImageBuilder b(Layout::kGcc12);
    b.notes_header(stamp, "/build/dir", true, stamp + 1);
    b.function(ident, 2, 3, "w", false, "w.c", 1, 1, 3, 1).blocks(n + 3);
    b.arcs(0, {{2, kFall}});
    std::vector<testing::ArcSpec> out;
    for (uint32_t d = n + 2; d > 2; --d) out.push_back({d, 0});
    b.arcs(2, out);
    for (uint32_t d = 3; d < n + 3; ++d) b.arcs(d, {{1, format::kArcOnTree}});
    b.lines(2, {{"w.c", {2}}});
    format::ObjectFiles o;
    o.notes = dir / ("w" + std::to_string(k) + ".gcno");
    EXPECT_TRUE(testing::write_bytes(o.notes, b.take()));
    if (k == 0) {  // ran: the first successor (the last block) once
      std::vector<int64_t> counts(n + 1, 0);
      counts[0] = counts[1] = 1;
      GcovImageBuilder d(Layout::kGcc12);
      d.data_header(stamp, stamp + 1).summary(1, 1);
      d.data_function(ident, 2, 3).counters(counts);
      d.word(0);
      o.data = dir / "w0.gcda";
      EXPECT_TRUE(testing::write_bytes(o.data, d.take()));
    }
    files.push_back(o);
  }
  expect_each_as_alone(files, {0, 1}, 1);
}

// A function without counters (every arc on the spanning tree) whose lines
// are not in order: a session skips it when the object has a data file,
// counts it when it has none. Its graph handed on is the same either way,
// so each object is what it is read alone, whichever came first.
TEST(NotesReuse, UncountedFunctionWithUnsortedLinesSameEitherWay) {
  TempDir dir;
  std::vector<format::ObjectFiles> files;
  for (uint32_t k = 0; k < 2; ++k) {
    const uint32_t stamp = 10 + k, ident_f = 20 + k, ident_g = 30 + k;
    GcovImageBuilder b(Layout::kGcc12);
    b.notes_header(stamp, "/build/dir", true, stamp + 1);
    b.function(ident_f, 2, 3, "f", false, "q.c", 1, 1, 5, 1).blocks(3);
    b.arcs(0, {{2, 0}});
    b.arcs(2, {{1, format::kArcOnTree}});
    b.lines(2, {{"q.c", {1, 2, 3}}});
    b.function(ident_g, 4, 5, "g", false, "q.c", 2, 1, 4, 1).blocks(5);
    b.arcs(0, {{2, format::kArcOnTree}});
    b.arcs(2, {{3, format::kArcOnTree}, {4, format::kArcOnTree}});
    b.arcs(3, {{1, format::kArcOnTree}});
    b.arcs(4, {{1, format::kArcOnTree}});
    b.lines(2, {{"q.c", {4, 2}}});
    format::ObjectFiles o;
    o.notes = dir / ("q" + std::to_string(k) + ".gcno");
    EXPECT_TRUE(testing::write_bytes(o.notes, b.take()));
    if (k == 0) {
      GcovImageBuilder d(Layout::kGcc12);
      d.data_header(stamp, stamp + 1).summary(1, 3);
      d.data_function(ident_f, 2, 3).counters({3});
      d.word(0);
      o.data = dir / "q0.gcda";
      EXPECT_TRUE(testing::write_bytes(o.data, d.take()));
    }
    files.push_back(o);
  }
  {
    SCOPED_TRACE("with a data file first");
    expect_each_as_alone(files, {0, 1}, 1);
  }
  {
    SCOPED_TRACE("without one first");
    expect_each_as_alone(files, {1, 0}, 1);
  }
}

}  // namespace notes_reuse_test
}  // namespace covkit::model
