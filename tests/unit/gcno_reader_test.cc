// format/gcno_reader: every field of synthetic notes images in both layouts
// and byte orders, hostile records, and real gcc-11/gcc-12 notes files.
#include "format/gcno_reader.h"

#include <gtest/gtest.h>

#include <cstring>

#include "format/gcov_tags.h"
#include "gcov_image_builder.h"
#include "test_support.h"

namespace covkit::format {
namespace gcno_reader_test {

using testing::ArcSpec;
using testing::GcovImageBuilder;
using testing::ImageParam;
using testing::Layout;

NotesFile expect_notes(NotesResult r) {
  if (auto* h = (r ? nullptr : &r.error())) {
    ADD_FAILURE() << "header error: " << h->message;
    return {};
  }
  return std::move(*r);
}

// A record's pieces as vectors, for comparisons.
std::vector<NotesArc> arcs_at(const NotesFunction& f, size_t rec) {
  const auto piece = f.arcs_of(f.arcs.at(rec));
  return {piece.begin(), piece.end()};
}
std::vector<NotesLocation> locations_at(const NotesFunction& f, size_t rec) {
  const auto piece = f.locations_of(f.lines.at(rec));
  return {piece.begin(), piece.end()};
}
std::vector<uint32_t> lines_at(const NotesFunction& f, size_t rec, size_t loc) {
  const auto piece = f.lines_of(locations_at(f, rec).at(loc));
  return {piece.begin(), piece.end()};
}

// Two functions with every kind of record.
GcovImageBuilder sample_notes(Layout layout, bool big_endian) {
  GcovImageBuilder b(layout, big_endian);
  b.notes_header(0x12345678, "/build/dir", true, 0xcafef00d);
  b.function(0x11, 0x22, 0x33, "main", false, "src/main.c", 3, 5, 12, 1);
  b.blocks(5);
  b.arcs(0, {{2, kArcFallthrough}});
  b.arcs(2, {{3, 0}, {4, kArcFallthrough | kArcOnTree}});
  b.arcs(3, {{4, kArcFallthrough}, {1, kArcOnTree | kArcFake}});
  b.arcs(4, {{1, kArcOnTree}});
  b.lines(2, {{"src/main.c", {3, 5}}, {"inc/h.h", {7}}});
  b.lines(3, {{"src/main.c", {6}}});
  b.function(0x44, 0x55, 0x66, "_ZN1A1fEv", true, "inc/h.h", 20, 1, 22, 2);
  b.blocks(3);
  b.arcs(0, {{2, kArcFallthrough}});
  b.arcs(2, {{1, kArcOnTree}});
  b.lines(2, {{"inc/h.h", {21}}});
  return b;
}

size_t header_size(Layout layout) {
  // magic, version, stamp, [checksum], cwd string, unexecuted flag
  return layout == Layout::kGcc12 ? 16 + 4 + 11 + 4 : 12 + 4 + 12 + 4;
}

class GcnoSample : public ::testing::TestWithParam<ImageParam> {};

TEST_P(GcnoSample, HeaderFields) {
  auto b = sample_notes(GetParam().layout, GetParam().big_endian);
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  EXPECT_EQ(nf.swapped, GetParam().big_endian);
  EXPECT_EQ(nf.version.raw, b.default_version());
  EXPECT_EQ(nf.stamp, 0x12345678u);
  EXPECT_EQ(nf.checksum, GetParam().layout == Layout::kGcc12 ? 0xcafef00du : 0u);
  EXPECT_EQ(nf.cwd, "/build/dir");
  EXPECT_TRUE(nf.has_unexecuted_blocks);
  EXPECT_FALSE(nf.error) << nf.error->message;
  ASSERT_EQ(nf.functions.size(), 2u);
}

TEST_P(GcnoSample, FunctionFields) {
  auto b = sample_notes(GetParam().layout, GetParam().big_endian);
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_EQ(nf.functions.size(), 2u);
  const NotesFunction& f = nf.functions[0];
  EXPECT_EQ(f.ident, 0x11u);
  EXPECT_EQ(f.lineno_checksum, 0x22u);
  EXPECT_EQ(f.cfg_checksum, 0x33u);
  EXPECT_EQ(f.name, "main");
  EXPECT_FALSE(f.artificial);
  EXPECT_EQ(f.source, "src/main.c");
  EXPECT_EQ(f.start_line, 3u);
  EXPECT_EQ(f.start_column, 5u);
  EXPECT_EQ(f.end_line, 12u);
  EXPECT_EQ(f.end_column, 1u);
  EXPECT_EQ(f.num_blocks, 5u);
  EXPECT_EQ(f.extra_blocks_records, 0);

  const NotesFunction& g = nf.functions[1];
  EXPECT_EQ(g.ident, 0x44u);
  EXPECT_EQ(g.lineno_checksum, 0x55u);
  EXPECT_EQ(g.cfg_checksum, 0x66u);
  EXPECT_EQ(g.name, "_ZN1A1fEv");
  EXPECT_TRUE(g.artificial);
  EXPECT_EQ(g.source, "inc/h.h");
  EXPECT_EQ(g.start_line, 20u);
  EXPECT_EQ(g.start_column, 1u);
  EXPECT_EQ(g.end_line, 22u);
  EXPECT_EQ(g.end_column, 2u);
  EXPECT_EQ(g.num_blocks, 3u);
}

TEST_P(GcnoSample, ArcsRecords) {
  auto b = sample_notes(GetParam().layout, GetParam().big_endian);
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_EQ(nf.functions.size(), 2u);
  const NotesFunction& f = nf.functions[0];
  const auto& arcs = f.arcs;
  ASSERT_EQ(arcs.size(), 4u);
  EXPECT_EQ(arcs[0].src, 0u);
  ASSERT_EQ(arcs_at(f, 0).size(), 1u);
  EXPECT_EQ(arcs_at(f, 0)[0].dst, 2u);
  EXPECT_EQ(arcs_at(f, 0)[0].flags, kArcFallthrough);
  EXPECT_EQ(arcs[1].src, 2u);
  ASSERT_EQ(arcs_at(f, 1).size(), 2u);
  EXPECT_EQ(arcs_at(f, 1)[0].dst, 3u);
  EXPECT_EQ(arcs_at(f, 1)[0].flags, 0u);
  EXPECT_EQ(arcs_at(f, 1)[1].dst, 4u);
  EXPECT_EQ(arcs_at(f, 1)[1].flags, kArcFallthrough | kArcOnTree);
  EXPECT_EQ(arcs[2].src, 3u);
  ASSERT_EQ(arcs_at(f, 2).size(), 2u);
  EXPECT_EQ(arcs_at(f, 2)[1].dst, 1u);
  EXPECT_EQ(arcs_at(f, 2)[1].flags, kArcOnTree | kArcFake);
  EXPECT_EQ(arcs[3].src, 4u);
  ASSERT_EQ(arcs_at(f, 3).size(), 1u);
  EXPECT_EQ(arcs_at(f, 3)[0].flags, kArcOnTree);
  EXPECT_EQ(nf.functions[1].arcs.size(), 2u);
}

TEST_P(GcnoSample, LinesRecords) {
  auto b = sample_notes(GetParam().layout, GetParam().big_endian);
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_EQ(nf.functions.size(), 2u);
  const NotesFunction& f = nf.functions[0];
  const auto& lines = f.lines;
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].block, 2u);
  ASSERT_EQ(locations_at(f, 0).size(), 2u);
  EXPECT_EQ(nf.files.at(locations_at(f, 0)[0].file), "src/main.c");
  EXPECT_EQ(lines_at(f, 0, 0), (std::vector<uint32_t>{3, 5}));
  EXPECT_EQ(nf.files.at(locations_at(f, 0)[1].file), "inc/h.h");
  EXPECT_EQ(lines_at(f, 0, 1), (std::vector<uint32_t>{7}));
  EXPECT_EQ(lines[1].block, 3u);
  ASSERT_EQ(locations_at(f, 1).size(), 1u);
  EXPECT_EQ(lines_at(f, 1, 0), (std::vector<uint32_t>{6}));
  ASSERT_EQ(nf.functions[1].lines.size(), 1u);
  EXPECT_EQ(lines_at(nf.functions[1], 0, 0), (std::vector<uint32_t>{21}));
}

