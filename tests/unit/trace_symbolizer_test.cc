// The symbolizer on this test binary itself: the modules of the running
// process, as the runtime would describe them (dl_iterate_phdr), and
// functions whose names and lines are known here.
#include <gtest/gtest.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <string>

#include "format/trace_reader.h"
#include "trace/duration.h"
#include "trace/program_info.h"
#include "trace/symbolizer.h"
#include "test_support.h"

__attribute__((noinline)) static int symbolizer_probe_static(int x) { return x * 3 + 1; }
static const int kProbeStaticLine = __LINE__ - 1;

namespace probe_ns {
__attribute__((noinline)) double probe_member(double d) { return d * 2.5; }
const int kProbeMemberLine = __LINE__ - 1;
}  // namespace probe_ns

extern "C" __attribute__((noinline)) int symbolizer_probe_c(void) { return 7; }
static const int kProbeCLine = __LINE__ - 1;

namespace covkit::trace {
namespace trace_symbolizer_test {

std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

int add_module(dl_phdr_info* info, size_t, void* arg) {
  auto* p = static_cast<format::TraceProcess*>(arg);
  format::TraceModule m;
  m.base = info->dlpi_addr;
  m.path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : p->exe;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
      m.segments.push_back({info->dlpi_addr + ph.p_vaddr, info->dlpi_addr + ph.p_vaddr + ph.p_memsz});
  }
  p->modules.push_back(std::move(m));
  return 0;
}

format::TraceProcess this_process() {
  format::TraceProcess p;
  p.pid = uint32_t(::getpid());
  p.exe = self_exe();
  dl_iterate_phdr(add_module, &p);
  return p;
}

template <typename F>
uint64_t address_of(F* f) {
  return reinterpret_cast<uint64_t>(reinterpret_cast<void*>(f));
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(SymbolizerTest, NamesAndLinesOfFunctionsInThisBinary) {
  format::TraceProcess p = this_process();
  Symbolizer symbols;
  volatile int keep = symbolizer_probe_static(1) + symbolizer_probe_c();
  (void)keep;

  const SymbolInfo& s = symbols.lookup(p, address_of(&symbolizer_probe_static), 0);
  EXPECT_TRUE(s.known);
  EXPECT_EQ(s.name, "symbolizer_probe_static(int)");
  EXPECT_EQ(s.mangled, "_ZL23symbolizer_probe_statici");
  EXPECT_EQ(s.module, p.exe);
  EXPECT_TRUE(ends_with(s.file, "trace_symbolizer_test.cc")) << s.file;
  EXPECT_EQ(s.line, uint32_t(kProbeStaticLine));

  const SymbolInfo& m = symbols.lookup(p, address_of(&probe_ns::probe_member), 0);
  EXPECT_EQ(m.name, "probe_ns::probe_member(double)");
  EXPECT_EQ(m.line, uint32_t(probe_ns::kProbeMemberLine));

  const SymbolInfo& c = symbols.lookup(p, address_of(&symbolizer_probe_c), 0);
  EXPECT_EQ(c.name, "symbolizer_probe_c");
  EXPECT_EQ(c.line, uint32_t(kProbeCLine));

  // Cached: the same object comes back.
  EXPECT_EQ(&symbols.lookup(p, address_of(&symbolizer_probe_static), 0), &s);
}

TEST(SymbolizerTest, SharedLibraryFunctionsByTheirDynamicSymbols) {
  format::TraceProcess p = this_process();
  Symbolizer symbols;
  const SymbolInfo& s = symbols.lookup(p, address_of(&::getppid), 0);
  EXPECT_TRUE(s.known);
  EXPECT_NE(s.name.find("getppid"), std::string::npos) << s.name;
  EXPECT_NE(s.module.find("libc"), std::string::npos) << s.module;
}

TEST(SymbolizerTest, UnknownAddressesAreNamedAfterThemselves) {
  format::TraceProcess p = this_process();
  Symbolizer symbols;
  const SymbolInfo& outside = symbols.lookup(p, 0x10, 0);
  EXPECT_FALSE(outside.known);
  EXPECT_EQ(outside.name, "0x10 (unknown module)");

  format::TraceProcess gone;
  gone.modules.push_back({0x7000000, 0, "/nonexistent/libgone.so", {{0x7001000, 0x7002000}}, ""});
  const SymbolInfo& g = symbols.lookup(gone, 0x7001234, 0);
  EXPECT_FALSE(g.known);
  EXPECT_EQ(g.name, "0x7001234 (libgone.so)");
  EXPECT_EQ(g.module, "/nonexistent/libgone.so");

  // A module path naming a FIFO must not block.
  covkit::testing::TempDir dir;
  std::string fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  format::TraceProcess weird;
  weird.modules.push_back({0, 0, fifo, {{0x1000, 0x2000}}, ""});
  EXPECT_FALSE(symbols.lookup(weird, 0x1500, 0).known);
}

TEST(RecordSupportTest, Durations) {
  EXPECT_EQ(parse_duration_ns("500ns"), 500u);
  EXPECT_EQ(parse_duration_ns("500"), 500u);
  EXPECT_EQ(parse_duration_ns("10us"), 10000u);
  EXPECT_EQ(parse_duration_ns("2ms"), 2000000u);
  EXPECT_EQ(parse_duration_ns("1.5s"), 1500000000u);
  EXPECT_EQ(parse_duration_ns("0.5us"), 500u);
  EXPECT_FALSE(parse_duration_ns(""));
  EXPECT_FALSE(parse_duration_ns("ms"));
  EXPECT_FALSE(parse_duration_ns("10 ms"));
  EXPECT_FALSE(parse_duration_ns("10min"));
  EXPECT_FALSE(parse_duration_ns("-5"));
  EXPECT_FALSE(parse_duration_ns("1.2.3us"));
  EXPECT_FALSE(parse_duration_ns("99999999999999999999s"));
}

TEST(RecordSupportTest, InstrumentedProgramsAreRecognized) {
  ProgramInfo self = inspect_program(self_exe());
  EXPECT_TRUE(self.elf);
  EXPECT_TRUE(self.dynamic);
  EXPECT_FALSE(self.references_hooks);
  EXPECT_FALSE(inspect_program("/nonexistent").elf);
  auto sh = find_program("sh");
  ASSERT_TRUE(sh);
  EXPECT_FALSE(find_program("covkit-no-such-program-anywhere"));
  if (!covkit::testing::have_program("gcc-12")) GTEST_SKIP() << "gcc-12 is not installed";
  covkit::testing::TempDir dir;
  ASSERT_TRUE(covkit::testing::write_text(dir / "p.c", "int f(int x) { return x + 1; }\nint main(void) { return f(0) - 1; }\n"));
  std::string out;
  ASSERT_EQ(covkit::testing::run_command("cd '" + dir.path() + "' && gcc-12 -finstrument-functions -o p p.c", &out), 0) << out;
  ProgramInfo p = inspect_program(dir / "p");
  EXPECT_TRUE(p.references_hooks);
  EXPECT_FALSE(p.defines_hooks);
  EXPECT_FALSE(p.references_pg_hooks);
  // -pg calls mcount, -pg -mfentry __fentry__ (both glibc's: not defined in the program).
  for (const char* flags : {"-pg", "-pg -mfentry"}) {
    ASSERT_EQ(covkit::testing::run_command("cd '" + dir.path() + "' && gcc-12 " + flags + " -o pg p.c", &out), 0) << out;
    ProgramInfo pg = inspect_program(dir / "pg");
    EXPECT_FALSE(pg.references_hooks) << flags;
    EXPECT_TRUE(pg.references_pg_hooks) << flags;
    EXPECT_FALSE(pg.defines_pg_hooks) << flags;
  }
  EXPECT_FALSE(self.references_pg_hooks);
}

}  // namespace
}  // namespace covkit::trace
