// format/input_kind: what a path given to a command holds, from its names
// and first bytes, and the hint a command gives for the wrong kind.
#include "format/input_kind.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_support.h"

namespace covkit::format {
namespace input_kind_test {

using testing::TempDir;

std::string put(const TempDir& t, const std::string& rel, const std::string& text) {
  const std::string p = t / rel;
  std::filesystem::create_directories(std::filesystem::path(p).parent_path());
  EXPECT_TRUE(testing::write_text(p, text));
  return p;
}

TEST(InputKind, RecordingsByTheirMarkerOrFiles) {
  TempDir t;
  put(t, "tr/covkit-record", "covkit trace record\ncommand ./prog\n");
  put(t, "sr/covkit-record", "covkit sample record\ncommand ./prog\n");
  put(t, "bare-trace/123.meta", "covkit-trace 1\n");
  put(t, "bare-sample/recording.json", "{}");
  EXPECT_EQ(describe_input(t / "tr").kind, InputKind::trace_recording);
  EXPECT_EQ(describe_input(t / "sr").kind, InputKind::sample_recording);
  EXPECT_EQ(describe_input(t / "bare-trace").kind, InputKind::trace_recording);
  EXPECT_EQ(describe_input(t / "bare-sample").kind, InputKind::sample_recording);
  EXPECT_EQ(describe_input(t / "tr").reader, "covkit trace report");
}

TEST(InputKind, CoverageTreesAndFiles) {
  TempDir t;
  put(t, "build/sub/x.gcno", "oncg");
  put(t, "build/sub/x.gcda", "adcg");
  put(t, "snap/abs/x.gcda", "adcg");
  put(t, "site/.covkit-html", "");
  EXPECT_EQ(describe_input(t / "build").kind, InputKind::build_tree);
  EXPECT_EQ(describe_input(t / "snap").kind, InputKind::data_tree);
  EXPECT_EQ(describe_input(t / "site").kind, InputKind::html_site);
  EXPECT_EQ(describe_input(t / "build/sub/x.gcno").kind, InputKind::notes_file);
  EXPECT_EQ(describe_input(t / "build/sub/x.gcda").kind, InputKind::data_file);
  EXPECT_EQ(describe_input(put(t, "cov.info", "TN:\nSF:/a.c\nend_of_record\n")).kind, InputKind::lcov_tracefile);
  EXPECT_EQ(describe_input(put(t, "cov.json", "{\"format\": \"covkit-coverage\"}")).kind, InputKind::covkit_json);
  EXPECT_EQ(describe_input(put(t, "gmon.out", std::string("gmon\1\0\0\0", 8))).kind, InputKind::gmon_out);
  EXPECT_EQ(describe_input(put(t, "perf.data", "PERFILE2xxxxxxxx")).kind, InputKind::perf_data);
  EXPECT_EQ(describe_input(put(t, "a.out", "\x7f" "ELF\2\1\1")).kind, InputKind::elf);
  EXPECT_EQ(describe_input(put(t, "notes.txt", "hello\n")).kind, InputKind::other_file);
  EXPECT_EQ(describe_input(t / "missing").kind, InputKind::missing);
}

TEST(InputKind, HintsNameTheKindAndItsReader) {
  TempDir t;
  put(t, "tr/covkit-record", "covkit trace record\n");
  put(t, "build/x.gcno", "oncg");
  EXPECT_EQ(wrong_kind_hint(t / "tr", InputKind::sample_recording),
            " (it is a covkit trace recording (covkit trace record): covkit trace report " + t / "tr" + ")");
  // The kinds one reader takes alike give no hint: covkit report's trees
  // and files, covkit sample's recordings and perf.data.
  EXPECT_EQ(wrong_kind_hint(t / "build", InputKind::data_tree), "");
  EXPECT_EQ(wrong_kind_hint(t / "tr", InputKind::trace_recording), "");
  EXPECT_EQ(wrong_kind_hint(put(t, "perf.data", "PERFILE2"), InputKind::sample_recording), "");
  // Nothing known: no hint.
  EXPECT_EQ(wrong_kind_hint(put(t, "x.txt", "hello"), InputKind::trace_recording), "");
  EXPECT_EQ(wrong_kind_hint(t / "nothing", InputKind::trace_recording), "");
}

}  // namespace input_kind_test
}  // namespace covkit::format