// Every prefix of the image parses without reading outside it: a short
// header is a HeaderError, a short body keeps what came before plus an error.
TEST_P(GcnoSample, EveryPrefixIsHandled) {
  auto b = sample_notes(GetParam().layout, GetParam().big_endian);
  const auto& full = b.bytes();
  const size_t hdr = header_size(GetParam().layout);
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> prefix(full.begin(), full.begin() + long(n));
    auto r = read_notes(prefix);
    if (n < 4) {
      ASSERT_TRUE(!r.has_value()) << n;
      EXPECT_EQ(r.error().problem, HeaderProblem::kNotThisKind) << n;
    } else if (n < hdr) {
      ASSERT_TRUE(!r.has_value()) << n;
      EXPECT_EQ(r.error().problem, HeaderProblem::kTruncatedHeader) << n;
    } else {
      ASSERT_TRUE(r.has_value()) << n;
      const NotesFile& nf = (*r);
      EXPECT_LE(nf.functions.size(), 2u);
      if (nf.error) {
        EXPECT_LE(nf.error->offset, n);
        EXPECT_FALSE(nf.error->message.empty());
        EXPECT_EQ(nf.error->message.find('\n'), std::string::npos);
      } else {
        // Only a cut between records leaves no error.
        EXPECT_TRUE(n == hdr || nf.functions.size() >= 1) << n;
      }
    }
  }
}

