// format/gcov_version: decoding of the version word and what each version implies.
#include "format/gcov_version.h"

#include <gtest/gtest.h>

#include "format/gcda_reader.h"
#include "format/gcno_reader.h"
#include "gcov_image_builder.h"

namespace covkit::format {
namespace gcov_version_test {

constexpr uint32_t chars(const char (&s)[5]) {
  return (uint32_t(uint8_t(s[0])) << 24) | (uint32_t(uint8_t(s[1])) << 16) | (uint32_t(uint8_t(s[2])) << 8) |
         uint32_t(uint8_t(s[3]));
}

TEST(GcovVersion, DecodesGcc12_2) {
  auto v = GcovVersion::decode(chars("B22*"));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 12);
  EXPECT_EQ(v->minor, 2);
  EXPECT_EQ(v->raw, chars("B22*"));
  EXPECT_TRUE(v->supported());
  EXPECT_TRUE(v->lengths_in_bytes());
  EXPECT_TRUE(v->header_has_checksum());
  EXPECT_EQ(v->gcc_version_string(), "12.2.0");
  EXPECT_EQ(v->four_chars(), "B22*");
}

TEST(GcovVersion, DecodesGcc11_3) {
  auto v = GcovVersion::decode(chars("B13*"));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 11);
  EXPECT_EQ(v->minor, 3);
  EXPECT_TRUE(v->supported());
  EXPECT_FALSE(v->lengths_in_bytes());
  EXPECT_FALSE(v->header_has_checksum());
  EXPECT_EQ(v->gcc_version_string(), "11.3.0");
}

TEST(GcovVersion, DecodesGcc8_5) {
  auto v = GcovVersion::decode(chars("A85*"));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 8);
  EXPECT_EQ(v->minor, 5);
  EXPECT_TRUE(v->supported());
  EXPECT_FALSE(v->lengths_in_bytes());
}

TEST(GcovVersion, Gcc14IsTheLastSupported) {
  auto v14 = GcovVersion::decode(chars("B41*"));
  ASSERT_TRUE(v14);
  EXPECT_EQ(v14->major, 14);
  EXPECT_TRUE(v14->supported());
  EXPECT_TRUE(v14->lengths_in_bytes());
}

TEST(GcovVersion, Gcc7And15AreWellFormedButUnsupported) {
  auto v7 = GcovVersion::decode(chars("A73*"));
  ASSERT_TRUE(v7);
  EXPECT_EQ(v7->major, 7);
  EXPECT_EQ(v7->minor, 3);
  EXPECT_FALSE(v7->supported());
  auto v15 = GcovVersion::decode(chars("B50*"));
  ASSERT_TRUE(v15);
  EXPECT_EQ(v15->major, 15);
  EXPECT_FALSE(v15->supported());
}

TEST(GcovVersion, GarbageIsNotAVersion) {
  EXPECT_FALSE(GcovVersion::decode(0));
  EXPECT_FALSE(GcovVersion::decode(0xffffffff));
  EXPECT_FALSE(GcovVersion::decode(chars("b22*")));  // lower-case first letter
  EXPECT_FALSE(GcovVersion::decode(chars("BX2*")));
  EXPECT_FALSE(GcovVersion::decode(chars("B2X*")));
  EXPECT_FALSE(GcovVersion::decode(chars("@22*")));
}

TEST(GcovVersion, FromGccRoundTrips) {
  for (int major = 8; major <= 14; ++major)
    for (int minor = 0; minor <= 9; ++minor) {
      GcovVersion v = GcovVersion::from_gcc(major, minor);
      EXPECT_EQ(v.major, major);
      EXPECT_EQ(v.minor, minor);
      EXPECT_EQ(v.raw & 0xff, uint32_t('*'));
      auto d = GcovVersion::decode(v.raw);
      ASSERT_TRUE(d);
      EXPECT_EQ(d->major, major);
      EXPECT_EQ(d->minor, minor);
    }
  EXPECT_EQ(GcovVersion::from_gcc(12, 2).raw, chars("B22*"));
  EXPECT_EQ(GcovVersion::from_gcc(11, 3).raw, chars("B13*"));
  EXPECT_EQ(GcovVersion::from_gcc(8, 5).raw, chars("A85*"));
}

TEST(GcovVersion, VersionCharsReplacesUnprintables) {
  EXPECT_EQ(version_chars(chars("B22*")), "B22*");
  EXPECT_EQ(version_chars(0x00411f7f), "?A??");
  EXPECT_EQ(version_chars(0xffffffff), "????");
}

// The readers reject what decode() rejects or supported() refuses, with an
// "unsupported version" message naming the four characters.
void expect_unsupported(uint32_t raw, const std::string& shown) {
  for (auto layout : {testing::Layout::kGcc12, testing::Layout::kGcc11}) {
    testing::GcovImageBuilder notes(layout);
    notes.notes_header_v(raw, 1, "/tmp", false);
    auto nr = read_notes(notes.bytes());
    ASSERT_TRUE(!nr.has_value()) << shown;
    const auto& ne = nr.error();
    EXPECT_EQ(ne.problem, HeaderProblem::kUnsupportedVersion);
    EXPECT_EQ(ne.version_word, raw);
    EXPECT_NE(ne.message.find("unsupported version"), std::string::npos) << ne.message;
    EXPECT_NE(ne.message.find("'" + shown + "'"), std::string::npos) << ne.message;

    testing::GcovImageBuilder data(layout);
    data.data_header_v(raw, 1);
    auto dr = read_data(data.bytes());
    ASSERT_TRUE(!dr.has_value()) << shown;
    const auto& de = dr.error();
    EXPECT_EQ(de.problem, HeaderProblem::kUnsupportedVersion);
    EXPECT_EQ(de.version_word, raw);
    EXPECT_NE(de.message.find("unsupported version"), std::string::npos) << de.message;
    EXPECT_NE(de.message.find("'" + shown + "'"), std::string::npos) << de.message;
  }
}

TEST(GcovVersion, ReadersRejectGcc7) { expect_unsupported(chars("A73*"), "A73*"); }
TEST(GcovVersion, ReadersRejectGcc15) { expect_unsupported(chars("B50*"), "B50*"); }
TEST(GcovVersion, ReadersRejectGarbage) {
  expect_unsupported(0xdeadbeef, "????");
  expect_unsupported(chars("zz9*"), "zz9*");
}

TEST(GcovVersion, ReadersAcceptGcc8Notes) {
  // GCC 8 to 11 share the word-length layout.
  testing::GcovImageBuilder notes(testing::Layout::kGcc11);
  notes.notes_header_v(chars("A85*"), 7, "/src", true);
  auto nr = read_notes(notes.bytes());
  ASSERT_TRUE(nr.has_value());
  const auto& nf = (*nr);
  EXPECT_EQ(nf.version.major, 8);
  EXPECT_EQ(nf.version.minor, 5);
  EXPECT_EQ(nf.stamp, 7u);
  EXPECT_EQ(nf.cwd, "/src");
  EXPECT_TRUE(nf.has_unexecuted_blocks);
}

}  // namespace
}  // namespace covkit::format
