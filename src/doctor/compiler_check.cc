#include "doctor/compiler_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <regex>
#include <set>
#include <span>
#include <sstream>

#include <unistd.h>

#include "doctor/machine_view.h"
#include "format/gcov_version.h"
#include "util/file_io.h"
#include "util/printable.h"
#include "util/run_process.h"

namespace covkit::doctor {

namespace fs = std::filesystem;

namespace {

// More would be a PATH full of cross compilers; each costs a compilation.
constexpr size_t kMaxCompilers = 16;

struct FoundCompiler {
  std::string name;                  // "gcc-12"
  std::string path;
  std::vector<std::string> aliases;  // other names of the same file: "gcc", "cc"
};

// A name that says which compiler it is: gcc-12 before gcc before cc.
int name_rank(const std::string& name) {
  const bool versioned = name.find('-') != std::string::npos;
  return name.starts_with("cc") ? 2 : versioned ? 0 : 1;
}

// gcc, gcc-12, clang, clang-14, cc: each compiler once (by the file its
// names resolve to), named by its most telling name, the others aliases.
std::vector<FoundCompiler> compilers_on(const std::string& path) {
  static const std::regex kName(R"((gcc|clang|cc)(-[0-9]+(\.[0-9]+)*)?)");
  std::vector<FoundCompiler> found;
  std::vector<std::string> real_files;
  std::set<std::string> seen_names;
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (std::regex_match(it->path().filename().string(), kName)) names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      const std::string file = dir + "/" + name;
      // An earlier PATH directory's name wins, as the shell's lookup does.
      if (::access(file.c_str(), X_OK) != 0 || !seen_names.insert(name).second) continue;
      const std::string real = fs::canonical(file, ec).string();
      if (ec) continue;
      const auto same = std::find(real_files.begin(), real_files.end(), real);
      if (same == real_files.end()) {
        real_files.push_back(real);
        found.push_back({name, file, {}});
        continue;
      }
      FoundCompiler& c = found[size_t(same - real_files.begin())];
      if (name_rank(name) < name_rank(c.name)) {
        c.aliases.push_back(c.name);
        c.name = name;
        c.path = file;
      } else {
        c.aliases.push_back(name);
      }
    }
  }
  std::sort(found.begin(), found.end(), [](const FoundCompiler& a, const FoundCompiler& b) { return a.name < b.name; });
  if (found.size() > kMaxCompilers) found.resize(kMaxCompilers);
  return found;
}

// "12.2.0" from "gcc-12 (Debian 12.2.0-14) 12.2.0" or "Debian clang version
// 14.0.6": the last word that is a dotted number.
std::string version_of(const std::string& first_line) {
  static const std::regex kVersion(R"(\b([0-9]+\.[0-9]+(\.[0-9]+)?)\b)");
  std::string last;
  for (std::sregex_iterator it(first_line.begin(), first_line.end(), kVersion), end; it != end; ++it)
    last = (*it)[1].str();
  return last;
}

std::string first_line_of(const std::string& text) { return trimmed(std::string_view(text).substr(0, text.find('\n'))); }

// The version word of a .gcno: after the magic "gcno" in either byte order.
std::optional<uint32_t> notes_version(const std::string& file) {
  auto data = util::read_file(file);
  if (!data || data->bytes().size() < 8) return std::nullopt;
  const std::span<const uint8_t> bytes = data->bytes();
  auto word = [&](size_t at, bool swap) {
    uint32_t w = 0;
    for (int i = 0; i < 4; ++i) {
      const uint32_t b = bytes[at + i];
      w |= swap ? b << (8 * (3 - i)) : b << (8 * i);
    }
    return w;
  };
  constexpr uint32_t kNotesMagic = 0x67636e6f;  // "gcno"
  for (bool swap : {false, true})
    if (word(0, swap) == kNotesMagic) return word(4, swap);
  return std::nullopt;
}

Finding probe(const FoundCompiler& c, const std::string& scratch) {
  Finding f;
  f.area = "compilers";
  const util::ProcessResult version = util::run_process({c.path, "--version"});
  const std::string banner = first_line_of(version.out);
  const bool clang = banner.find("clang") != std::string::npos;
  f.what = fmt::format("{} {}{}", c.name, version_of(banner).empty() ? "(version unknown)" : version_of(banner),
                       c.aliases.empty() ? "" : fmt::format(" (also {})", fmt::join(c.aliases, ", ")));
  const std::string dir = scratch + "/" + c.name;
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string source = dir + "/probe.c";
  (void)util::write_file_atomic(source, "int main(void) { return 0; }\n");
  const util::ProcessResult compiled =
      util::run_process({c.path, "-c", "--coverage", "-o", dir + "/probe.o", source});
  const std::optional<uint32_t> word = notes_version(dir + "/probe.gcno");
  if (compiled.spawn_errno != 0 || compiled.exit_status != 0 || !word) {
    f.verdict = Verdict::kMissing;
    const std::string why = first_line_of(compiled.err);
    f.detail = fmt::format("cannot compile with --coverage{}",
                           why.empty() ? "" : ": " + util::printable(why.substr(0, 200)));
    f.enables = "coverage with this compiler";
    f.remedy = clang ? "install the compiler's runtime (libclang-rt-dev)" : "install the compiler's libgcc-N-dev";
    return f;
  }
  const std::optional<format::GcovVersion> v = format::GcovVersion::decode(*word);
  const std::string chars = format::version_chars(*word);
  if (!v || !v->supported()) {
    f.verdict = Verdict::kMissing;
    f.detail = fmt::format("writes coverage data version '{}': {}", chars, format::unsupported_version_message(*word));
    f.enables = "covkit gcov, report, merge of its --coverage files";
    f.remedy = "a covkit that knows this GCC, or a GCC from 8 to 14";
    return f;
  }
  f.verdict = Verdict::kOk;
  if (v->is_gcc48()) {
    f.detail = fmt::format("writes coverage data version '{}' (GCC 4.8's layout{}); covkit reads it as "
                           "llvm-cov gcov does",
                           chars, clang ? ", as clang does" : "");
    f.enables = "covkit gcov, report, merge";
    return f;
  }
  const bool live = v->major == 11 || v->major == 12;
  f.detail = fmt::format("writes coverage data version '{}' (GCC {}.{}'s layout); covkit reads it", chars, v->major,
                         v->minor);
  f.enables = live ? "covkit gcov, report, merge, live" : "covkit gcov, report, merge";
  if (!live) {
    f.verdict = Verdict::kLimited;
    f.detail += fmt::format("; covkit live reads the counters of GCC 11 and 12 programs only, not GCC {}'s",
                            v->major);
    f.remedy = "for covkit live, build with gcc-11 or gcc-12";
  }
  return f;
}

}  // namespace

std::vector<Finding> check_compilers(const std::string& path, const std::string& scratch) {
  std::vector<Finding> findings;
  for (const FoundCompiler& c : compilers_on(path)) findings.push_back(probe(c, scratch));
  if (findings.empty())
    findings.push_back({"compilers", Verdict::kMissing, "no C compiler",
                        "no gcc, gcc-N, clang, clang-N or cc on PATH", "building programs with --coverage",
                        "apt-get install gcc (or g++, clang)"});
  return findings;
}

}  // namespace covkit::doctor