// What a function's records say, in one comparable string.
std::string describe(const NotesFunction& f) {
  std::string d = std::to_string(f.ident) + " " + f.name + " " + f.source + " " + std::to_string(f.start_line) + "-" +
                  std::to_string(f.end_line) + " blocks " + std::to_string(f.num_blocks.value_or(~0u)) + " extra " +
                  std::to_string(f.extra_blocks_records) + " arcs";
  for (const NotesArcs& rec : f.arcs) {
    d += " " + std::to_string(rec.src) + ":";
    for (const NotesArc& a : f.arcs_of(rec)) d += std::to_string(a.dst) + "/" + std::to_string(a.flags) + ",";
  }
  d += " lines";
  for (const NotesLines& rec : f.lines) {
    d += " " + std::to_string(rec.block) + ":";
    for (const NotesLocation& loc : f.locations_of(rec)) {
      d += "f" + std::to_string(loc.file) + "=";
      for (uint32_t l : f.lines_of(loc)) d += std::to_string(l) + ",";
    }
  }
  return d;
}

// A sink that takes every other function sees, with the functions kept, what
// the reader without one returns, in the same order, at every cut of the
// file (a corrupt file's last function included) and with the same error.
TEST_P(GcnoSample, SinkSeesEveryFunctionOnce) {
  auto b = sample_notes(GetParam().layout, GetParam().big_endian);
  const auto& full = b.bytes();
  for (size_t n = header_size(GetParam().layout); n <= full.size(); ++n) {
    std::vector<uint8_t> prefix(full.begin(), full.begin() + long(n));
    const NotesFile whole = expect_notes(read_notes(prefix));
    std::vector<std::string> seen;  // every function, offered or kept, in file order
    size_t offered = 0;
    std::vector<size_t> files_then;
    NotesFunctionSink take_every_other = [&](const NotesFile& file, NotesFunction& f) {
      files_then.push_back(file.files.size());
      seen.push_back(describe(f));
      return offered++ % 2 == 0;
    };
    const NotesFile streamed = expect_notes(read_notes(prefix, take_every_other));
    ASSERT_EQ(seen.size(), whole.functions.size()) << n;
    std::vector<std::string> expected;
    for (const NotesFunction& f : whole.functions) expected.push_back(describe(f));
    EXPECT_EQ(seen, expected) << n;
    ASSERT_EQ(streamed.functions.size(), seen.size() / 2) << n;
    for (size_t i = 0; i < streamed.functions.size(); ++i)
      EXPECT_EQ(describe(streamed.functions[i]), expected[2 * i + 1]) << n;
    // A function's files are named when it is offered.
    for (size_t i = 0; i < seen.size(); ++i)
      for (const NotesLines& rec : whole.functions[i].lines)
        for (const NotesLocation& loc : whole.functions[i].locations_of(rec)) EXPECT_LT(loc.file, files_then[i]) << n;
    EXPECT_EQ(streamed.files, whole.files) << n;
    ASSERT_EQ(bool(streamed.error), bool(whole.error)) << n;
    if (whole.error) {
      EXPECT_EQ(streamed.error->offset, whole.error->offset) << n;
      EXPECT_EQ(streamed.error->message, whole.error->message) << n;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, GcnoSample, ::testing::ValuesIn(testing::all_image_params()),
                         [](const auto& info) { return testing::image_param_name(info.param); });

// --- headers --------------------------------------------------------------

TEST(GcnoReader, EmptyFileIsNotANotesFile) {
  auto r = read_notes({});
  ASSERT_TRUE(!r.has_value());
  EXPECT_EQ(r.error().problem, HeaderProblem::kNotThisKind);
  EXPECT_EQ(r.error().message, "not a gcov notes file");
}

TEST(GcnoReader, DataFileIsNotANotesFile) {
  GcovImageBuilder b(Layout::kGcc12);
  b.data_header(1);
  auto r = read_notes(b.bytes());
  ASSERT_TRUE(!r.has_value());
  EXPECT_EQ(r.error().problem, HeaderProblem::kNotThisKind);
}

TEST(GcnoReader, HeaderWithHugeCwdLengthIsTruncated) {
  GcovImageBuilder b(Layout::kGcc12);
  b.word(kNotesMagic).word(testing::kVersion12).word(1).word(0).word(0xfffffff0).word(0);
  auto r = read_notes(b.bytes());
  ASSERT_TRUE(!r.has_value());
  EXPECT_EQ(r.error().problem, HeaderProblem::kTruncatedHeader);
}

TEST(GcnoReader, NullCwdReadsAsEmpty) {
  GcovImageBuilder b(Layout::kGcc11);
  b.word(kNotesMagic).word(testing::kVersion11).word(9).null_string().word(0);
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  EXPECT_EQ(nf.cwd, "");
  EXPECT_FALSE(nf.has_unexecuted_blocks);
  EXPECT_TRUE(nf.functions.empty());
  EXPECT_FALSE(nf.error);
}

// --- body structure ----------------------------------------------------------

GcovImageBuilder with_header(Layout layout = Layout::kGcc12) {
  GcovImageBuilder b(layout);
  b.notes_header(1, "/d", false);
  return b;
}

TEST(GcnoReader, ZeroTagEndsTheFile) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(2);
  b.word(0);
  b.word(0xdeadbeef).word(0xdeadbeef);  // ignored after the end marker
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  EXPECT_FALSE(nf.error);
  ASSERT_EQ(nf.functions.size(), 1u);
  EXPECT_EQ(nf.functions[0].num_blocks, 2u);
}

TEST(GcnoReader, StrayBytesAtEnd) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1);
  size_t at = b.size();
  b.raw("xy");
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_EQ(nf.error->offset, at);
  EXPECT_NE(nf.error->message.find("2 stray bytes"), std::string::npos) << nf.error->message;
  EXPECT_EQ(nf.functions.size(), 1u);
}

