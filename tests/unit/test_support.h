#pragma once
// Shared helpers of the unit tests: temporary directories, shell commands,
// whole-file reads, and a small C program compiled with gcc-11/gcc-12
// --coverage at test time (once per test process) whose counts are known.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace covkit::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/covkit-unit-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) std::abort();
    path_ = buf.data();
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

inline bool write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  return bool(f);
}

inline bool write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return bool(f);
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Runs `cmd` with /bin/sh; returns the exit status (or -1), output in `out`.
inline int run_command(const std::string& cmd, std::string* out = nullptr) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
  int st = ::pclose(p);
  if (out) *out = std::move(text);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

inline bool have_program(const std::string& name) {
  return run_command("command -v " + name + " >/dev/null") == 0;
}

// Runs `body` with the working directory set to `dir`, then restores it
// (also when `body` throws, so one failing test cannot move the others).
template <typename F>
void in_directory(const std::string& dir, F&& body) {
  struct Restore {
    char old[4096];
    bool ok = false;
    ~Restore() {
      if (ok && ::chdir(old) != 0) std::abort();
    }
  } restore;
  restore.ok = ::getcwd(restore.old, sizeof restore.old) != nullptr;
  ASSERT_TRUE(restore.ok);
  ASSERT_EQ(::chdir(dir.c_str()), 0) << dir;
  body();
}

// The program whose coverage files the reader tests parse. Counts by
// construction: sq() is called 10 times, the one-line nested loop runs its
// body 3*4 = 12 times, never() is never called (GCC 12 writes its counters in
// the all-zero form), and main runs once.
inline constexpr const char* kKnownProgram =
    "static int never(int x) { return x + 1; }\n"                              // 1
    "static int sq(int x) { return x * x; }\n"                                 // 2
    "\n"                                                                       // 3
    "int main(int argc, char **argv)\n"                                        // 4
    "{\n"                                                                      // 5
    "  (void)argv;\n"                                                          // 6
    "  int s = 0;\n"                                                           // 7
    "  for (int i = 0; i < 10; i++)\n"                                         // 8
    "    s += sq(i);\n"                                                        // 9
    "  for (int i = 0; i < 3; i++) for (int j = 0; j < 4; j++) s++;\n"         // 10
    "  if (argc > 5)\n"                                                        // 11
    "    s += never(s);\n"                                                     // 12
    "  return s == 0;\n"                                                       // 13
    "}\n";                                                                     // 14

struct CompiledProgram {
  std::string dir;
  std::string gcno_path, gcda_path, source_path;
  std::vector<uint8_t> gcno, gcda;
};

// Compiles kKnownProgram with `compiler` (gcc-11, gcc-12) --coverage in a
// directory that lives as long as the test process, runs it once and
// returns its notes and data files; nullopt (with a reason) if impossible.
inline std::optional<CompiledProgram> compile_known_program(const std::string& compiler, std::string* why) {
  static std::map<std::string, std::optional<CompiledProgram>> cache;
  static std::map<std::string, std::string> reasons;
  static std::vector<std::unique_ptr<TempDir>> dirs;
  if (auto it = cache.find(compiler); it != cache.end()) {
    if (why) *why = reasons[compiler];
    return it->second;
  }
  std::optional<CompiledProgram> result;
  std::string reason;
  if (!have_program(compiler)) {
    reason = compiler + " is not installed";
  } else {
    dirs.push_back(std::make_unique<TempDir>());
    const std::string& d = dirs.back()->path();
    write_text(d + "/p.c", kKnownProgram);
    std::string out;
    int rc = run_command("cd '" + d + "' && " + compiler + " --coverage -O0 -o prog p.c && ./prog", &out);
    if (rc != 0) {
      reason = compiler + " could not build and run the program: " + out;
    } else {
      CompiledProgram p;
      p.dir = d;
      // Since GCC 11 the files of `-o p p.c` are named after the output: prog-p.gcno.
      p.gcno_path = d + "/prog-p.gcno";
      p.gcda_path = d + "/prog-p.gcda";
      p.source_path = d + "/p.c";
      p.gcno = read_bytes(p.gcno_path);
      p.gcda = read_bytes(p.gcda_path);
      if (p.gcno.empty() || p.gcda.empty())
        reason = "no prog-p.gcno/prog-p.gcda after building with " + compiler;
      else
        result = std::move(p);
    }
  }
  cache[compiler] = result;
  reasons[compiler] = reason;
  if (why) *why = reason;
  return result;
}

// Byte-swaps every 4-byte word of a coverage image whose strings are all
// word-aligned (GCC < 12 layout, or GCC 12 data files, which hold no strings).
inline std::vector<uint8_t> swap_words(std::vector<uint8_t> bytes) {
  for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
    std::swap(bytes[i], bytes[i + 3]);
    std::swap(bytes[i + 1], bytes[i + 2]);
  }
  return bytes;
}

}  // namespace covkit::testing

// Skips the test when the program cannot be compiled with `compiler`.
#define COVKIT_REQUIRE_PROGRAM(var, compiler)                                   \
  std::string var##_why;                                                        \
  auto var##_opt = ::covkit::testing::compile_known_program(compiler, &var##_why); \
  if (!var##_opt) GTEST_SKIP() << var##_why;                                    \
  const ::covkit::testing::CompiledProgram& var = *var##_opt
