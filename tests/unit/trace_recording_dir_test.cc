// trace/recording_dir: the directory `covkit trace record` writes into.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.h"
#include "trace/recording_dir.h"

namespace covkit {
namespace trace_recording_dir_test {

using testing::TempDir;
namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(RecordingDir, NamesCovkitWrites) {
  for (const char* name : {"123.meta", "123.4.meta", "123-45.ckt", "123.4-45.ckt", "123-45.6.ckt", "covkit-record"})
    EXPECT_TRUE(trace::written_by_covkit(name)) << name;
  for (const char* name : {"notes.txt", "a.meta", "123.ckt", "123-x.ckt", "123.meta.bak", "covkit-record2"})
    EXPECT_FALSE(trace::written_by_covkit(name)) << name;
}

TEST(RecordingDir, CreatesMarksAndLocks) {
  TempDir dir;
  const std::string path = dir / "a/trace";
  auto rec = trace::prepare_recording_dir(path, "prog x");
  ASSERT_TRUE(rec) << rec.error().describe();
  EXPECT_EQ(rec->path(), path);
  EXPECT_TRUE(fs::exists(path + "/covkit-record"));
  // While it is held, a second recording is refused.
  auto second = trace::prepare_recording_dir(path, "prog y");
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("right now"), std::string::npos);
}

TEST(RecordingDir, AnEarlierRecordingMovesAside) {
  TempDir dir;
  const std::string path = dir / "trace";
  {
    auto first = trace::prepare_recording_dir(path, "one");
    ASSERT_TRUE(first);
    ASSERT_TRUE(testing::write_text(path + "/7.meta", "covkit-trace 1\n"));
  }
  auto again = trace::prepare_recording_dir(path + "/", "two");
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(again->moved_to(), path + ".old");
  EXPECT_TRUE(fs::exists(path + ".old/7.meta"));
  EXPECT_FALSE(fs::exists(path + "/7.meta"));
}

// Issue 35: an empty recording never replaces a good one. The recording
// DIR.old held waits as DIR.older while the new one runs; an empty one
// puts both back, a good one lets it go.
TEST(RecordingDir, AnEmptyRecordingPutsTheEarlierOnesBack) {
  TempDir dir;
  const std::string path = dir / "trace";
  for (const char* image : {"1", "2"}) {
    auto rec = trace::prepare_recording_dir(path, "run");
    ASSERT_TRUE(rec) << rec.error().describe();
    ASSERT_TRUE(testing::write_text(path + "/" + image + ".meta", "covkit-trace 1\n"));
    ASSERT_TRUE(trace::keep_recording(path));
  }
  ASSERT_TRUE(fs::exists(path + "/2.meta") && fs::exists(path + ".old/1.meta"));
  {
    auto empty = trace::prepare_recording_dir(path, "nothing traced");
    ASSERT_TRUE(empty) << empty.error().describe();
    EXPECT_TRUE(fs::exists(path + ".older/1.meta"));
    ASSERT_TRUE(trace::discard_recording(empty->path(), empty->moved_to()));
  }
  EXPECT_TRUE(fs::exists(path + "/2.meta"));
  EXPECT_TRUE(fs::exists(path + ".old/1.meta"));
  EXPECT_FALSE(fs::exists(path + ".older"));
  // A good one: the second is DIR.old now, the first gone.
  {
    auto good = trace::prepare_recording_dir(path, "traced");
    ASSERT_TRUE(good);
    ASSERT_TRUE(testing::write_text(path + "/3.meta", "covkit-trace 1\n"));
    ASSERT_TRUE(trace::keep_recording(good->path()));
  }
  EXPECT_TRUE(fs::exists(path + "/3.meta"));
  EXPECT_TRUE(fs::exists(path + ".old/2.meta"));
  EXPECT_FALSE(fs::exists(path + ".older"));
  // An empty first recording leaves nothing behind.
  const std::string fresh = dir / "fresh";
  {
    auto empty = trace::prepare_recording_dir(fresh, "nothing");
    ASSERT_TRUE(empty);
    ASSERT_TRUE(trace::discard_recording(empty->path(), empty->moved_to()));
  }
  EXPECT_FALSE(fs::exists(fresh));
}

// A file the recorder did not write makes the directory no empty recording
// to remove: left as it is, and said.
TEST(RecordingDir, DiscardLeavesForeignFiles) {
  TempDir dir;
  const std::string path = dir / "trace";
  auto rec = trace::prepare_recording_dir(path, "run");
  ASSERT_TRUE(rec);
  ASSERT_TRUE(testing::write_text(path + "/notes.txt", "mine\n"));
  auto discarded = trace::discard_recording(rec->path(), rec->moved_to());
  ASSERT_FALSE(discarded);
  EXPECT_NE(discarded.error().message.find("notes.txt"), std::string::npos);
  EXPECT_TRUE(fs::exists(path + "/notes.txt"));
}

TEST(RecordingDir, ForeignFilesAreRefusedAndKept) {
  TempDir dir;
  const std::string path = dir / "mine";
  fs::create_directories(path);
  ASSERT_TRUE(testing::write_text(path + "/1.meta", "x"));
  auto rec = trace::prepare_recording_dir(path, "prog");
  ASSERT_FALSE(rec);
  EXPECT_NE(rec.error().message.find("not a recording"), std::string::npos);
  EXPECT_EQ(slurp(path + "/1.meta"), "x");
  ASSERT_TRUE(testing::write_text(dir / "file", "x"));
  EXPECT_FALSE(trace::prepare_recording_dir(dir / "file", "prog"));
}

}  // namespace
}  // namespace covkit
