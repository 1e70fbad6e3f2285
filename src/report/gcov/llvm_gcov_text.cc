#include "report/gcov/llvm_gcov_text.h"

#include <fmt/format.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "model/llvm_gcov.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/md5.h"

namespace covkit::report {

namespace fs = std::filesystem;

namespace {

// printf's "%.2f" of a/b*100, as llvm-cov prints it (0 of 0 is "-nan").
std::string percent(uint64_t a, uint64_t b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", double(a) * 100 / double(b));
  return buf;
}

// gcov's -p mangling as llvm-cov does it: '/' becomes '#', "." goes, ".." is '^'.
std::string mangle(const std::string& name, bool preserve_paths) {
  if (!preserve_paths) {
    const size_t slash = name.rfind('/');
    return slash == std::string::npos ? name : name.substr(slash + 1);
  }
  std::string out;
  size_t start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] != '/') continue;
    const std::string_view part(name.data() + start, i - start);
    if (part == ".") {
    } else if (part == "..") {
      out += "^#";
    } else {
      out += part;
      out += '#';
    }
    start = i + 1;
  }
  out.append(name, start, std::string::npos);
  return out;
}

std::string coverage_path(const GcovOptions& o, const std::string& filename, const std::string& main_name) {
  if (o.no_output) return filename;  // -n: never written
  std::string path;
  if (o.long_names && filename != main_name) path = mangle(main_name, o.preserve_paths) + "##";
  path += mangle(filename, o.preserve_paths);
  if (o.hash_names) path += "##" + util::md5_hex(filename);
  return path + ".gcov";
}

std::string branch_info(const GcovOptions& o, uint64_t count, uint64_t total) {
  if (!total) return "never executed";
  if (o.counts) return fmt::format("taken {}", count);
  // Nearest whole percent, 0 and 100 only when exact.
  uint32_t pct;
  if (!count) {
    pct = 0;
  } else if (count == total) {
    pct = 100;
  } else {
    pct = uint8_t((count * 100 + total / 2) / total);
    if (pct == 0) pct = 1;
    if (pct == 100) pct = 99;
  }
  return fmt::format("taken {}%", pct);
}

// 0 unless both are nonzero; 1 for anything under 1%.
uint64_t whole_percent(uint64_t dividend, uint64_t divisor) {
  if (!dividend || !divisor) return 0;
  dividend *= 100;
  return dividend < divisor ? 1 : dividend / divisor;
}

std::string function_details(const GcovOptions& o, const model::LlvmFunction& f) {
  const model::LlvmBlock* exit = f.blocks.size() > model::LlvmFunction::kExitBlock
                                     ? &f.blocks[model::LlvmFunction::kExitBlock]
                                     : nullptr;
  uint64_t exit_count = 0;
  if (exit)
    for (uint32_t a : exit->pred) exit_count += f.arcs[a].count;
  return fmt::format("function {} called {} returned {}% blocks executed {}%\n", model::llvm_function_name(f, o.demangle),
                     f.entry_count(), whole_percent(exit_count, f.entry_count()),
                     whole_percent(f.blocks_executed(), uint64_t(f.blocks.size()) - 2));
}