TEST(GcnoReader, TagWithoutLength) {
  auto b = with_header();
  size_t at = b.size();
  b.word(kTagFunction);
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_EQ(nf.error->offset, at);
  EXPECT_NE(nf.error->message.find("no length word"), std::string::npos) << nf.error->message;
}

TEST(GcnoReader, RecordLengthPastEndOfFile) {
  for (auto layout : {Layout::kGcc12, Layout::kGcc11})
    for (uint32_t len : {0xffffffffu, 0x80000000u, 0x7fffffffu, 1000u}) {
      auto b = with_header(layout);
      size_t at = b.size();
      b.record_words(kTagFunction, len, {1, 2, 3});
      const NotesFile nf = expect_notes(read_notes(b.bytes()));
      ASSERT_TRUE(nf.error) << len;
      EXPECT_EQ(nf.error->offset, at);
      EXPECT_NE(nf.error->message.find("runs past the end of the file"), std::string::npos) << nf.error->message;
      EXPECT_TRUE(nf.functions.empty());
    }
}

TEST(GcnoReader, ZeroLengthFunctionRecordIsTooShort) {
  auto b = with_header();
  b.record_words(kTagFunction, 0, {});
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_NE(nf.error->message.find("FUNCTION record too short"), std::string::npos) << nf.error->message;
}

TEST(GcnoReader, FunctionNameLongerThanRecord) {
  auto b = with_header();
  size_t at = b.begin_record(kTagFunction);
  b.word(1).word(2).word(3).word(0x7fffffff);  // name length
  b.end_record(at);
  b.word(0).word(0).word(0).word(0);
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_EQ(nf.error->offset, at + 4);
  EXPECT_NE(nf.error->message.find("name runs past the end of the record"), std::string::npos)
      << nf.error->message;
}

TEST(GcnoReader, FunctionMissingLineFields) {
  auto b = with_header();
  size_t at = b.begin_record(kTagFunction);
  b.word(1).word(2).word(3).string("fn").word(0).string("a.c").word(1);
  b.end_record(at);
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_NE(nf.error->message.find("FUNCTION record for 'fn' too short"), std::string::npos) << nf.error->message;
  EXPECT_TRUE(nf.functions.empty());
}

TEST(GcnoReader, ImpossibleBlockCount) {
  for (uint32_t n : {0xffffffffu, 0x80000000u, 100000u}) {
    auto b = with_header();
    b.function(1, 2, 3, "big", false, "a.c", 1, 1, 2, 1);
    size_t at = b.size();
    b.blocks(n);
    const NotesFile nf = expect_notes(read_notes(b.bytes()));
    ASSERT_TRUE(nf.error) << n;
    EXPECT_EQ(nf.error->offset, at + 8);
    EXPECT_NE(nf.error->message.find("claims " + std::to_string(n) + " blocks"), std::string::npos)
        << nf.error->message;
    ASSERT_EQ(nf.functions.size(), 1u);
    EXPECT_FALSE(nf.functions[0].num_blocks);
  }
}

TEST(GcnoReader, Gcc9BlocksRecordHasOneWordPerBlock) {
  GcovImageBuilder b(Layout::kGcc11);
  b.notes_header_v(0x4139352a /* "A95*" */, 1, "/d", false);
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1);
  b.record_words(kTagBlocks, 4, {0, 0, 0, 0});
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  EXPECT_FALSE(nf.error);
  ASSERT_EQ(nf.functions.size(), 1u);
  EXPECT_EQ(nf.functions[0].num_blocks, 4u);
}

TEST(GcnoReader, SecondBlocksRecordIsCountedNotUsed) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(3).blocks(9).blocks(10);
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  EXPECT_FALSE(nf.error);
  ASSERT_EQ(nf.functions.size(), 1u);
  EXPECT_EQ(nf.functions[0].num_blocks, 3u);
  EXPECT_EQ(nf.functions[0].extra_blocks_records, 2);
}

TEST(GcnoReader, ArcsBeforeBlocks) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1);
  b.arcs(0, {{1, 0}});
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_NE(nf.error->message.find("arc source block 0 out of range (0 blocks)"), std::string::npos)
      << nf.error->message;
}

