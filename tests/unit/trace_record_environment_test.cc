// What `covkit trace record` puts into the traced program's environment
// (trace/record_environment): the runtime's settings replace old ones, and
// the patch-later switch is given only with a patch list.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/trace/trace_contract.h"
#include "trace/record_environment.h"

namespace trace_record_environment_test {

using covkit::trace::RecordSettings;
using covkit::trace::traced_environment;

bool has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

size_t count_named(const std::vector<std::string>& env, const std::string& name) {
  return size_t(std::count_if(env.begin(), env.end(), [&](const std::string& e) { return e.rfind(name + "=", 0) == 0; }));
}

TEST(RecordEnvironment, PatchLaterOnlyWithAPatchList) {
  RecordSettings s;
  s.dir = "/t";
  s.runtime = "/lib/libcovkit-trace.so";
  s.patch_later = true;
  auto env = traced_environment({"HOME=/root"}, s);
  EXPECT_EQ(count_named(env, CKT_ENV_PATCH_LATER), 0u);  // no --patch: nothing to prepare
  s.patch_file = "/t/covkit-patch";
  env = traced_environment({"HOME=/root"}, s);
  EXPECT_TRUE(has(env, std::string(CKT_ENV_PATCH_LATER) + "=1"));
  EXPECT_TRUE(has(env, std::string(CKT_ENV_PATCH) + "=/t/covkit-patch"));
  EXPECT_TRUE(has(env, "HOME=/root"));
}

TEST(RecordEnvironment, OldSettingsAreReplaced) {
  RecordSettings s;
  s.dir = "/t";
  s.runtime = "/lib/libcovkit-trace.so";
  s.signal = 12;
  auto env = traced_environment({std::string(CKT_ENV_PATCH_LATER) + "=1", std::string(CKT_ENV_START) + "=off",
                                 std::string(CKT_ENV_DIR) + "=/old", "LD_PRELOAD=/x.so", "PATH=/bin"},
                                s);
  EXPECT_EQ(count_named(env, CKT_ENV_PATCH_LATER), 0u);
  EXPECT_EQ(count_named(env, CKT_ENV_START), 0u);
  EXPECT_TRUE(has(env, std::string(CKT_ENV_DIR) + "=/t"));
  EXPECT_EQ(count_named(env, CKT_ENV_DIR), 1u);
  EXPECT_TRUE(has(env, std::string(CKT_ENV_SIGNAL) + "=12"));
  EXPECT_TRUE(has(env, "LD_PRELOAD=/lib/libcovkit-trace.so:/x.so"));
  EXPECT_TRUE(has(env, "PATH=/bin"));
}

// --clock tsc|mono replaces the environment's COVKIT_TRACE_CLOCK; without
// it (auto) a clock the user set in the environment stays.
TEST(RecordEnvironment, ClockFromTheOptionOrKeptFromTheEnvironment) {
  RecordSettings s;
  s.dir = "/t";
  s.runtime = "/lib/libcovkit-trace.so";
  const std::string mono = std::string(CKT_ENV_CLOCK) + "=mono", tsc = std::string(CKT_ENV_CLOCK) + "=tsc";
  auto env = traced_environment({mono, "PATH=/bin"}, s);
  EXPECT_TRUE(has(env, mono));
  EXPECT_EQ(count_named(env, CKT_ENV_CLOCK), 1u);
  s.clock = "tsc";
  env = traced_environment({mono, "PATH=/bin"}, s);
  EXPECT_TRUE(has(env, tsc));
  EXPECT_EQ(count_named(env, CKT_ENV_CLOCK), 1u);
  env = traced_environment({"PATH=/bin"}, s);
  EXPECT_TRUE(has(env, tsc));
}

}  // namespace
