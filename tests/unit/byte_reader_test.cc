// format/byte_reader: bounds-checked words, counters and strings.
#include "format/byte_reader.h"

#include <gtest/gtest.h>

#include <vector>

#include "format/gcov_tags.h"

namespace covkit::format {
namespace byte_reader_test {

std::vector<uint8_t> le(std::initializer_list<uint32_t> words) {
  std::vector<uint8_t> out;
  for (uint32_t w : words)
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(w >> (8 * i)));
  return out;
}

std::vector<uint8_t> be(std::initializer_list<uint32_t> words) {
  std::vector<uint8_t> out;
  for (uint32_t w : words)
    for (int i = 3; i >= 0; --i) out.push_back(uint8_t(w >> (8 * i)));
  return out;
}

TEST(ByteReader, MagicInNativeOrder) {
  auto d = le({kNotesMagic, 0x11223344});
  ByteReader r(d);
  ASSERT_TRUE(r.read_magic(kNotesMagic));
  EXPECT_FALSE(r.swapped());
  EXPECT_EQ(r.u32(), 0x11223344u);
  EXPECT_TRUE(r.at_end());
}

TEST(ByteReader, MagicInOtherOrderSwapsEveryWord) {
  auto d = be({kDataMagic, 0x11223344});
  ByteReader r(d);
  ASSERT_TRUE(r.read_magic(kDataMagic));
  EXPECT_TRUE(r.swapped());
  EXPECT_EQ(r.u32(), 0x11223344u);
}

TEST(ByteReader, WrongMagic) {
  auto d = le({kDataMagic});
  ByteReader r(d);
  EXPECT_FALSE(r.read_magic(kNotesMagic));
  std::vector<uint8_t> short_data{0x6f, 0x6e};
  ByteReader r2(short_data);
  EXPECT_FALSE(r2.read_magic(kNotesMagic));
}

TEST(ByteReader, U32StopsAtEnd) {
  std::vector<uint8_t> d{1, 0, 0, 0, 2, 0, 0};
  ByteReader r(d);
  EXPECT_EQ(r.u32(), 1u);
  EXPECT_EQ(r.position(), 4u);
  EXPECT_EQ(r.u32(), std::nullopt);
  EXPECT_EQ(r.position(), 4u);  // a failed read does not move
  EXPECT_EQ(r.remaining(), 3u);
}

TEST(ByteReader, U64IsLowWordFirst) {
  auto d = le({0x89abcdef, 0x01234567});
  ByteReader r(d);
  EXPECT_EQ(r.u64(), 0x0123456789abcdefull);
  auto s = be({0x89abcdef, 0x01234567});
  ByteReader rs(s);
  rs.set_swapped(true);
  EXPECT_EQ(rs.u64(), 0x0123456789abcdefull);
}

TEST(ByteReader, U64NeedsBothWords) {
  auto d = le({5});
  ByteReader r(d);
  EXPECT_EQ(r.u64(), std::nullopt);
}

TEST(ByteReader, LimitConfinesReads) {
  auto d = le({1, 2, 3});
  ByteReader r(d);
  r.set_limit(4);
  EXPECT_EQ(r.u32(), 1u);
  EXPECT_EQ(r.u32(), std::nullopt);
  r.clear_limit();
  EXPECT_EQ(r.u32(), 2u);
  r.set_limit(1000);  // clamped to the data
  EXPECT_EQ(r.u32(), 3u);
  EXPECT_EQ(r.u32(), std::nullopt);
}

TEST(ByteReader, LimitBeforePositionFailsEveryRead) {
  auto d = le({1, 2, 3});
  ByteReader r(d);
  ASSERT_TRUE(r.seek(8));
  r.set_limit(4);
  EXPECT_EQ(r.u32(), std::nullopt);
  bool is_null = false;
  EXPECT_EQ(r.string(true, &is_null), std::nullopt);
}

TEST(ByteReader, SeekBounds) {
  auto d = le({1, 2});
  ByteReader r(d);
  EXPECT_TRUE(r.seek(8));
  EXPECT_TRUE(r.at_end());
  EXPECT_FALSE(r.seek(9));
  EXPECT_EQ(r.position(), 8u);
}

TEST(ByteReader, Gcc12StringIsByteLengthUnpadded) {
  // "ab" as GCC 12 writes it: length 3 (with the NUL), then 3 bytes, then the next word unaligned.
  std::vector<uint8_t> d{3, 0, 0, 0, 'a', 'b', 0, 0x78, 0x56, 0x34, 0x12};
  ByteReader r(d);
  bool is_null = true;
  EXPECT_EQ(r.string(true, &is_null), "ab");
  EXPECT_FALSE(is_null);
  EXPECT_EQ(r.position(), 7u);
  EXPECT_EQ(r.u32(), 0x12345678u);
}

TEST(ByteReader, Gcc11StringIsWordLengthPadded) {
  std::vector<uint8_t> d{2, 0, 0, 0, 'a', 'b', 'c', 'd', 'e', 0, 0, 0, 9, 0, 0, 0};
  ByteReader r(d);
  bool is_null = true;
  EXPECT_EQ(r.string(false, &is_null), "abcde");
  EXPECT_FALSE(is_null);
  EXPECT_EQ(r.u32(), 9u);
}

TEST(ByteReader, NullStringIsZeroLength) {
  auto d = le({0, 7});
  for (bool bytes : {true, false}) {
    ByteReader r(d);
    bool is_null = false;
    EXPECT_EQ(r.string(bytes, &is_null), "");
    EXPECT_TRUE(is_null);
    EXPECT_EQ(r.u32(), 7u);
  }
}

TEST(ByteReader, EmptyStringIsNotNull) {
  std::vector<uint8_t> d{1, 0, 0, 0, 0};
  ByteReader r(d);
  bool is_null = true;
  EXPECT_EQ(r.string(true, &is_null), "");
  EXPECT_FALSE(is_null);
}

TEST(ByteReader, StringWithoutNulTakesAllItsBytes) {
  std::vector<uint8_t> d{3, 0, 0, 0, 'x', 'y', 'z'};
  ByteReader r(d);
  EXPECT_EQ(r.string(true, nullptr), "xyz");
}

TEST(ByteReader, HugeStringLengthsFail) {
  for (uint32_t len : {0xffffffffu, 0x80000000u, 0x40000000u, 5u}) {
    auto d = le({len, 0x41414141});
    for (bool bytes : {true, false}) {
      ByteReader r(d);
      EXPECT_EQ(r.string(bytes, nullptr), std::nullopt) << len << " bytes=" << bytes;
    }
  }
}

TEST(ByteReader, StringStopsAtLimit) {
  std::vector<uint8_t> d{4, 0, 0, 0, 'a', 'b', 'c', 0};
  ByteReader r(d);
  r.set_limit(7);
  EXPECT_EQ(r.string(true, nullptr), std::nullopt);
}

TEST(ByteReader, OverrunNamesPositionAndWhat) {
  auto d = le({1});
  ByteReader r(d);
  r.u32();
  ParseError e = r.overrun("counter");
  EXPECT_EQ(e.offset, 4u);
  EXPECT_NE(e.message.find("counter"), std::string::npos);
}

TEST(ByteReader, EmptyInput) {
  std::vector<uint8_t> d;
  ByteReader r(d);
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(r.u32(), std::nullopt);
  EXPECT_FALSE(r.read_magic(kNotesMagic));
}

// skip_string_if is string_view's answer when that is `known`, without the
// search for the end: checked against string_view on every record of up to
// 12 bytes over a small alphabet (NULs inside, lengths that lie, both length
// units, both byte orders, a record limit).
TEST(ByteReader, SkipStringIfAgreesWithStringView) {
  const std::vector<std::string> knowns{"", "a", "ab", "abc", "abcd", "abcde"};
  const char alphabet[] = {'a', 'b', '\0'};
  for (bool bytes : {true, false})
    for (bool swap : {false, true})
      for (uint32_t len = 0; len <= 4; ++len)
        for (size_t payload = 0; payload <= 8; ++payload)
          for (uint32_t pattern = 0; pattern < 81; ++pattern)
            for (const std::string& known : knowns) {
              std::vector<uint8_t> d = swap ? be({len}) : le({len});
              uint32_t p = pattern;
              for (size_t k = 0; k < payload; ++k) {
                d.push_back(uint8_t(alphabet[p % 3]));
                p /= 3;
              }
              d.push_back(0x7f);  // past the record's limit
              ByteReader a(d), b(d);
              a.set_swapped(swap);
              b.set_swapped(swap);
              a.set_limit(4 + payload);
              b.set_limit(4 + payload);
              bool is_null = false;
              const auto view = a.string_view(bytes, &is_null);
              const bool same = view && !is_null && *view == known;
              ASSERT_EQ(b.skip_string_if(bytes, known), same)
                  << "len " << len << " payload " << payload << " pattern " << pattern << " known '" << known << "'";
              EXPECT_EQ(b.position(), same ? a.position() : 0u);
            }
}

}  // namespace
}  // namespace covkit::format
