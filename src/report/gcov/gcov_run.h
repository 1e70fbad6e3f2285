#pragma once
// `covkit gcov`'s work: gcov 12's run over the given objects, with its
// stdout, stderr, .gcov/.gcov.json.gz files and exit status.
#include <string>
#include <vector>

namespace covkit::report {

// gcov's options (letters in cli/gcov_options.h, which parses them).
struct GcovOptions {
  bool all_blocks = false;          // -a
  bool branches = false;            // -b
  bool counts = false;              // -c
  bool display_progress = false;    // -d
  bool debug = false;               // -D
  bool function_summary = false;    // -f
  bool human = false;               // -H
  bool json = false;                // -j (and obsolete -i)
  bool json_letter = false;         // -j itself
  bool intermediate = false;        // -i itself: for clang's files llvm-cov's intermediate text
  bool colors = false;              // -k
  bool long_names = false;          // -l
  bool demangle = false;            // -m
  bool gcov_file = true;            // cleared by -n, set again by -j
  bool no_output = false;           // -n itself, wherever it is (llvm-cov's options have no order)
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

// Runs gcov over options.files; returns the exit status gcov would (gcov 11
// files: 0, except for damaged files and lost output).
int run_gcov(const GcovOptions& options);

}  // namespace covkit::report