TEST(GcnoReader, ArcDestinationOutOfRange) {
  for (uint32_t dst : {3u, 0xffffffffu, 0x80000000u}) {
    auto b = with_header();
    b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(3);
    size_t at = b.size();
    b.arcs(0, {{2, 0}, {dst, 0}});
    const NotesFile nf = expect_notes(read_notes(b.bytes()));
    ASSERT_TRUE(nf.error) << dst;
    EXPECT_EQ(nf.error->offset, at + 8 + 4 + 8);  // at the offending arc
    EXPECT_NE(nf.error->message.find("arc destination block " + std::to_string(dst) + " out of range (3 blocks)"),
              std::string::npos)
        << nf.error->message;
    EXPECT_NE(nf.error->message.find("'f'"), std::string::npos);
  }
}

TEST(GcnoReader, ArcSourceOutOfRange) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(3);
  b.arcs(7, {{1, 0}});
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_NE(nf.error->message.find("arc source block 7 out of range"), std::string::npos) << nf.error->message;
}

TEST(GcnoReader, SecondArcsRecordForABlock) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(3);
  b.arcs(0, {{2, 0}});
  b.arcs(0, {{1, 0}});
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_NE(nf.error->message.find("second ARCS record for block 0"), std::string::npos) << nf.error->message;
}

TEST(GcnoReader, ArcsRecordWithOddPayloadIgnoresTheHalfArc) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(3);
  b.record_words(kTagArcs, 16, {0, 2, 4, 1});  // src, one arc, half an arc
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  EXPECT_FALSE(nf.error);
  ASSERT_EQ(nf.functions[0].arcs.size(), 1u);
  ASSERT_EQ(arcs_at(nf.functions[0], 0).size(), 1u);
  EXPECT_EQ(arcs_at(nf.functions[0], 0)[0].dst, 2u);
}

TEST(GcnoReader, LinesForBlockOutOfRange) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(3);
  b.lines(3, {{"f.c", {1}}});
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_NE(nf.error->message.find("lines for block 3 out of range (3 blocks)"), std::string::npos)
      << nf.error->message;
}

TEST(GcnoReader, LineNumberBeforeFileName) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(3);
  size_t at = b.begin_record(kTagLines);
  b.word(2).word(5).word(0).null_string();
  b.end_record(at);
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_EQ(nf.error->offset, at + 8);
  EXPECT_NE(nf.error->message.find("line number before any file name"), std::string::npos) << nf.error->message;
}

TEST(GcnoReader, LinesNotTerminated) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(3);
  size_t at = b.begin_record(kTagLines);
  b.word(2).word(0).string("f.c").word(4);
  b.end_record(at);
  b.function(9, 9, 9, "g", false, "g.c", 1, 1, 2, 1);  // must not be read as part of LINES
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_NE(nf.error->message.find("LINES record not terminated"), std::string::npos) << nf.error->message;
  EXPECT_EQ(nf.functions.size(), 1u);
}

TEST(GcnoReader, LineFileNameWithHugeLength) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(3);
  size_t at = b.begin_record(kTagLines);
  b.word(2).word(0).word(0x7ffffff0).word(0).word(0);
  b.end_record(at);
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_NE(nf.error->message.find("file name runs past the end of LINES"), std::string::npos)
      << nf.error->message;
}

// Per-line tables are sized by line number, so absurd numbers are corruption.
TEST(GcnoReader, ExtremeLineNumbersAreCorruption) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(3);
  b.lines(2, {{"f.c", {5, 0x80000000u}}});
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_NE(nf.error->message.find("line number 2147483648 beyond the limit"), std::string::npos) << nf.error->message;
  EXPECT_TRUE(nf.functions[0].lines.empty());
}

// Below the per-line limit, the lines of all files together must still be
// plausible for the file's size (each needs a table entry downstream).
TEST(GcnoReader, LineSpanBeyondTheFileSizeBudgetIsCorruption) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(3);
  b.lines(2, {{"a.c", {kMaxLineNumber}}});
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_NE(nf.error->message.find("implausible for a file of"), std::string::npos) << nf.error->message;
}

// A block's arcs are placed on each of its locations downstream (gcov's
// branch lists): a block of 2,000 arcs and 2,000 locations, ~40 KB here,
// asked for 4 M entries (a 256 KB file: 40 M, 1.8 GB in `gcov -b`). The
// pair is charged by whichever record comes second; a block of the same
// arcs and a few locations is read whole.
GcovImageBuilder arcs_by_locations(bool lines_first, uint32_t locations) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(3);
  b.arcs(0, {{1, 0}});
  const std::vector<ArcSpec> arcs(2000, ArcSpec{2, 0});
  std::vector<testing::LineSpec> locs(locations, testing::LineSpec{"f.c", {}});
  locs[0].lines = {1};
  if (lines_first) b.lines(1, locs);
  b.arcs(1, arcs);
  if (!lines_first) b.lines(1, locs);
  return b;
}

TEST(GcnoReader, ArcsTimesLocationsBeyondTheFileSizeBudgetIsCorruption) {
  for (bool lines_first : {false, true}) {
    const auto b = arcs_by_locations(lines_first, 2000);
    const NotesFile nf = expect_notes(read_notes(b.bytes()));
    ASSERT_TRUE(nf.error) << lines_first;
    EXPECT_NE(nf.error->message.find("4000000 branch entries, implausible for a file of"), std::string::npos)
        << nf.error->message;
    // The record that broke the budget is not kept.
    ASSERT_EQ(nf.functions.size(), 1u);
    EXPECT_LT(nf.functions[0].arc_list.size() * nf.functions[0].location_list.size(), 4000000u);
  }
  const NotesFile fine = expect_notes(read_notes(arcs_by_locations(false, 3).bytes()));
  EXPECT_FALSE(fine.error) << fine.error->message;
}

