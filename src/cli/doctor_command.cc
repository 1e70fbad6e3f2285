#include "cli/doctor_command.h"

#include "cli/cli11.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli/command_line.h"
#include "cli/output_options.h"
#include "cli/version.h"
#include "doctor/doctor_report.h"
#include "doctor/machine_view.h"

namespace covkit::cli {

namespace {

constexpr const char* kDoctorCommand = "covkit doctor";

constexpr const char* kDoctorDescription =
    "Says what covkit can do on this machine and how to enable the rest, one\n"
    "line per fact with the commands it serves:\n"
    "\n"
    "  compilers     each gcc, gcc-N, clang, clang-N and cc on PATH compiles a\n"
    "                one-line program with --coverage; the .gcno's version\n"
    "                word says which layout covkit will read (and whether\n"
    "                covkit live reads its programs' counters)\n"
    "  ptrace        covkit's own children (sample's ptrace breakpoint\n"
    "                handler) and processes it did not start (live, trace\n"
    "                attach, sample --pid): Yama's ptrace_scope, root and\n"
    "                CAP_SYS_PTRACE, seccomp, containers; a real\n"
    "                PTRACE_SEIZE of a child\n"
    "  perf events   kernel.perf_event_paranoid and the capabilities that\n"
    "                bypass it, software events (sample --mode pc --source\n"
    "                perf), a hardware PMU, and its branch records (Intel\n"
    "                LBR, AMD BRS or LbrExtV2, ARM BRBE) for --mode branch\n"
    "                --source perf; counters opened on covkit, never enabled\n"
    "  kernel gcov   the kernel's own coverage in debugfs\n"
    "  clock         the clock libcovkit-trace times calls with (the TSC,\n"
    "                or CLOCK_MONOTONIC in the vDSO or by a system call)\n"
    "  limits        pid_max, threads-max, open files, file size, locked\n"
    "                memory, perf's sample rate\n"
    "\n"
    "Each line starts with ok, limited (works in part), missing or info.\n";

constexpr const char* kDoctorFooter =
    "Exit status: 0 when the examination ran (whatever it found); 1 for a usage\n"
    "error or an output that cannot be written.\n"
    "\n"
    "Examples:\n"
    "  covkit doctor                    the findings, one line each\n"
    "  covkit doctor --json | jq '.findings[] | select(.status != \"ok\")'\n"
    "  covkit doctor -o machine.json    as JSON, into a file (for a bug report)\n"
    "\n"
    "Manual: docs/covkit-doctor.md (man covkit-doctor).";

}  // namespace

int run_doctor_command(int argc, char** argv) {
  CLI::App app{kDoctorDescription, kDoctorCommand};
  app.footer(kDoctorFooter);
  app.get_formatter()->column_width(24);
  OptionalOutput json;
  std::string root = "/", out;
  add_output_file_option(app, out, "the findings (FILE.json: as JSON)", "standard output");
  add_json_option(app, json, "the findings (area, status, what, detail, enables, remedy)");
  app.add_option("--root", root,
                 "Read /proc, /sys, /boot and the container markers below DIR (a copy of\n"
                 "another machine's, or a test's) instead of this machine's; ptrace, perf\n"
                 "counters and the clock are not probed then (compilers are still those on\n"
                 "PATH) [default: /]")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory.description(""));
  if (auto status = parse_command_line(app, argc, argv)) return *status;
  if (!json.file.empty()) {
    if (!out.empty() && out != json.file)
      return fail(kDoctorCommand, "", "--json " + json.file + " and -o " + out + " are two places for one output");
    out = json.file;
  }
  const bool as_json = json.asked || format_of(out, {{".json", "json"}}).has_value();
  return run_guarded(kDoctorCommand, [&]() -> int {
    const doctor::MachineView machine(root);
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    std::string scratch = (ec ? std::filesystem::path("/tmp") : base) / "covkit-doctor-XXXXXX";
    if (!::mkdtemp(scratch.data())) return fail(kDoctorCommand, scratch, "cannot create a scratch directory");
    const char* path = std::getenv("PATH");
    const doctor::Examination e = doctor::examine(machine, path ? path : "/usr/bin:/bin", scratch);
    std::filesystem::remove_all(scratch, ec);
    const std::string text = as_json ? doctor::render_json(e, kVersion) : doctor::render_text(e, kVersion);
    return write_output_text(kDoctorCommand, out, text) ? 0 : 1;
  });
}

}  // namespace covkit::cli