std::string annotate(const GcovOptions& o, const model::LlvmObject& obj, const model::LlvmSource& si,
                     const std::string& display, const model::LoadedObject& lo, const std::string& data_name,
                     std::string& errors) {
  std::string out;
  out += "        -:    0:Source:" + display + "\n";
  out += "        -:    0:Graph:" + lo.notes_name + "\n";
  out += "        -:    0:Data:" + data_name + "\n";
  out += fmt::format("        -:    0:Runs:{}\n", obj.runs);
  out += fmt::format("        -:    0:Programs:{}\n", obj.programs);
  auto file = util::read_source_file(si.filename);
  if (!file) {
    const int err = file.error().errno_value;
    errors += fmt::format("{}: {}\n", si.filename, err ? std::strerror(err) : file.error().message.c_str());
    return out;
  }
  std::string_view rest(reinterpret_cast<const char*>(file->bytes().data()), file->bytes().size());
  for (size_t ln = 1; !rest.empty(); ++ln) {
    const size_t nl = rest.find('\n');
    const std::string_view text = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    auto source_line = [&] { out += fmt::format("{:5}:{}\n", ln, text); };
    if (ln >= si.lines.size()) {
      out += "        -:";
      source_line();
      continue;
    }
    const model::LlvmLine& line = si.lines[ln];
    if (o.branches && ln < si.functions_at.size())
      for (uint32_t fi : si.functions_at[ln]) out += function_details(o, obj.functions[fi]);
    if (!line.exists)
      out += "        -:";
    else if (line.count == 0)
      out += "    #####:";
    else
      out += fmt::format("{:9}:", line.count);
    source_line();
    uint32_t block_idx = 0, edge_idx = 0;
    for (const auto& [fi, bi] : line.blocks) {
      const model::LlvmFunction& f = obj.functions[fi];
      const model::LlvmBlock& b = f.blocks[bi];
      if (b.last_line() != ln) continue;
      if (o.all_blocks) {
        out += b.count == 0 ? std::string("    $$$$$:") : fmt::format("{:9}:", b.count);
        out += fmt::format("{:5}-block {:2}\n", ln, block_idx++);
      }
      if (!o.branches) continue;
      if (b.succ.size() > 1) {
        const uint64_t total = f.leaving(b);
        for (uint32_t a : b.succ)
          out += fmt::format("branch {:2} {}\n", edge_idx++, branch_info(o, f.arcs[a].count, total));
      } else if (o.unconditional && b.succ.size() == 1) {
        const uint64_t count = f.arcs[b.succ[0]].count;
        out += fmt::format("unconditional {:2} {}\n", edge_idx++, branch_info(o, count, count));
      }
    }
  }
  return out;
}

// llvm-cov's -i file (gcov 7's intermediate text): every source, the ones -r
// leaves out too (their lines then hold the raw sums of their blocks, as
// llvm-cov never counts them again); branches only as taken or not.
std::string intermediate(const GcovOptions& o, const model::LlvmObject& obj,
                         const std::vector<model::LlvmSource>& sources) {
  std::string out;
  for (const model::LlvmSource& si : sources) {
    out += "file:" + si.filename + "\n";
    for (const std::vector<uint32_t>& at : si.functions_at)
      for (uint32_t fi : at) {
        const model::LlvmFunction& f = obj.functions[fi];
        out += fmt::format("function:{},{},{}\n", f.start_line, f.entry_count(), model::llvm_function_name(f, o.demangle));
      }
    for (size_t ln = 1; ln < si.lines.size(); ++ln) {
      const model::LlvmLine& line = si.lines[ln];
      if (line.blocks.empty()) continue;
      out += fmt::format("lcount:{},{}\n", ln, line.count);
      if (!o.branches) continue;
      for (const auto& [fi, bi] : line.blocks) {
        const model::LlvmFunction& f = obj.functions[fi];
        const model::LlvmBlock& b = f.blocks[bi];
        if (!b.branches_on(ln)) continue;
        for (uint32_t a : b.succ)
          out += fmt::format("branch:{},{}\n", ln, !b.count ? "notexec" : f.arcs[a].count ? "taken" : "nottaken");
      }
    }
  }
  return out;
}

// The object's counts as llvm-cov reads them, its messages and exit status
// into `actions`; nullopt where llvm-cov stops (notes missing or damaged, a
// data file that exists but cannot be read).
std::optional<model::LlvmObject> read_llvm_object(const model::LoadedObject& lo, ActionList& actions,
                                                  std::string& data_name) {
  if (!lo.notes_opened) {
    actions.err(fmt::format("{}: {}\n", lo.notes_name, std::strerror(lo.notes_errno)));
    return std::nullopt;
  }
  const auto* notes = std::get_if<format::NotesFile>(&lo.notes);
  if (!notes || notes->error) {
    actions.err("Invalid .gcno File!\n");
    actions.return_code(4);
    return std::nullopt;
  }
  model::LlvmObject obj = model::llvm_object_from_notes(*notes);
  data_name = lo.data_name;
  if (lo.data_open_error) {
    actions.err(fmt::format("{}: {}\n", lo.data_name, std::strerror(lo.data_open_error->errno_value)));
    return std::nullopt;
  }
  if (!lo.data_opened) {
    data_name = "-";  // never ran
  } else if (const auto* header = std::get_if<format::HeaderError>(&lo.data)) {
    if (header->problem == format::HeaderProblem::kNotThisKind)
      actions.err(fmt::format("{}:not a gcov data file\n", lo.data_name));
    else if (header->problem == format::HeaderProblem::kUnsupportedVersion)
      actions.err("GCOV versions do not match.\nInvalid .gcda File!\n");
    else
      actions.err("Invalid .gcda File!\n");
    actions.return_code(4);  // damaged: covkit fails where llvm-cov exits 0
  } else if (const auto* data = std::get_if<format::DataFile>(&lo.data)) {
    model::llvm_add_counts(obj, *notes, *data);
    if (!obj.errors.empty()) actions.return_code(4);
    actions.err(std::move(obj.errors));
  }
  return obj;
}

}  // namespace

