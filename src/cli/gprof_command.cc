// `covkit gprof`: gprof's command line (getopt, options anywhere, PROG then
// gmon files), the symbols, the gmon files, the analysis, then gprof's text
// or a drawn call graph. docs/covkit-gprof.md is its manual.
#include "cli/gprof_command.h"

#include <getopt.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cli/command_line.h"
#include "cli/output_options.h"
#include "format/gmon_reader.h"
#include "format/input_kind.h"
#include "gprof/gprof_graph.h"
#include "gprof/gprof_profile.h"
#include "gprof/gprof_line_symbols.h"
#include "gprof/gprof_selection.h"
#include "gprof/gprof_sum.h"
#include "gprof/gprof_symbols.h"
#include "gprof/gprof_text.h"
#include "trace/graph_output.h"
#include "util/fast_allocator.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/terminal_text.h"

namespace covkit::cli {

namespace {

constexpr const char* kGprofCommand = "covkit gprof";

constexpr const char* kHelp =
    "Usage: covkit gprof [OPTIONS] PROG [GMON...]\n"
    "       covkit gprof [OPTIONS] GMON PROG\n"
    "\n"
    "gprof's report of a program built with `gcc -pg`: the flat profile (time\n"
    "in each function from the program's PC samples, calls from its call-graph\n"
    "arcs), the call graph (each function with its callers and callees, time\n"
    "propagated from callees to callers, cycles of mutual recursion collapsed)\n"
    "and the index by function name, byte for byte what `gprof -b` prints.\n"
    "\n"
    "PROG is the profiled program [default: a.out]; GMON the gmon.out files it\n"
    "wrote [default: gmon.out]. Several files are added up, as gprof does. A\n"
    "first argument that is a gmon file (it starts with \"gmon\") and a second\n"
    "that is not are taken the other way round.\n"
    "\n"
    "Options:\n"
    "  -b, --brief                    Print no explanations (covkit never prints\n"
    "                                 gprof's; accepted so gprof command lines work)\n"
    "  -p, --flat-profile             Print the flat profile (alone, unless -q is\n"
    "                                 given too)\n"
    "  -pSYM, --flat-profile=SYM      ...of SYM only: only SYM's samples count\n"
    "  -P, --no-flat-profile          Print everything but the flat profile\n"
    "  -PSYM, --no-flat-profile=SYM   Print the flat profile without SYM (its\n"
    "                                 samples leave the total)\n"
    "  -q, --graph                    Print the call graph and its index (alone,\n"
    "                                 unless -p is given too)\n"
    "  -qSYM, --graph=SYM             ...of SYM and the functions it calls only\n"
    "  -qFROM/TO                      ...counting only the calls from FROM to TO\n"
    "  -Q, --no-graph                 Print everything but the call graph\n"
    "  -QSYM, --no-graph=SYM          Print the call graph without SYM's entry\n"
    "  -QFROM/TO                      ...without the calls from FROM to TO\n"
    "  -e SYM                         Like -QSYM (the old form)\n"
    "  -E SYM                         Like -e, and the call graph's times leave\n"
    "                                 SYM out (as -N)\n"
    "  -f SYM                         Like -qSYM (the old form)\n"
    "  -F SYM                         Like -f, and the call graph's times count\n"
    "                                 only SYM and what it calls (as -n)\n"
    "  -n SYM, --time=SYM             The call graph's times count only SYM and\n"
    "                                 what it calls\n"
    "  -N SYM, --no-time=SYM          The call graph's times leave SYM out\n"
    "  -k FROM/TO                     Leave out the calls from FROM to TO\n"
    "  -s, --sum                      Write the gmon files added up to gmon.sum\n"
    "                                 (as gprof -s writes it) and print nothing\n"
    "  -T, --traditional              BSD layout: the call graph first, then the\n"
    "                                 flat profile (times per call in ms) and the\n"
    "                                 index in fixed columns; names not demangled\n"
    "  -w, --width WIDTH              The index's line width [default: 80]\n"
    "  -z, --display-unused-functions List functions never called and never\n"
    "                                 sampled too\n"
    "  --format FORMAT                text (gprof's report) [default], dot, svg,\n"
    "                                 png, callgrind or json (the call graph drawn\n"
    "                                 as `covkit trace graph` draws it, a Callgrind\n"
    "                                 profile for KCachegrind, or its nodes and\n"
    "                                 edges)\n"
    "  --json [FILE]                  The call graph as JSON (as --format json),\n"
    "                                 to FILE (NAME.json) or -o's\n"
    "  -o, --output FILE              Write to FILE instead of standard output\n"
    "                                 ('-'); its format from the name unless\n"
    "                                 --format: .dot .gv .svg .png .callgrind\n"
    "                                 callgrind.out.* .json, else gprof's text\n"
    "  --threshold P                  dot/svg/png: hide functions and calls below P\n"
    "                                 percent of the total time [default: 0.5]\n"
    "  -h, --help                     This help\n"
    "\n"
    "SYM is a function (its name in the symbol table: mangled for C++), a FILE\n"
    "(a name with a dot: the functions whose source file has that last\n"
    "component), FILE:FUNCTION, FILE:LINE or a LINE (where functions start).\n"
    "As with gprof, -p, -P, -q and -Q take SYM only attached (-pmain, not\n"
    "-p main); several options add up.\n"
    "\n"
    "Line-level profiles (-l), annotated source (-A) and gprof's other options\n"
    "are not supported. Basic-block count records (tag 2) are listed after the\n"
    "index when a file has them (gprof reads them only with -l).\n"
    "\n"
    "Exit status: 0 on success, 1 on any error (one line on stderr naming the\n"
    "file).\n"
    "\n"
    "Examples:\n"
    "  gcc -pg -O2 -o prog prog.c && ./prog && covkit gprof -b prog\n"
    "  covkit gprof -b -p prog gmon.out run2/gmon.out     two runs added up\n"
    "  covkit gprof -s prog gmon.1 gmon.2                 ...into gmon.sum\n"
    "  covkit gprof prog --format svg -o calls.svg\n"
    "\n"
    "Manual: docs/covkit-gprof.md (man covkit-gprof).\n";

enum : int { kOptFormat = 1000, kOptThreshold, kOptJson };

// gprof's options covkit does not implement, for a message that says so.
const char* unsupported_gprof_option(int option) {
  switch (option) {
    case 'a': return "no static functions";
    case 'A': return "annotated source";
    case 'B': return "call graph only, BSD-style";
    case 'c': return "static call graph";
    case 'C': return "execution counts";
    case 'd': return "debugging";
    case 'D': return "ignore non-functions";
    case 'i': return "file information";
    case 'I': return "source directories";
    case 'J': return "no annotated source";
    case 'l': return "line-by-line profile";
    case 'L': return "print paths";
    case 'm': return "minimum count";
    case 'O': return "file format";
    case 'r': return "function ordering";
    case 'R': return "file ordering";
    case 'S': return "external symbol table";
    case 't': return "table length";
    case 'x': return "all lines";
    case 'y': return "annotation files";
    case 'Z': return "no execution counts";
    default: return nullptr;
  }
}

// "did you mean '--width'?" for a mistyped long option ("--widht=3"), or "":
// gprof's own getopt parser has no CLI11 to suggest one.
std::string long_option_hint(const option* longs, std::string_view given) {
  if (!given.starts_with("--")) return "";
  std::vector<std::string> names;
  for (const option* o = longs; o->name; ++o) names.push_back(std::string("--") + o->name);
  const std::string best = closest(names, given.substr(0, given.find('=')));
  return best.empty() ? "" : "did you mean '" + best + "'?";
}

enum Style : unsigned { kFlat = 1, kGraph = 2 };

// gprof's option letters and long names (those covkit has).
constexpr const char* kGprofShortOptions = ":bp::P::q::Q::e:E:f:F:k:n:N:sTw:zo:h";
const option kGprofLongOptions[] = {
    {"brief", no_argument, nullptr, 'b'},
    {"flat-profile", optional_argument, nullptr, 'p'},
    {"no-flat-profile", optional_argument, nullptr, 'P'},
    {"graph", optional_argument, nullptr, 'q'},
    {"no-graph", optional_argument, nullptr, 'Q'},
    {"time", required_argument, nullptr, 'n'},
    {"sum", no_argument, nullptr, 's'},
    {"traditional", no_argument, nullptr, 'T'},
    {"width", required_argument, nullptr, 'w'},
    {"no-time", required_argument, nullptr, 'N'},
    {"display-unused-functions", no_argument, nullptr, 'z'},
    {"format", required_argument, nullptr, kOptFormat},
    {"output", required_argument, nullptr, 'o'},
    {"threshold", required_argument, nullptr, kOptThreshold},
    {"json", optional_argument, nullptr, kOptJson},
    {"help", no_argument, nullptr, 'h'},
    {nullptr, 0, nullptr, 0},
};

// --format's words.
constexpr std::array<std::string_view, 6> kGprofFormats{"text", "dot", "svg", "png", "callgrind", "json"};

// The command line, as gprof's getopt reads it.
struct GprofCommandLine {
  unsigned style = 0, user_specified = 0;  // kFlat | kGraph asked for; parts named by -p/-P/-q/-Q
  trace::GprofTextOptions text;
  std::string format, out;  // format "": from -o's name, else text
  bool json = false;
  trace::GraphOptions graph_options;
  std::vector<trace::GprofSymbolSpec> specs;
  bool sum = false;
  std::vector<std::string> args;  // PROG and GMON files, in either order
};

// Reads argv into `cl`; an exit status when the command ends here (--help,
// a bad option), nothing when it goes on.
std::optional<int> parse_gprof_command_line(int argc, char** argv, GprofCommandLine& cl) {
  auto add_spec = [&](trace::GprofTable table) { cl.specs.push_back({optarg, table}); };
  using T = trace::GprofTable;
  optind = 0;  // reset: getopt may have run before in this process (tests)
  opterr = 0;
  int ch;
  while ((ch = getopt_long(argc, argv, kGprofShortOptions, kGprofLongOptions, nullptr)) != -1) {
    switch (ch) {
      case 'b':
        break;
      // As gprof: a symbol only attached (-pSYM, --flat-profile=SYM); -PSYM
      // and -QSYM still ask for their part of the report.
      case 'p':
        if (optarg) add_spec(T::kInclFlat);
        cl.style |= kFlat;
        cl.user_specified |= kFlat;
        break;
      case 'P':
        if (optarg) {
          add_spec(T::kExclFlat);
          cl.style |= kFlat;
        } else {
          cl.style &= ~kFlat;
        }
        cl.user_specified |= kFlat;
        break;
      case 'q':
        if (optarg) add_spec(std::strchr(optarg, '/') ? T::kInclArcs : T::kInclGraph);
        cl.style |= kGraph;
        cl.user_specified |= kGraph;
        break;
      case 'Q':
        if (optarg) {
          add_spec(std::strchr(optarg, '/') ? T::kExclArcs : T::kExclGraph);
          cl.style |= kGraph;
        } else {
          cl.style &= ~kGraph;
        }
        cl.user_specified |= kGraph;
        break;
      case 'E':
        add_spec(T::kExclTime);
        add_spec(T::kExclGraph);
        break;
      case 'e':
        add_spec(T::kExclGraph);
        break;
      case 'F':
        add_spec(T::kInclTime);
        add_spec(T::kInclGraph);
        break;
      case 'f':
        add_spec(T::kInclGraph);
        break;
      case 'k':
        add_spec(T::kExclArcs);
        break;
      case 'n':
        add_spec(T::kInclTime);
        break;
      case 'N':
        add_spec(T::kExclTime);
        break;
      case 's':
        cl.sum = true;
        break;
      case 'T':
        cl.text.bsd = true;
        break;
      case 'w':
        // gprof's atoi: what is not a number is 0, and below 1 is 1. Past
        // 10000 the index's padding alone would take gigabytes.
        cl.text.width = std::max(1, std::atoi(optarg));
        if (cl.text.width > 10000)
          return fail(kGprofCommand, "", std::string("-w must be at most 10000, not '") + optarg + "'");
        break;
      case 'z':
        cl.text.ignore_zeros = false;
        break;
      case 'o':
        cl.out = optarg;
        break;
      case kOptFormat:
        cl.format = optarg;
        if (std::find(kGprofFormats.begin(), kGprofFormats.end(), cl.format) == kGprofFormats.end())
          return fail(kGprofCommand, "", "--format must be text, dot, svg, png, callgrind or json, not '" + cl.format + "'");
        break;
      case kOptJson:  // --json [FILE]: the call graph as JSON (covkit trace graph's)
        cl.json = true;
        if (optarg) {
          cl.out = optarg;
        } else if (optind < argc && std::string_view(argv[optind]).ends_with(".json")) {
          // `--json FILE` as in every command (getopt takes only
          // --json=FILE): a NAME.json after it is the output, never a gmon.
          cl.out = argv[optind++];
        }
        break;
      case kOptThreshold: {
        char* end = nullptr;
        cl.graph_options.threshold_percent = std::strtod(optarg, &end);
        if (!end || *end || cl.graph_options.threshold_percent < 0 || cl.graph_options.threshold_percent > 100)
          return fail(kGprofCommand, "", std::string("--threshold must be a percentage, not '") + optarg + "'");
        break;
      }
      case 'h':
        std::fputs(kHelp, stdout);
        return 0;
      case ':':
        return fail(kGprofCommand, "", std::string("option '") + argv[optind - 1] + "' needs a value (see --help)");
      default: {
        if (const char* what = unsupported_gprof_option(optopt))
          return fail(kGprofCommand, "", std::string("gprof's option '-") + char(optopt) + "' (" + what + ") is not supported");
        std::string what = optopt ? std::string("-") + char(optopt) : std::string(argv[optind - 1]);
        const std::string hint = long_option_hint(kGprofLongOptions, what);
        return fail(kGprofCommand, "",
                    "unknown option '" + what + "'" + (hint.empty() ? " (see covkit gprof --help)" : "; " + hint));
      }
    }
  }
  cl.args.assign(argv + optind, argv + argc);
  // The format: --json, --format, else -o's name (docs/command-line.md).
  if (cl.json) {
    if (!cl.format.empty() && cl.format != "json")
      return fail(kGprofCommand, "", "--json and --format " + cl.format + " disagree");
    cl.format = "json";
  }
  if (cl.format.empty()) {
    const std::string name = std::filesystem::path(cl.out).filename().string();
    cl.format = name.starts_with("callgrind.out") ? "callgrind"
                                                  : format_of(cl.out, {{".dot", "dot"}, {".gv", "dot"}, {".svg", "svg"},
                                                                       {".png", "png"}, {".callgrind", "callgrind"},
                                                                       {".json", "json"}})
                                                        .value_or("text");
  }
  // gprof -s tallies on line symbols; a report from them is -l's.
  if (cl.sum && (cl.style || cl.user_specified || !cl.specs.empty() || cl.format != "text" || !cl.out.empty()))
    return fail(kGprofCommand, "",
                "-s writes gmon.sum and prints nothing; with a report, a symbol, --format or -o it would need gprof's "
                "line-level profile (-l), which is not supported");
  if ((cl.format == "svg" || cl.format == "png") && cl.out.empty())
    return fail(kGprofCommand, "", "--format " + cl.format + " needs -o FILE");
  return std::nullopt;
}

// PROG [default a.out] and the gmon files [default gmon.out];
// `covkit gprof gmon.out PROG` is recognised by the magic.
void split_program_and_gmons(std::vector<std::string> args, std::string& prog, std::vector<std::string>& gmons) {
  prog = "a.out";
  if (!args.empty()) {
    auto is_gmon = [](const std::string& path) {
      auto data = util::read_input_file(path);
      return data && format::has_gmon_magic(data->bytes());
    };
    if (args.size() >= 2 && is_gmon(args[0]) && !is_gmon(args[1])) std::swap(args[0], args[1]);
    prog = args[0];
    gmons.assign(args.begin() + 1, args.end());
  }
  if (gmons.empty()) gmons.push_back("gmon.out");
}

// -s: the files added up into gmon.sum, as gprof writes it.
int write_gmon_sum(const std::string& prog, const trace::GprofSymbolTable& symbols, const trace::GprofProfile& profile,
                   const std::vector<trace::GprofInput>& inputs) {
  if (!profile.block_counts.empty())
    return fail(kGprofCommand, inputs.front().path, "-s: basic-block count records are not supported");
  auto lines = trace::read_gprof_line_symbols(prog, symbols);
  if (!lines) return fail(kGprofCommand, prog, lines.error());
  const std::string bytes = trace::gprof_sum_file(profile, *lines, inputs);
  if (auto w = util::write_file_atomic("gmon.sum", bytes); !w) return fail(kGprofCommand, "gmon.sum", w.error().message);
  return 0;
}

// gprof's text (which sorts `profile`), or the call graph drawn; an exit
// status on failure.
std::variant<std::string, int> render_report(const GprofCommandLine& cl, const std::string& prog,
                                             const std::string& first_gmon, const trace::GprofSymbolTable& symbols,
                                             trace::GprofProfile& profile) {
  unsigned style = cl.style;
  if (style == 0) {
    if (profile.has_histogram) style |= kFlat;
    if (profile.has_call_graph) style |= kGraph;
    style &= ~cl.user_specified;
  }
  if ((style & kFlat) && !profile.has_histogram)
    return fail(kGprofCommand, first_gmon, "no histogram records: no flat profile (try -q)");
  if ((style & kGraph) && !profile.has_call_graph)
    return fail(kGprofCommand, first_gmon, "no call-graph records: no call graph (try -p)");
  if (cl.format == "text") {
    trace::GprofTextOptions text = cl.text;
    text.flat = style & kFlat;
    text.graph = style & kGraph;
    return trace::gprof_text(profile, text) + trace::gprof_block_counts_text(profile, symbols);
  }
  trace::GraphOutputOptions draw;
  draw.format = cl.format;
  draw.graph = cl.graph_options;
  draw.callgrind.command = prog;
  draw.title = [&](const trace::CallGraph&) { return prog + ": gprof call graph"; };
  auto drawn = trace::draw_call_profile(trace::gprof_call_profile(profile), draw);
  if (!drawn) return fail(kGprofCommand, drawn.error().rendering ? cl.out : prog, drawn.error());
  return std::move(*drawn);
}

// To standard output, or to -o FILE (written whole or not at all).
int write_report(const std::string& out, const std::string& content) {
  if (out.empty() || out == "-") {
    // A symbol of the program's names nothing a terminal would act on
    // (util/terminal_text.h); to a pipe, gprof's bytes.
    if (util::write_for_terminal(stdout, content) != content.size() || std::fflush(stdout) != 0)
      return fail(kGprofCommand, "<stdout>", std::strerror(errno));
    return 0;
  }
  if (auto w = util::write_file_atomic(out, content); !w) return fail(kGprofCommand, out, w.error().message);
  return 0;
}

}  // namespace

CommandSpec describe_gprof_command() {
  static constexpr GetoptValueName kValueNames[] = {
      {'p', "SYM"}, {'P', "SYM"},     {'q', "SYM"},         {'Q', "SYM"},   {'e', "SYM"},       {'E', "SYM"},
      {'f', "SYM"}, {'F', "SYM"},     {'n', "SYM"},         {'N', "SYM"},   {'k', "FROM/TO"},   {'w', "WIDTH"},
      {'o', "FILE"}, {kOptFormat, "FORMAT"}, {kOptThreshold, "P"}, {kOptJson, "FILE"}};
  CommandSpec spec = describe_getopt("gprof", "", kGprofLongOptions, kGprofShortOptions, kHelp, kValueNames);
  for (OptionSpec& o : spec.options)
    if (o.value_name == "FORMAT") {
      o.choices.assign(kGprofFormats.begin(), kGprofFormats.end());
      o.value = ValueKind::kChoice;
    }
  spec.arguments.push_back({"PROG", ValueKind::kFile, false, {}});
  spec.arguments.push_back({"GMON", ValueKind::kFile, true, {}});
  return spec;
}

int run_gprof_command(int argc, char** argv) {
  GprofCommandLine cl;
  if (auto done = parse_gprof_command_line(argc, argv, cl)) return *done;
  return run_guarded(kGprofCommand, [&]() -> int {
    std::string prog;
    std::vector<std::string> gmons;
    split_program_and_gmons(cl.args, prog, gmons);
    std::vector<std::string> inputs_read = gmons;
    inputs_read.push_back(prog);
    util::use_fast_allocator_for(inputs_read);  // large inputs: mimalloc
    auto symbols = trace::read_gprof_symbols(prog);
    if (!symbols) return fail(kGprofCommand, prog, symbols.error());
    std::vector<trace::GprofInput> inputs;
    for (const std::string& g : gmons) {
      auto data = format::read_gmon(g);
      if (!data) {
        Error e = data.error();
        e.message += format::wrong_kind_hint(g, format::InputKind::gmon_out);
        return fail(kGprofCommand, g, e);
      }
      inputs.push_back({g, std::move(*data)});
    }
    auto profile = trace::build_gprof_profile(*symbols, inputs, trace::GprofSelection(*symbols, cl.specs));
    if (!profile) return fail(kGprofCommand, profile.error().path, profile.error().describe());
    // gprof prints infinite times (and a unit read past its table) for a
    // rate of 0; covkit prints the same numbers in seconds and says why.
    if (!cl.sum && !profile->zero_rate_file.empty())
      fail(kGprofCommand, profile->zero_rate_file,
           "warning: its histogram's profiling rate is 0 samples per second: times are unknown (inf or nan "
           "seconds in the text, 0 in drawn graphs); the percentages of time and the calls are right",
           0);
    if (cl.sum) return write_gmon_sum(prog, *symbols, *profile, inputs);
    auto report = render_report(cl, prog, gmons.front(), *symbols, *profile);
    if (int* status = std::get_if<int>(&report)) return *status;
    return write_report(cl.out, std::get<std::string>(report));
  });
}

}  // namespace covkit::cli
