#pragma once
// Where every command writes, one grammar (docs/command-line.md):
//  -o FILE, --output FILE  write here; '-' is standard output; the format
//                          follows FILE's extension where it is unambiguous
//                          (an explicit format option wins);
//  -o DIR                  for commands that write a directory ('-' refused:
//                          standard output holds no directory);
//  --json [FILE]           JSON output, in every command that has one: to
//                          FILE, else to -o's FILE, else standard output.
// An optional value that names a directory is an input, not an output
// (`covkit report --json build/`: the report of build/ as JSON on stdout).
#include "cli/cli11.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/atomic_output.h"

namespace covkit::cli {

// An output with an optional FILE (--json [FILE], report's --lcov [FILE]...):
// asked for or not, and where.
struct OptionalOutput {
  bool asked = false;
  std::string file;  // "" when given without FILE: -o's, else standard output
};

// -o/--output FILE: `what` says what goes there ("the report", "the graph"),
// `default_place` where it goes without -o ("standard output"), said last as
// CLI11 says every other default.
CLI::Option* add_output_file_option(CLI::App& app, std::string& path, std::string_view what,
                                    std::string_view default_place = "");
// -o/--output DIR.
CLI::Option* add_output_dir_option(CLI::App& app, std::string& dir, std::string_view what,
                                   std::string_view default_place = "");
// --json [FILE].
CLI::Option* add_json_option(CLI::App& app, OptionalOutput& json, std::string_view what);
// NAME [FILE], for the other formats of a command with several (report).
CLI::Option* add_optional_output(CLI::App& app, const std::string& name, OptionalOutput& out, std::string_view what,
                                 std::string_view value_name = "FILE");

// A letter an earlier covkit gave an option that now has none (one letter,
// one meaning: docs/command-line.md): still read, hidden from --help, with a
// warning naming the long option, so scripts keep working.
CLI::Option* add_deprecated_letter(CLI::App& app, const std::string& letter, std::string_view long_name,
                                   std::string& value);

// After parsing: an optional output whose value names a directory (or ends
// in '/') was an input; it goes to `inputs` and the output keeps no FILE.
void take_back_inputs(OptionalOutput& out, std::vector<std::string>& inputs);
// The same for a command with one input.
void take_back_input(OptionalOutput& out, std::string& input);

// The format an output's name asks for: its extension (lower case, with the
// dot) looked up in `by_extension`; nullopt when none matches.
std::optional<std::string> format_of(const std::string& path,
                                     const std::vector<std::pair<std::string_view, std::string_view>>& by_extension);

// Whether `path` means standard output ("" or "-").
inline bool is_stdout(const std::string& path) { return path.empty() || path == "-"; }

// Writes `text` to `path` (atomically: complete or untouched) or standard
// output; one line "COMMAND: FILE: cannot write: why" and false on failure.
bool write_output_text(std::string_view command, const std::string& path, std::string_view text);

// A text output written as it is made (trace replay, the dumps): to FILE,
// complete or untouched (a temporary name renamed by commit), or standard
// output as it goes.
class TextOutput {
 public:
  // nullopt after one line saying why FILE cannot be written.
  static std::optional<TextOutput> open(std::string_view command, const std::string& path);
  void write(std::string_view piece);
  // False after one line saying why.
  bool commit();

 private:
  TextOutput(std::string_view command, std::string path, std::optional<util::AtomicOutput> file)
      : command_(command), path_(std::move(path)), file_(std::move(file)) {}
  std::string_view command_;
  std::string path_;
  std::optional<util::AtomicOutput> file_;  // nullopt: standard output
};

}  // namespace covkit::cli
