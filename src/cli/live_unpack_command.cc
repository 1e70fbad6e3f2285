// `covkit live unpack`: a freestanding target's coverage stream (binary, or
// the hex lines a serial console carries) back into .gcda files.
#include "cli/cli11.h"
#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cli/command_line.h"
#include "cli/output_options.h"
#include "cli/live_command.h"
#include "format/gcov_hex_dump.h"
#include "format/gcov_stream_reader.h"
#include "model/stream_unpack.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/printable.h"

namespace covkit::cli {

namespace {

constexpr const char* kLiveUnpackCommand = "covkit live unpack";

constexpr const char* kLiveUnpackDescription =
    "Turns the coverage stream of a target without a file system back into\n"
    ".gcda files, byte for byte what libgcov would have written for the same\n"
    "runs.\n"
    "\n"
    "STREAM is what the firmware sent through its callback (GCC 12+'s\n"
    "-fprofile-info-section with __gcov_info_to_gcda; src/runtime/gcov_stream\n"
    "walks the section for you): the binary stream `gcov-tool merge-stream`\n"
    "reads (a \"gcfn\" header naming each .gcda, then its data), or a console log\n"
    "holding it as ':gcov:' hex lines (other lines, prefixes such as timestamps\n"
    "and CR/LF noise are ignored; a lost, repeated or garbled line is an error).\n"
    "'-' reads standard input.\n"
    "\n"
    "Each file goes to DIR/NAME, NAME being the path the object was compiled\n"
    "for, less --strip leading directories (as GCOV_PREFIX=DIR with\n"
    "GCOV_PREFIX_STRIP); a name with '..' or without .gcda is refused. Each dump\n"
    "(one walk over the objects; a name that comes again starts the next)\n"
    "counts as one run: several dumps, and .gcda files already in DIR, add up as\n"
    "libgcov adds runs (counters, runs and sum_max). Data of another build of an\n"
    "object (another stamp or checksum) is an error.\n"
    "\n"
    "All or nothing: the new DIR is built beside it and swapped in with one\n"
    "rename (DIR's other files stay); on any error nothing is written.\n";

constexpr const char* kLiveUnpackFooter =
    "Exit status: 0 on success, 1 on any error (one line on stderr naming the\n"
    "stream and the byte; for a hex dump also the line).\n"
    "\n"
    "Examples:\n"
    "  covkit live unpack uart.log -o cov/            cov/<absolute build path>/*.gcda\n"
    "  covkit live unpack --strip 3 dump.bin -o build/  /home/me/fw/build/x.gcda -> build/x.gcda\n"
    "  covkit report cov/ ~/fw/build/                  then report as usual (with the .gcno files)\n"
    "See docs/covkit-live.md, UNPACK for the stream and hex formats.";

std::string summary_line(const model::UnpackResult& result, const std::string& out) {
  size_t added = 0;
  for (const auto& f : result.files) added += f.added_to_existing;
  return fmt::format("{} .gcda file{} from {} dump{} written to {} ({} added to files already there)",
                     result.files.size(), result.files.size() == 1 ? "" : "s", result.dumps,
                     result.dumps == 1 ? "" : "s", util::printable(out), added);
}

int unpack(const std::string& stream_path, const std::string& out, const std::string& format_name,
           const model::UnpackOptions& options, bool quiet) {
  const std::string shown = stream_path == "-" ? "<stdin>" : stream_path;  // for messages
  auto in = util::read_input_file_or_stdin(stream_path);  // a file mapped (a 20 GB log costs no memory), or stdin
  if (!in) return fail(kLiveUnpackCommand, shown, in.error().message);
  if (stream_path != "-") util::note_data_file(stream_path, *in);  // the files are no more open than the log
  const bool binary =
      format_name == "binary" || (format_name == "auto" && format::looks_like_binary_stream(in->bytes()));
  std::optional<format::HexDump> hex;
  if (!binary) {
    auto decoded = format::decode_hex_dump(in->text());
    if (!decoded) return fail(kLiveUnpackCommand, shown, decoded.error());
    hex = std::move(*decoded);
  }
  // Errors of the stream are told in terms of the input the user has.
  auto placed = [&](const Error& e) { return hex ? hex->locate(e, in->text()) : e; };
  auto stream = format::read_gcov_stream(hex ? std::span<const uint8_t>(hex->bytes) : in->bytes());
  if (!stream) return fail(kLiveUnpackCommand, shown, placed(stream.error()));
  auto result = model::write_unpacked_stream(*stream, out, options);
  if (!result) {
    // Errors about an entry of the stream (a name, data that cannot be
    // added) have its offset: the stream is sound there, so "at byte", not
    // "corrupt at byte". Those about DIR name the file.
    const Error& e = result.error();
    if (!e.offset) return fail(kLiveUnpackCommand, "", e.message);
    const Error at = placed(e);
    return fail(kLiveUnpackCommand, shown, fmt::format("at byte {}: {}", *at.offset, at.message));
  }
  if (!quiet) std::printf("%s\n", summary_line(*result, out).c_str());
  return 0;
}

}  // namespace

int run_live_unpack(int argc, char** argv) {
  CLI::App app{kLiveUnpackDescription, kLiveUnpackCommand};
  app.footer(kLiveUnpackFooter);
  app.get_formatter()->column_width(30);
  std::string stream_path, out, format_name = "auto";
  model::UnpackOptions options;
  bool quiet = false;
  app.add_option("STREAM", stream_path, "The stream: binary, or a console log with ':gcov:' hex lines; '-' for stdin")
      ->required()
      ->type_name("STREAM");
  add_output_dir_option(app, out, "the .gcda files (DIR created if missing)")->required();
  app.add_option("--strip", options.strip,
                 "Leading directories dropped from each file name, as GCOV_PREFIX_STRIP [default: 0]")
      ->type_name("N")
      ->check(whole_number_in(0, 4096));
  app.add_option("--format", format_name,
                 "auto (binary when STREAM starts with a \"gcfn\" word, else hex), binary or hex [default: auto]")
      ->check(CLI::IsMember({"auto", "binary", "hex"}))
      ->type_name("FORMAT");
  app.add_flag("-q,--quiet", quiet, "No summary line on stdout");
  if (auto rc = parse_command_line(app, argc, argv)) return *rc;
  return run_guarded(kLiveUnpackCommand, [&] { return unpack(stream_path, out, format_name, options, quiet); });
}

}  // namespace covkit::cli
