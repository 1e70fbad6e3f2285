#pragma once
// Options of `covkit gcov`: gcov 12's, with the same letters, long names and
// getopt semantics (bundling, permutation, abbreviations, @response files).
#include <optional>
#include <string>
#include <vector>

namespace covkit::cli {

struct GcovOptions {
  bool all_blocks = false;          // -a
  bool branches = false;            // -b
  bool counts = false;              // -c
  bool display_progress = false;    // -d
  bool debug = false;               // -D
  bool function_summary = false;    // -f
  bool human = false;               // -H
  bool json = false;                // -j (and obsolete -i)
  bool colors = false;              // -k
  bool long_names = false;          // -l
  bool demangle = false;            // -m
  bool gcov_file = true;            // cleared by -n, set again by -j
  std::string object_directory;     // -o
  bool preserve_paths = false;      // -p
  bool hotness = false;             // -q
  bool relative_only = false;       // -r
  std::string source_prefix;        // -s
  bool use_stdout = false;          // -t
  bool unconditional = false;       // -u
  bool verbose = false;             // -w
  bool hash_names = false;          // -x
  unsigned threads = 0;             // --threads (0: all cores)
  std::vector<std::string> files;
};

enum class ParseOutcome { kRun, kExitSuccess, kExitFailure };

// Parses argv (argv[0] is the command name). Prints help/version/errors itself.
ParseOutcome parse_gcov_options(int argc, char** argv, GcovOptions& out);

void print_gcov_usage(bool error);

}  // namespace covkit::cli
