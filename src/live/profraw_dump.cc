#include "live/profraw_dump.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "live/access_check.h"
#include "live/process_owner.h"
#include "live/profraw_capture.h"
#include "util/file_io.h"
#include "util/plural.h"
#include "util/printable.h"
#include "util/staged_tree.h"

namespace covkit::live {

namespace {

ProcessSummary clang_summary(const ClangCapture& c) {
  ProcessSummary p;
  p.pid = c.pid;
  p.modules = c.modules.size();
  for (const ClangModule& m : c.modules) {
    p.functions += m.image.records;
    p.counters += m.image.counters;
    p.module_notes.push_back(fmt::format("{}: clang raw profile version {}, {}, {}", m.path,
                                         m.sections.version_word & 0xff, util::count_of(m.image.records, "function"),
                                         util::count_of(m.image.counters, "counter")));
  }
  p.stopped = c.stopped;
  p.threads = c.threads;
  p.pause = c.pause;
  return p;
}

// Refusals of what the clang path does not do, before anything is touched.
Expected<void> clang_request_supported(pid_t pid, bool children) {
  if (children)
    return Error(fmt::format("process {} was built with clang's -fprofile-instr-generate: --children reads "
                             "libgcov's processes only",
                             pid));
  return {};
}

}  // namespace

std::string profraw_dump_name(const std::string& module_path, pid_t pid) {
  std::string base = module_path;
  if (base.ends_with(" (deleted)")) base.resize(base.size() - 10);
  if (auto slash = base.rfind('/'); slash != std::string::npos) base = base.substr(slash + 1);
  std::string plain;
  for (char c : base.substr(0, 200))
    plain += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '+') ? c : '_';
  if (plain.empty() || plain[0] == '.') plain.insert(0, "module");
  return fmt::format("{}.{}.profraw", plain, pid);
}

std::string unique_dump_name(const std::string& name, const std::vector<std::string>& taken) {
  const auto used = [&](const std::string& n) { return std::find(taken.begin(), taken.end(), n) != taken.end(); };
  if (!used(name)) return name;
  const std::string stem = name.substr(0, name.size() - std::string_view(".profraw").size());
  for (size_t k = 2;; ++k)
    if (std::string n = fmt::format("{}.{}.profraw", stem, k); !used(n)) return n;
}

bool clang_process(pid_t pid) {
  auto has = has_clang_profile(pid);
  // A failure (a refusal, an exit) is said by libgcov's path, which words
  // every one of them.
  return has && *has;
}

Expected<DumpResult> dump_clang(const DumpRequest& request) {
  const pid_t pid = request.pid;
  if (auto r = clang_request_supported(pid, request.children); !r) return r.error();
  if (request.directory.empty())
    return Error(fmt::format("process {} was built with clang's -fprofile-instr-generate, whose runtime rewrites its "
                             ".profraw when it exits: give -o DIR for the dump",
                             pid));
  note_process_data(pid);
  auto tree = util::StagedTree::begin(request.directory);
  if (!tree) return tree.error();
  DumpResult result;
  std::vector<std::string> names;
  auto place = [&](const std::vector<ClangModule>& modules) -> Expected<void> {
    names.clear();
    for (const ClangModule& m : modules) {
      names.push_back(unique_dump_name(profraw_dump_name(m.path, pid), names));
      if (tree->old_has(names.back()))
        return Error(fmt::format("{}/{} exists: a dump never replaces a file (use another -o DIR)", request.directory,
                                 names.back()));
      const auto& b = m.image.bytes;
      if (auto w = tree->write(names.back(), std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
          !w)
        return w.error();
    }
    return tree->commit();
  };
  ClangCaptureOptions o;
  o.stop = request.stop;
  o.reset = request.reset;
  // With --reset the files are in place before the counters are zeroed (in
  // the same stop): a dump that cannot be written resets nothing.
  if (request.reset) o.before_reset = place;
  auto capture = capture_clang(pid, o);
  if (!capture) {
    Error e = about_process(pid, capture.error());
    if (request.reset) e.message += " (nothing was reset)";
    return e;
  }
  if (!request.reset)
    if (auto r = place(capture->modules); !r) return r.error();
  result.processes.push_back(clang_summary(*capture));
  for (const std::string& n : names) result.files.push_back({request.directory + "/" + n, false, false});
  for (const std::string& w : capture->unverified) result.warnings.push_back(w);
  if (request.gentle) result.warnings.push_back("--gentle: a clang-instrumented process is stopped as a whole");
  return result;
}

namespace {

// The name the report reads a module by: a link, in the private directory,
// to covkit's own descriptor of the file the process maps. Never the
// module's path, which its owner may point at another file (a rebuilt
// binary, a link to a file only root may read) once the dump is done.
Expected<std::string> link_module(const ClangModule& m, const std::string& at) {
  if (!m.file || !m.file->valid()) return Error(fmt::format("{}: its file was not kept open", util::printable(m.path)));
  const std::string target = fmt::format("/proc/self/fd/{}", m.file->get());
  if (::symlink(target.c_str(), at.c_str()) != 0)
    return Error(fmt::format("{}: cannot create: {}", util::printable(at), std::strerror(errno)));
  return at;
}

}  // namespace

Expected<ClangReportInputs, SnapshotError> clang_report_inputs(pid_t pid, bool stop, const std::string& dir) {
  note_process_data(pid);
  ClangCaptureOptions o;
  o.stop = stop;
  auto capture = capture_clang(pid, o);
  if (!capture) return SnapshotError(about_process(pid, capture.error()), capture.error().why);
  ClangReportInputs in;
  auto fail = [&](const std::string& message) {
    remove_report_inputs(in);
    return SnapshotError(Error(message));
  };
  for (size_t i = 0; i < capture->modules.size(); ++i) {
    const ClangModule& m = capture->modules[i];
    // Numbered: two modules of one file name (lib/a.so, lib32/a.so) get
    // two profiles.
    const std::string name = fmt::format("{}/{}.{}", dir, i, profraw_dump_name(m.path, pid));
    const auto& b = m.image.bytes;
    if (auto w = util::write_file_atomic(name, std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
        !w)
      return fail(w.error().message);
    in.profiles.push_back(name);
    auto binary = link_module(m, name.substr(0, name.size() - std::string_view(".profraw").size()));
    if (!binary) return fail(binary.error().message);
    in.binaries.push_back(*binary);
    in.files.push_back(m.file);
  }
  in.warnings = capture->unverified;
  in.summary = clang_summary(*capture);
  return in;
}

void remove_report_inputs(const ClangReportInputs& in) {
  for (const std::string& p : in.profiles) ::unlink(p.c_str());
  for (const std::string& b : in.binaries) ::unlink(b.c_str());
}

Expected<ResetResult> reset_clang(const ResetRequest& request) {
  const pid_t pid = request.pid;
  if (auto r = clang_request_supported(pid, request.children); !r) return r.error();
  if (!request.sources.empty())
    return Error(fmt::format("process {} was built with clang's -fprofile-instr-generate: its counters are reset "
                             "all together (no SOURCE)",
                             pid));
  ClangCaptureOptions o;
  o.reset = true;
  auto capture = capture_clang(pid, o);
  if (!capture) return about_process(pid, capture.error());
  ResetResult result;
  result.processes.push_back(clang_summary(*capture));
  result.objects_reset = capture->modules.size();
  for (const std::string& w : capture->unverified) result.warnings.push_back(w);
  if (request.gentle) result.warnings.push_back("--gentle: a clang-instrumented process is stopped as a whole");
  return result;
}

}  // namespace covkit::live
