#include "util/demangle.h"

#include <gtest/gtest.h>

#include <string>

namespace covkit::util {
namespace demangle_test {

TEST(Demangle, NamesAsGcovShowsThem) {
  EXPECT_EQ(demangle("_Z3fooi"), "foo(int)");
  EXPECT_EQ(demangle("_ZN2ns1SC2Ev"), "ns::S::S()");
  EXPECT_EQ(demangle("main"), "main");
  EXPECT_EQ(demangle_or_none("_ZNK1S1fEv"), "S::f() const");
  EXPECT_EQ(demangle_or_none("main"), std::nullopt);
}

TEST(Demangle, TellsConstructorAndDestructorVariantsApart) {
  EXPECT_EQ(structor_kind("_ZN1SC1Ev"), StructorKind::kCompleteConstructor);
  EXPECT_EQ(structor_kind("_ZN1SC2Ev"), StructorKind::kBaseConstructor);
  EXPECT_EQ(structor_kind("_ZN1SD0Ev"), StructorKind::kDeletingDestructor);
  EXPECT_EQ(structor_kind("_ZN1SD1Ev"), StructorKind::kCompleteDestructor);
  EXPECT_EQ(structor_kind("_ZN1SD2Ev"), StructorKind::kBaseDestructor);
  EXPECT_EQ(structor_kind("_ZN1S1fEv"), StructorKind::kNone);
  EXPECT_EQ(structor_kind("main"), StructorKind::kNone);
}

// libiberty sizes stack arrays by the name's length: a 1 MB name (a hostile
// lcov tracefile's FN line) overflowed the stack of `covkit report --html`.
TEST(Demangle, HugeNamesAreLeftAsTheyAre) {
  const std::string plain(1 << 20, 'f');
  const std::string mangled = "_ZN" + std::string(1 << 20, 'f');
  EXPECT_EQ(demangle(plain), plain);
  EXPECT_EQ(demangle(mangled), mangled);
  EXPECT_EQ(demangle_or_none(mangled), std::nullopt);
  EXPECT_EQ(structor_kind(plain), StructorKind::kNone);
  EXPECT_EQ(structor_kind(mangled + "C1Ev"), StructorKind::kNone);
  // Long but real-sized names still demangle.
  const std::string long_name = "_Z" + std::to_string(1000) + std::string(1000, 'g') + "v";
  EXPECT_EQ(demangle(long_name), std::string(1000, 'g') + "()");
}

}  // namespace
}  // namespace covkit::util