std::string llvm_summary_text(const model::LlvmSummary& s, bool branches) {
  std::string out = fmt::format("Lines executed:{}% of {}\n", percent(s.lines_exec, s.lines), s.lines);
  if (!branches) return out;
  if (s.branches == 0) {
    out += "No branches\n";
  } else {
    out += fmt::format("Branches executed:{}% of {}\n", percent(s.branches_exec, s.branches), s.branches);
    out += fmt::format("Taken at least once:{}% of {}\n", percent(s.branches_taken, s.branches), s.branches);
  }
  return out + "No calls\n";  // llvm-cov counts no calls
}

// -s: the prefix is dropped with the separator after it; a name that goes on
// without one is kept whole.
std::string llvm_display_name(const std::string& filename, const std::string& prefix) {
  if (prefix.empty() || filename.compare(0, prefix.size(), prefix) != 0) return filename;
  std::string rest = filename.substr(prefix.size());
  if (rest.empty()) return rest;
  if (rest[0] == '/') return rest.substr(1);
  return filename;
}

std::optional<LlvmRun> start_llvm_gcov(const GcovOptions& o, const model::LoadedObject& lo, ActionList& actions) {
  LlvmRun run;
  std::optional<model::LlvmObject> read = read_llvm_object(lo, actions, run.data_name);
  if (!read) return std::nullopt;
  run.obj = std::move(*read);
  std::vector<model::LlvmSummary> function_summaries;
  const bool print_functions = o.function_summary && !o.use_stdout;
  run.sources = model::llvm_collect_functions(run.obj, o.demangle, print_functions ? &function_summaries : nullptr);
  for (const model::LlvmSummary& s : function_summaries)
    actions.out(fmt::format("Function '{}'\n", s.name) + llvm_summary_text(s, o.branches) + "\n");
  return run;
}

void plan_llvm_gcov(const GcovOptions& o, const std::string& arg, const model::LoadedObject& lo,
                    ActionList& actions) {
  std::optional<LlvmRun> run = start_llvm_gcov(o, lo, actions);
  if (!run) return;
  model::LlvmObject& obj = run->obj;
  const std::string& data_name = run->data_name;
  std::vector<model::LlvmSource>& sources = run->sources;

  // -n wherever it is (llvm-cov's options have no order); -i: one file for
  // the argument instead of one per source.
  const bool per_source = !o.no_output && !o.intermediate;
  for (model::LlvmSource& si : sources) {
    const std::string display = llvm_display_name(si.filename, o.source_prefix);
    if (o.relative_only && !display.empty() && display[0] == '/') continue;
    const model::LlvmSummary summary = model::llvm_collect_source(obj, si, display, o.branches);
    const std::string gcov_name = coverage_path(o, si.filename, arg);
    if (!o.use_stdout) {
      std::string text = fmt::format("File '{}'\n", summary.name) + llvm_summary_text(summary, o.branches);
      if (per_source) text += fmt::format("Creating '{}'\n", gcov_name);
      actions.out(text + "\n");
    }
    if (!per_source) continue;
    std::string errors;
    std::string content = annotate(o, obj, si, display, lo, data_name, errors);
    if (o.use_stdout) {
      actions.err(std::move(errors));
      actions.out(std::move(content));
    } else {
      actions.err(std::move(errors));
      actions.write_quiet(gcov_name, std::move(content));
    }
  }
  // Named after the argument's last component, in the working directory
  // (gcov 7 wrote one per source; llvm-cov writes one).
  if (o.intermediate && !o.no_output)
    actions.write_quiet(fs::path(arg).filename().string() + ".gcov", intermediate(o, obj, sources));
}

}  // namespace covkit::report
