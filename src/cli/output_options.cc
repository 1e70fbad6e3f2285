#include "cli/output_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "cli/command_line.h"
#include "util/file_io.h"
#include "util/printable.h"
#include "util/terminal_text.h"

namespace covkit::cli {

namespace {

namespace fs = std::filesystem;

bool names_directory(const std::string& path) {
  std::error_code ec;
  return !path.empty() && (path.back() == '/' || fs::is_directory(path, ec));
}

}  // namespace

namespace {

std::string default_said(std::string_view place) {
  return place.empty() ? "" : fmt::format(" [default: {}]", place);
}

}  // namespace

CLI::Option* add_output_file_option(CLI::App& app, std::string& path, std::string_view what,
                                    std::string_view default_place) {
  return app
      .add_option("-o,--output", path,
                  fmt::format("Write {} to FILE ('-': standard output){}", what, default_said(default_place)))
      ->type_name("FILE")
      ->check(non_empty_path());
}

CLI::Option* add_output_dir_option(CLI::App& app, std::string& dir, std::string_view what,
                                   std::string_view default_place) {
  const std::string holds(what);
  return app.add_option("-o,--output", dir, fmt::format("Write {} into DIR{}", what, default_said(default_place)))
      ->type_name("DIR")
      ->check(non_empty_path())
      ->check(CLI::Validator(
          [holds](std::string& d) -> std::string {
            return d == "-" ? fmt::format("{} is a directory, which standard output ('-') cannot hold", holds) : "";
          },
          ""));
}

CLI::Option* add_optional_output(CLI::App& app, const std::string& name, OptionalOutput& out, std::string_view what,
                                 std::string_view value_name) {
  // (CLI11 gives "" as no value: parse_command_line refuses an empty FILE,
  // an unset $OUT in a script, before CLI11 sees it.)
  return app
      .add_option_function<std::vector<std::string>>(
          name,
          [&out](const std::vector<std::string>& v) {
            out.asked = true;
            if (!v.empty()) out.file = v.back();
          },
          std::string(what))
      ->expected(0, 1)
      ->allow_extra_args(false)
      ->type_name(fmt::format("[{}]", value_name));
}

CLI::Option* add_json_option(CLI::App& app, OptionalOutput& json, std::string_view what) {
  return add_optional_output(app, "--json", json,
                             fmt::format("Write {} as JSON, to FILE or -o's (default: standard output)", what));
}

CLI::Option* add_deprecated_letter(CLI::App& app, const std::string& letter, std::string_view long_name,
                                   std::string& value) {
  const CLI::App* owner = &app;
  return app
      .add_option_function<std::string>(
          letter,
          [owner, letter, long_name = std::string(long_name), &value](const std::string& v) {
            value = v;
            std::fprintf(stderr, "%s: warning: %s is deprecated (a letter means one thing in every command): use %s\n",
                         owner->get_name().c_str(), letter.c_str(), long_name.c_str());
          },
          "")
      ->type_name("NAME")
      ->group("");
}

void take_back_inputs(OptionalOutput& out, std::vector<std::string>& inputs) {
  if (!names_directory(out.file)) return;
  inputs.insert(inputs.begin(), out.file);
  out.file.clear();
}

void take_back_input(OptionalOutput& out, std::string& input) {
  if (!names_directory(out.file)) return;
  input = out.file;
  out.file.clear();
}

std::optional<std::string> format_of(const std::string& path,
                                     const std::vector<std::pair<std::string_view, std::string_view>>& by_extension) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (const auto& [e, format] : by_extension)
    if (ext == e) return std::string(format);
  return std::nullopt;
}

bool write_output_text(std::string_view command, const std::string& path, std::string_view text) {
  auto written = util::write_file_or_stdout(path.empty() ? "-" : path, text);
  if (written) return true;
  if (is_stdout(path)) fail(command, "<stdout>", written.error().message);
  else fail(command, util::printable(path), fmt::format("cannot write: {}", written.error().message));
  return false;
}

std::optional<TextOutput> TextOutput::open(std::string_view command, const std::string& path) {
  if (is_stdout(path)) return TextOutput(command, path, std::nullopt);
  auto file = util::AtomicOutput::open(path);
  if (!file) {
    fail(command, util::printable(path), file.error());
    return std::nullopt;
  }
  return TextOutput(command, path, std::move(*file));
}

void TextOutput::write(std::string_view piece) {
  if (file_) file_->write(piece);
  else util::write_for_terminal(stdout, piece);  // names cannot act on a terminal
}

bool TextOutput::commit() {
  if (!file_) {
    if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
    const int e = errno;
    std::clearerr(stdout);  // said here, once (not again by checked_stdout)
    fail(command_, "<stdout>", e ? std::strerror(e) : "write failed");
    return false;
  }
  if (auto committed = file_->commit(); !committed) {
    fail(command_, util::printable(path_), committed.error());
    return false;
  }
  return true;
}

}  // namespace covkit::cli
