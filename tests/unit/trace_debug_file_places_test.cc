// trace/debug_file_places: where a module's separate debug file is looked
// for. The .gnu_debuglink name comes from the module, which another user may
// have built: only a plain file name is joined to the module's directory.
#include "trace/debug_file_places.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace covkit::trace {
namespace trace_debug_file_places_test {

using Places = std::vector<std::string>;

TEST(DebugFilePlaces, BuildIdThenTheLinkBesideInDotDebugAndUnderUsrLibDebug) {
  const unsigned char id[] = {0xab, 0x01, 0xff, 0x10};
  EXPECT_EQ(debug_file_places("/home/u/bin/prog", id, "prog.debug"),
            (Places{"/usr/lib/debug/.build-id/ab/01ff10.debug", "/home/u/bin/prog.debug",
                    "/home/u/bin/.debug/prog.debug", "/usr/lib/debug/home/u/bin/prog.debug"}));
}

TEST(DebugFilePlaces, NoBuildIdOrAOneByteIdNamesNoBuildIdFile) {
  EXPECT_EQ(debug_file_places("/p/prog", {}, "prog.debug"),
            (Places{"/p/prog.debug", "/p/.debug/prog.debug", "/usr/lib/debug/p/prog.debug"}));
  const unsigned char one[] = {0x7f};
  EXPECT_EQ(debug_file_places("/p/prog", one, ""), Places{});
}

TEST(DebugFilePlaces, ALinkThatLeavesTheDirectoryGivesNoPlace) {
  const unsigned char id[] = {0x12, 0x34};
  const Places by_id_only{"/usr/lib/debug/.build-id/12/34.debug"};
  for (const char* hostile : {"../../root/secret.debug", "/etc/shadow", "sub/x.debug", "..", ".", "a/"})
    EXPECT_EQ(debug_file_places("/home/u/prog", id, hostile), by_id_only) << hostile;
  EXPECT_EQ(debug_file_places("/home/u/prog", id, std::string_view("x\0/../y", 7)), by_id_only);
}

TEST(DebugFilePlaces, PlainFileNames) {
  EXPECT_TRUE(is_plain_file_name("prog.debug"));
  EXPECT_TRUE(is_plain_file_name("..prog"));
  EXPECT_TRUE(is_plain_file_name("...debug"));
  EXPECT_FALSE(is_plain_file_name(""));
  EXPECT_FALSE(is_plain_file_name("."));
  EXPECT_FALSE(is_plain_file_name(".."));
  EXPECT_FALSE(is_plain_file_name("../x"));
  EXPECT_FALSE(is_plain_file_name("/x"));
}

TEST(DebugFilePlaces, ARelativeModuleHasNoPlaceUnderUsrLibDebug) {
  // It was "/usr/lib/debugprog.debug" once: the tree there mirrors
  // absolute directories only.
  EXPECT_EQ(debug_file_places("prog", {}, "prog.debug"), (Places{"prog.debug", ".debug/prog.debug"}));
  EXPECT_EQ(debug_file_places("bin/prog", {}, "prog.debug"), (Places{"bin/prog.debug", "bin/.debug/prog.debug"}));
}

}  // namespace trace_debug_file_places_test
}  // namespace covkit::trace