TEST(GcnoReader, ExtremeFunctionLinesAreCorruption) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 0xfffffff0u, 1).blocks(3);
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  ASSERT_TRUE(nf.error);
  EXPECT_TRUE(nf.functions.empty());
}

TEST(GcnoReader, UnknownTopLevelTagEndsTheFunction) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(3);
  b.record_words(0xa1000000, 8, {0, 0});  // not a subrecord of FUNCTION
  b.arcs(0, {{2, 0}});                    // belongs to no function: skipped
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  EXPECT_FALSE(nf.error);
  ASSERT_EQ(nf.functions.size(), 1u);
  EXPECT_TRUE(nf.functions[0].arcs.empty());
}

TEST(GcnoReader, UnknownSubtagIsSkipped) {
  auto b = with_header();
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1).blocks(3);
  b.record_words(0x01470000, 4, {0x12345678});
  b.arcs(0, {{2, 0}});
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  EXPECT_FALSE(nf.error);
  ASSERT_EQ(nf.functions.size(), 1u);
  EXPECT_EQ(nf.functions[0].arcs.size(), 1u);
}

TEST(GcnoReader, SubrecordsBeforeAnyFunctionAreSkipped) {
  auto b = with_header();
  b.blocks(4);
  b.arcs(0, {{1, 0}});
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1);
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  EXPECT_FALSE(nf.error);
  ASSERT_EQ(nf.functions.size(), 1u);
  EXPECT_FALSE(nf.functions[0].num_blocks);
}

TEST(GcnoReader, RecordLengthLongerThanItsFieldsSkipsTheRest) {
  auto b = with_header(Layout::kGcc11);
  b.function(1, 2, 3, "f", false, "f.c", 1, 1, 2, 1);
  // A FUNCTION record with two words of trailing junk.
  size_t f2 = b.begin_record(kTagFunction);
  b.word(5).word(6).word(7).string("g").word(0).string("g.c").word(3).word(4).word(5).word(6).word(0xaaaa).word(0xbbbb);
  b.end_record(f2);
  b.blocks(2);
  const NotesFile nf = expect_notes(read_notes(b.bytes()));
  EXPECT_FALSE(nf.error);
  ASSERT_EQ(nf.functions.size(), 2u);
  EXPECT_EQ(nf.functions[1].name, "g");
  EXPECT_EQ(nf.functions[1].end_column, 6u);
  EXPECT_EQ(nf.functions[1].num_blocks, 2u);
}

// --- real files ----------------------------------------------------------------

// Notes files hold strings (unaligned in GCC 12), so converting one to the
// other byte order needs to walk the records: every word swapped, string
// bytes kept in order.
std::vector<uint8_t> swap_notes(const std::vector<uint8_t>& in, bool lengths_in_bytes) {
  const uint32_t unit = lengths_in_bytes ? 1 : 4;
  std::vector<uint8_t> out;
  size_t pos = 0;
  auto get = [&](bool emit) {
    uint32_t v;
    std::memcpy(&v, in.data() + pos, 4);
    if (emit) {
      uint32_t s = __builtin_bswap32(v);
      const auto* p = reinterpret_cast<const uint8_t*>(&s);
      out.insert(out.end(), p, p + 4);
    }
    pos += 4;
    return v;
  };
  auto str = [&] {
    uint32_t len = get(true) * unit;
    out.insert(out.end(), in.begin() + long(pos), in.begin() + long(pos + len));
    pos += len;
  };
  for (int i = 0; i < (lengths_in_bytes ? 4 : 3); ++i) get(true);
  str();
  get(true);
  while (pos + 8 <= in.size()) {
    uint32_t tag = get(true);
    uint32_t len = get(true) * unit;
    size_t end = pos + len;
    if (tag == kTagFunction) {
      get(true), get(true), get(true);
      str();
      get(true);
      str();
      for (int i = 0; i < 4; ++i) get(true);
    } else if (tag == kTagLines) {
      get(true);
      while (pos < end)
        if (get(true) == 0) str();
    } else {
      while (pos < end) get(true);
    }
  }
  out.insert(out.end(), in.begin() + long(pos), in.end());
  return out;
}

