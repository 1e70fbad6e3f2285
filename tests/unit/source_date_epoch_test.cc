#include "util/source_date_epoch.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace covkit::util {
namespace source_date_epoch_test {

// Sets SOURCE_DATE_EPOCH for one test and restores what was there.
class Epoch {
 public:
  explicit Epoch(const char* value) {
    if (const char* v = std::getenv("SOURCE_DATE_EPOCH")) old_ = v, had_ = true;
    if (value)
      ::setenv("SOURCE_DATE_EPOCH", value, 1);
    else
      ::unsetenv("SOURCE_DATE_EPOCH");
  }
  ~Epoch() {
    if (had_)
      ::setenv("SOURCE_DATE_EPOCH", old_.c_str(), 1);
    else
      ::unsetenv("SOURCE_DATE_EPOCH");
  }

 private:
  std::string old_;
  bool had_ = false;
};

TEST(SourceDateEpoch, ItsValueWhenSet) {
  Epoch e("1700000000");
  auto t = output_timestamp();
  ASSERT_TRUE(t);
  EXPECT_EQ(*t, 1700000000);
}

TEST(SourceDateEpoch, NowWhenUnsetOrEmpty) {
  for (const char* value : {static_cast<const char*>(nullptr), ""}) {
    Epoch e(value);
    const int64_t before = int64_t(std::time(nullptr));
    auto t = output_timestamp();
    ASSERT_TRUE(t);
    EXPECT_GE(*t, before);
    EXPECT_LE(*t, int64_t(std::time(nullptr)));
  }
}

TEST(SourceDateEpoch, MalformedIsAnErrorNamingIt) {
  for (const char* value : {"yesterday", "-5", "12abc", " 12", "99999999999999999999999"}) {
    Epoch e(value);
    auto t = output_timestamp();
    ASSERT_FALSE(t) << value;
    EXPECT_NE(t.error().message.find(std::string("SOURCE_DATE_EPOCH=\"") + value + "\""), std::string::npos)
        << t.error().message;
  }
}

}  // namespace source_date_epoch_test
}  // namespace covkit::util
