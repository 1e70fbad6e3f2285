#include "cli/gcov_options.h"

#include <getopt.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <libiberty.h>

#include "cli/version.h"

namespace covkit::cli {

namespace {

constexpr int kThreadsOption = 0x100;

const struct option kLongOptions[] = {
    {"help", no_argument, nullptr, 'h'},
    {"version", no_argument, nullptr, 'v'},
    {"verbose", no_argument, nullptr, 'w'},
    {"all-blocks", no_argument, nullptr, 'a'},
    {"branch-probabilities", no_argument, nullptr, 'b'},
    {"branch-counts", no_argument, nullptr, 'c'},
    {"json-format", no_argument, nullptr, 'j'},
    {"human-readable", no_argument, nullptr, 'H'},
    {"no-output", no_argument, nullptr, 'n'},
    {"long-file-names", no_argument, nullptr, 'l'},
    {"function-summaries", no_argument, nullptr, 'f'},
    {"demangled-names", no_argument, nullptr, 'm'},
    {"preserve-paths", no_argument, nullptr, 'p'},
    {"relative-only", no_argument, nullptr, 'r'},
    {"object-directory", required_argument, nullptr, 'o'},
    {"object-file", required_argument, nullptr, 'o'},
    {"source-prefix", required_argument, nullptr, 's'},
    {"stdout", no_argument, nullptr, 't'},
    {"unconditional-branches", no_argument, nullptr, 'u'},
    {"display-progress", no_argument, nullptr, 'd'},
    {"hash-filenames", no_argument, nullptr, 'x'},
    {"use-colors", no_argument, nullptr, 'k'},
    {"use-hotness-colors", no_argument, nullptr, 'q'},
    {"debug", no_argument, nullptr, 'D'},
    {"threads", required_argument, nullptr, kThreadsOption},
    {nullptr, 0, nullptr, 0},
};

// Tools that drive gcov (lcov's geninfo, gcovr) read the GCC version from the
// first line of `gcov -v`, so it keeps gcov's shape and names the newest
// format covkit emulates; covkit's own version follows.
void print_version() {
  std::printf("gcov (covkit %s) 12.2.0\n", kVersion);
  std::printf("covkit gcov reads the notes and data files of GCC 8 to 14 and writes what\n"
              "the matching gcov writes.\n"
              "This is free software. There is NO warranty; not even for MERCHANTABILITY or\n"
              "FITNESS FOR A PARTICULAR PURPOSE.\n\n");
}

// getopt's letters; kLongOptions names most of them.
constexpr const char* kGcovShortOptions = "abcdDfhHijklmno:pqrs:tuvwx";

constexpr const char* kGcovUsage =
    "Usage: covkit gcov [OPTION...] SOURCE|OBJ...\n"
    "\n"
    "Print code coverage information, exactly as GCC's gcov does, reading the\n"
    ".gcno and .gcda files of GCC 8 to 14 directly; clang's --coverage files\n"
    "exactly as llvm-cov gcov does.\n"
    "\n"
    "Options:\n"
    "  -a, --all-blocks                Show information for every basic block\n"
    "  -b, --branch-probabilities      Include branch probabilities in output\n"
    "  -c, --branch-counts             Output counts of branches taken\n"
    "                                    rather than percentages\n"
    "  -d, --display-progress          Display progress information\n"
    "  -D, --debug                     Display debugging dumps\n"
    "  -f, --function-summaries        Output summaries for each function\n"
    "  -h, --help                      Print this help, then exit\n"
    "  -j, --json-format               Output JSON intermediate format\n"
    "                                    into .gcov.json.gz file\n"
    "  -H, --human-readable            Output human readable numbers\n"
    "  -k, --use-colors                Emit colored output\n"
    "  -l, --long-file-names           Use long output file names for included\n"
    "                                    source files\n"
    "  -m, --demangled-names           Output demangled function names\n"
    "  -n, --no-output                 Do not create an output file\n"
    "  -o, --object-directory DIR|FILE Search for object files in DIR or called FILE\n"
    "      --object-file FILE          The same as -o\n"
    "  -p, --preserve-paths            Preserve all pathname components\n"
    "  -q, --use-hotness-colors        Emit perf-like colored output for hot lines\n"
    "  -r, --relative-only             Only show data for relative sources\n"
    "  -s, --source-prefix DIR         Source prefix to elide\n"
    "  -t, --stdout                    Output to stdout instead of a file\n"
    "  -u, --unconditional-branches    Show unconditional branch counts too\n"
    "  -v, --version                   Print version number, then exit\n"
    "  -w, --verbose                   Print verbose informations\n"
    "  -x, --hash-filenames            Hash long pathnames\n"
    "\n"
    "covkit additions:\n"
    "      --threads N                 Read and solve objects on N threads\n"
    "                                    (default: all cores; output is the same)\n"
    "  clang's files: -i writes llvm-cov gcov's intermediate text (ARG.gcov,\n"
    "                 one per argument, in the working directory); -j writes\n"
    "                 gcov's JSON, which llvm-cov cannot\n"
    "\n"
    "Obsolete options:\n"
    "  -i, --json-format               Replaced with -j, --json-format\n"
    "\n"
    "Arguments may be source, object, .gcno or .gcda names: the notes and data\n"
    "files are found by replacing the extension (or in the -o directory).\n"
    "Exit status: 0 on success; 1 notes file missing; 2 not a notes/data file;\n"
    "3 version problem; 4 corrupt file; 5 stamp mismatch; 6 cannot write output\n"
    "(clang's files: 0, 4 or 6).\n"
    "\n"
    "Examples:\n"
    "  covkit gcov -b main.c            main.c.gcov, with branch probabilities\n"
    "  covkit gcov -o build -t main.c   the objects are in build/; to stdout\n"
    "  covkit gcov -j build/*.gcda      gcov's JSON (.gcov.json.gz) per object\n"
    "\n"
    "Manual: docs/covkit-gcov.md (man covkit-gcov).\n";

}  // namespace

void print_gcov_usage(bool error) { std::fputs(kGcovUsage, error ? stderr : stdout); }

CommandSpec describe_gcov_command() {
  static constexpr GetoptValueName kValueNames[] = {{'o', "DIR|FILE"}, {'s', "DIR"}, {kThreadsOption, "N"}};
  CommandSpec spec = describe_getopt("gcov", "", kLongOptions, kGcovShortOptions, kGcovUsage, kValueNames);
  spec.arguments.push_back({"SOURCE|OBJ", ValueKind::kFile, true, {}});
  return spec;
}

ParseOutcome parse_gcov_options(int argc, char** argv, GcovOptions& o) {
  // gcov expands @response-file arguments first (libiberty's expandargv).
  expandargv(&argc, &argv);
  optind = 0;  // full re-initialisation of GNU getopt
  int opt;
  while ((opt = getopt_long(argc, argv, kGcovShortOptions, kLongOptions, nullptr)) != -1) {
    switch (opt) {
      case 'a': o.all_blocks = true; break;
      case 'b': o.branches = true; break;
      case 'c': o.counts = true; break;
      case 'd': o.display_progress = true; break;
      case 'D': o.debug = true; break;
      case 'f': o.function_summary = true; break;
      case 'h': print_gcov_usage(false); return ParseOutcome::kExitSuccess;
      case 'H': o.human = true; break;
      case 'i':
      case 'j':
        o.json = true;
        o.gcov_file = true;
        (opt == 'i' ? o.intermediate : o.json_letter) = true;
        break;
      case 'k': o.colors = true; break;
      case 'l': o.long_names = true; break;
      case 'm': o.demangle = true; break;
      case 'n':
        o.gcov_file = false;
        o.no_output = true;
        break;
      case 'o': o.object_directory = optarg; break;
      case 'p': o.preserve_paths = true; break;
      case 'q': o.hotness = true; break;
      case 'r': o.relative_only = true; break;
      case 's': o.source_prefix = optarg; break;
      case 't': o.use_stdout = true; break;
      case 'u': o.unconditional = true; break;
      case 'v': print_version(); return ParseOutcome::kExitSuccess;
      case 'w': o.verbose = true; break;
      case 'x': o.hash_names = true; break;
      case kThreadsOption: {
        char* end = nullptr;
        long n = std::strtol(optarg, &end, 10);
        if (!*optarg || *end || n < 1 || n > 1024) {
          std::fprintf(stderr, "covkit gcov: --threads needs a number from 1 to 1024, not '%s'\n", optarg);
          return ParseOutcome::kExitFailure;
        }
        o.threads = unsigned(n);
        break;
      }
      default: print_gcov_usage(true); return ParseOutcome::kExitFailure;
    }
  }
  for (int i = optind; i < argc; ++i) o.files.emplace_back(argv[i]);
  if (o.files.empty()) {
    print_gcov_usage(true);
    return ParseOutcome::kExitFailure;
  }
  return ParseOutcome::kRun;
}

}  // namespace covkit::cli