// Facts from `gcov-dump -l` of kKnownProgram, identical for gcc-11 and gcc-12
// at -O0 (idents and checksums aside, which depend on the build).
void check_known_notes(const NotesFile& nf, const testing::CompiledProgram& p, int major) {
  EXPECT_FALSE(nf.error) << nf.error->message;
  EXPECT_EQ(nf.version.major, major);
  EXPECT_EQ(nf.cwd, p.dir);
  EXPECT_TRUE(nf.has_unexecuted_blocks);
  ASSERT_EQ(nf.functions.size(), 3u);

  const NotesFunction& main_fn = nf.functions[0];
  EXPECT_EQ(main_fn.name, "main");
  EXPECT_EQ(main_fn.source, "p.c");
  EXPECT_FALSE(main_fn.artificial);
  EXPECT_EQ(main_fn.start_line, 4u);
  EXPECT_EQ(main_fn.start_column, 5u);
  EXPECT_EQ(main_fn.end_line, 14u);
  EXPECT_EQ(main_fn.end_column, 1u);
  EXPECT_EQ(main_fn.num_blocks, 17u);
  ASSERT_EQ(main_fn.arcs.size(), 16u);  // every block but EXIT
  // block 3 (line 9) calls sq: fall through to 4, fake exit to EXIT.
  const NotesArcs& call = main_fn.arcs[2];
  EXPECT_EQ(call.src, 3u);
  ASSERT_EQ(arcs_at(main_fn, 2).size(), 2u);
  EXPECT_EQ(arcs_at(main_fn, 2)[0].dst, 4u);
  EXPECT_EQ(arcs_at(main_fn, 2)[0].flags, kArcFallthrough);
  EXPECT_EQ(arcs_at(main_fn, 2)[1].dst, 1u);
  EXPECT_EQ(arcs_at(main_fn, 2)[1].flags, kArcOnTree | kArcFake);
  // block 5: the condition of the first loop.
  const NotesArcs& cond = main_fn.arcs[4];
  EXPECT_EQ(cond.src, 5u);
  ASSERT_EQ(arcs_at(main_fn, 4).size(), 2u);
  EXPECT_EQ(arcs_at(main_fn, 4)[0].dst, 3u);
  EXPECT_EQ(arcs_at(main_fn, 4)[0].flags, 0u);
  EXPECT_EQ(arcs_at(main_fn, 4)[1].dst, 6u);
  EXPECT_EQ(arcs_at(main_fn, 4)[1].flags, kArcOnTree | kArcFallthrough);
  EXPECT_EQ(main_fn.arcs[15].src, 16u);
  ASSERT_EQ(arcs_at(main_fn, 15).size(), 1u);
  EXPECT_EQ(arcs_at(main_fn, 15)[0].dst, 1u);
  EXPECT_EQ(arcs_at(main_fn, 15)[0].flags, kArcOnTree);
  int non_tree = 0;
  for (const auto& rec : main_fn.arcs)
    for (const auto& a : main_fn.arcs_of(rec)) non_tree += !(a.flags & kArcOnTree);
  EXPECT_EQ(non_tree, 7);  // = the 7 counters in the data file
  // LINES: block 2 holds lines 4, 7, 8; blocks 6..11 the one-line loops of line 10.
  ASSERT_EQ(main_fn.lines.size(), 14u);
  EXPECT_EQ(main_fn.lines[0].block, 2u);
  ASSERT_EQ(locations_at(main_fn, 0).size(), 1u);
  EXPECT_EQ(nf.files.at(locations_at(main_fn, 0)[0].file), "p.c");
  EXPECT_EQ(lines_at(main_fn, 0, 0), (std::vector<uint32_t>{4, 7, 8}));
  for (size_t i = 4; i <= 9; ++i) {
    EXPECT_EQ(main_fn.lines[i].block, i + 2);
    EXPECT_EQ(lines_at(main_fn, i, 0), (std::vector<uint32_t>{10}));
  }
  EXPECT_EQ(main_fn.lines[13].block, 15u);
  EXPECT_EQ(lines_at(main_fn, 13, 0), (std::vector<uint32_t>{13}));

  const NotesFunction& sq = nf.functions[1];
  EXPECT_EQ(sq.name, "sq");
  EXPECT_EQ(sq.start_line, 2u);
  EXPECT_EQ(sq.start_column, 12u);
  EXPECT_EQ(sq.end_line, 2u);
  EXPECT_EQ(sq.end_column, 38u);
  EXPECT_EQ(sq.num_blocks, 4u);
  ASSERT_EQ(sq.arcs.size(), 3u);
  EXPECT_EQ(arcs_at(sq, 0)[0].flags, kArcFallthrough);
  EXPECT_EQ(arcs_at(sq, 1)[0].flags, kArcOnTree | kArcFallthrough);
  EXPECT_EQ(arcs_at(sq, 2)[0].flags, kArcOnTree);

  const NotesFunction& never = nf.functions[2];
  EXPECT_EQ(never.name, "never");
  EXPECT_EQ(never.start_line, 1u);
  EXPECT_EQ(never.start_column, 12u);
  EXPECT_EQ(never.end_line, 1u);
  EXPECT_EQ(never.end_column, 41u);
  EXPECT_EQ(never.num_blocks, 4u);
}

TEST(GcnoReaderReal, Gcc12) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-12");
  auto r = read_notes(p.gcno);
  ASSERT_TRUE(r.has_value());
  const NotesFile& nf = (*r);
  EXPECT_FALSE(nf.swapped);
  EXPECT_EQ(nf.version.minor, 2);
  check_known_notes(nf, p, 12);
}

TEST(GcnoReaderReal, Gcc11) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-11");
  auto r = read_notes(p.gcno);
  ASSERT_TRUE(r.has_value());
  const NotesFile& nf = (*r);
  EXPECT_FALSE(nf.swapped);
  check_known_notes(nf, p, 11);
}

void expect_same_notes(const NotesFile& a, const NotesFile& b) {
  EXPECT_EQ(a.version.raw, b.version.raw);
  EXPECT_EQ(a.stamp, b.stamp);
  EXPECT_EQ(a.checksum, b.checksum);
  EXPECT_EQ(a.cwd, b.cwd);
  EXPECT_EQ(a.has_unexecuted_blocks, b.has_unexecuted_blocks);
  ASSERT_EQ(a.functions.size(), b.functions.size());
  for (size_t i = 0; i < a.functions.size(); ++i) {
    const auto& x = a.functions[i];
    const auto& y = b.functions[i];
    EXPECT_EQ(x.ident, y.ident);
    EXPECT_EQ(x.lineno_checksum, y.lineno_checksum);
    EXPECT_EQ(x.cfg_checksum, y.cfg_checksum);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.source, y.source);
    EXPECT_EQ(x.start_line, y.start_line);
    EXPECT_EQ(x.end_line, y.end_line);
    EXPECT_EQ(x.num_blocks, y.num_blocks);
    ASSERT_EQ(x.arcs.size(), y.arcs.size());
    for (size_t j = 0; j < x.arcs.size(); ++j) {
      EXPECT_EQ(x.arcs[j].src, y.arcs[j].src);
      const auto xa = arcs_at(x, j), ya = arcs_at(y, j);
      ASSERT_EQ(xa.size(), ya.size());
      for (size_t k = 0; k < xa.size(); ++k) {
        EXPECT_EQ(xa[k].dst, ya[k].dst);
        EXPECT_EQ(xa[k].flags, ya[k].flags);
      }
    }
    ASSERT_EQ(x.lines.size(), y.lines.size());
    for (size_t j = 0; j < x.lines.size(); ++j) {
      EXPECT_EQ(x.lines[j].block, y.lines[j].block);
      const auto xl = locations_at(x, j), yl = locations_at(y, j);
      ASSERT_EQ(xl.size(), yl.size());
      for (size_t k = 0; k < xl.size(); ++k) {
        EXPECT_EQ(a.files.at(xl[k].file), b.files.at(yl[k].file));
        EXPECT_EQ(lines_at(x, j, k), lines_at(y, j, k));
      }
    }
  }
}

TEST(GcnoReaderReal, Gcc12BigEndianParsesIdentically) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-12");
  auto swapped = swap_notes(p.gcno, true);
  ASSERT_EQ(swapped.size(), p.gcno.size());
  ASSERT_NE(swapped, p.gcno);
  auto a = read_notes(p.gcno);
  auto b = read_notes(swapped);
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  EXPECT_TRUE((*b).swapped);
  EXPECT_FALSE((*b).error);
  expect_same_notes((*a), (*b));
}

TEST(GcnoReaderReal, Gcc11BigEndianParsesIdentically) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-11");
  auto swapped = swap_notes(p.gcno, false);
  ASSERT_EQ(swapped.size(), p.gcno.size());
  auto a = read_notes(p.gcno);
  auto b = read_notes(swapped);
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  EXPECT_TRUE((*b).swapped);
  EXPECT_FALSE((*b).error);
  expect_same_notes((*a), (*b));
}

// Cross-check with gcov-dump itself: its block counts and function names.
TEST(GcnoReaderReal, AgreesWithGcovDump12) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-12");
  if (!testing::have_program("gcov-dump-12")) GTEST_SKIP() << "gcov-dump-12 is not installed";
  std::string dump;
  ASSERT_EQ(testing::run_command("gcov-dump-12 -l '" + p.gcno_path + "'", &dump), 0) << dump;
  auto r = read_notes(p.gcno);
  ASSERT_TRUE(r.has_value());
  const NotesFile& nf = (*r);
  EXPECT_NE(dump.find("stamp " + std::to_string(nf.stamp) + "\n"), std::string::npos);
  for (const NotesFunction& f : nf.functions) {
    std::string fn_line = "FUNCTION ident=" + std::to_string(f.ident) + ", ";
    EXPECT_NE(dump.find(fn_line), std::string::npos) << fn_line;
    EXPECT_NE(dump.find("`" + f.name + "' p.c:" + std::to_string(f.start_line) + ":" +
                        std::to_string(f.start_column) + "-" + std::to_string(f.end_line) + ":" +
                        std::to_string(f.end_column)),
              std::string::npos)
        << f.name;
  }
  EXPECT_NE(dump.find("BLOCKS 17 blocks"), std::string::npos);
  EXPECT_NE(dump.find("block 3: 4:0004(fall) 1:0003(tree,fake)"), std::string::npos);
}

}  // namespace
}  // namespace covkit::format
