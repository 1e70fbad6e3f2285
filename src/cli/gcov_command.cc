#include "cli/gcov_command.h"

#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/gcov_options.h"
#include "model/gcov_session.h"
#include "report/gcov_file_names.h"
#include "report/gcov_json.h"
#include "report/gcov_numbers.h"
#include "report/gcov_text.h"
#include "util/file_io.h"
#include "util/thread_pool.h"

namespace covkit::cli {

namespace {

// One gcov run: the main loop of gcov over its arguments.
class GcovRun {
 public:
  explicit GcovRun(const GcovOptions& o)
      : o_(o),
        threads_(o.threads ? o.threads : util::default_threads()),
        session_(model::SessionOptions{o.source_prefix, o.branches, o.json, o.demangle, threads_}) {}

  int run();

 private:
  void out(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }
  void flush_messages() {
    std::string m = session_.take_messages();
    if (!m.empty()) {
      std::fflush(stdout);
      std::fwrite(m.data(), 1, m.size(), stderr);
    }
  }
  std::string percent(int top, int bottom) { return report::format_gcov(top, bottom, 2, o_.human); }
  void executed_summary(int lines, int executed);
  void debug_dump(uint32_t src);
  void file_summary(const std::string& name, const model::CoverageSummary& c);
  void generate_results(const std::string& arg);
  void write_gcov_file(const std::string& input_name, uint32_t src, const std::string& text);
  void write_json_file(const std::string& name, const std::string& json);

  const GcovOptions& o_;
  unsigned threads_;
  model::GcovSession session_;
  report::NameOptions names_{};
  int64_t total_lines_ = 0, total_executed_ = 0;
};

void GcovRun::executed_summary(int lines, int executed) {
  if (lines)
    out(fmt::format("Lines executed:{} of {}\n", percent(executed, lines), lines));
  else
    out("No executable lines\n");
}

// -D: gcov's dump of a source's functions, blocks and lines, on stderr.
void GcovRun::debug_dump(uint32_t src) {
  auto& cov = session_.coverage(src);
  std::string d = fmt::format("source_info: {}\n", session_.sources().entries()[src].name);
  for (const model::SessionFunction* f : cov.functions) {
    d += fmt::format("  function_info: {}\n", session_.function_name(*f));
    for (const model::Block& b : f->fn.blocks) d += fmt::format("    block_info id={}, count={} \n", b.id, b.count);
  }
  for (size_t ln = 1; ln < cov.lines.size(); ++ln) d += fmt::format("  line_info={}, count={}\n", ln, cov.lines[ln].count);
  d += "\n";
  std::fflush(stdout);
  std::fwrite(d.data(), 1, d.size(), stderr);
}

void GcovRun::file_summary(const std::string& name, const model::CoverageSummary& c) {
  out(fmt::format("File '{}'\n", name));
  executed_summary(c.lines, c.lines_executed);
  if (!o_.branches) return;
  if (c.branches) {
    out(fmt::format("Branches executed:{} of {}\n", percent(c.branches_executed, c.branches), c.branches));
    out(fmt::format("Taken at least once:{} of {}\n", percent(c.branches_taken, c.branches), c.branches));
  } else {
    out("No branches\n");
  }
  if (c.calls)
    out(fmt::format("Calls executed:{} of {}\n", percent(c.calls_executed, c.calls), c.calls));
  else
    out("No calls\n");
}

void GcovRun::write_gcov_file(const std::string& input_name, uint32_t src, const std::string& text) {
  const auto& entry = session_.sources().entries()[src];
  std::string name = report::gcov_file_name(input_name, entry.display_name, names_);
  if (!session_.coverage(src).coverage.lines) {
    ::unlink(name.c_str());
    out(fmt::format("Removing '{}'\n", name));
    return;
  }
  util::WriteFailure failure{};
  if (util::write_file_atomic(name, text, nullptr, &failure)) {
    out(fmt::format("Creating '{}'\n", name));
    return;
  }
  std::fflush(stdout);
  if (failure == util::WriteFailure::kOpen) {
    std::fprintf(stderr, "Could not open output file '%s'\n", name.c_str());
  } else {
    out(fmt::format("Creating '{}'\n", name));
    std::fflush(stdout);
    std::fprintf(stderr, "Error writing output file '%s'\n", name.c_str());
  }
  session_.set_return_code(6);
}

void GcovRun::write_json_file(const std::string& name, const std::string& json) {
  out(fmt::format("Creating '{}'\n", name));
  // gzopen/gzputs as gcov does, so the compressed bytes match too; written
  // beside the target and renamed, so a failure never leaves half a file.
  std::string tmp = name + ".covkit-tmp." + std::to_string(::getpid());
  gzFile gz = gzopen(tmp.c_str(), "w");
  if (!gz) {
    std::fflush(stdout);
    std::fprintf(stderr, "Cannot open JSON output file %s\n", name.c_str());
    session_.set_return_code(6);
    return;
  }
  bool ok = gzputs(gz, json.c_str()) != -1;
  ok = (gzclose(gz) == Z_OK) && ok;
  if (!ok || ::rename(tmp.c_str(), name.c_str()) != 0) {
    ::unlink(tmp.c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "Error writing JSON output file %s\n", name.c_str());
    session_.set_return_code(6);
  }
}

void GcovRun::generate_results(const std::string& arg) {
  std::vector<std::pair<std::string, model::CoverageSummary>> summaries;
  session_.add_line_counts(o_.function_summary ? &summaries : nullptr);
  flush_messages();
  for (const auto& [name, cov] : summaries) {
    out(fmt::format("Function '{}'\n", name));
    executed_summary(cov.lines, cov.lines_executed);
    out("\n");
  }

  // The input's name as gcov reports it: a known source's name, or canonical.
  std::string file_name;
  int64_t known = session_.sources().lookup(arg);
  file_name = known >= 0 ? session_.sources().entries()[size_t(known)].display_name : model::canonicalize_name(arg);

  // Sources to report, in the order they were first seen.
  std::vector<uint32_t> todo;
  for (uint32_t s = 0; s < session_.source_count(); ++s) {
    const std::string& shown = session_.sources().entries()[s].display_name;
    if (o_.relative_only && !shown.empty() && shown[0] == '/') continue;  // absolute: a system header
    todo.push_back(s);
  }
  util::parallel_for(todo.size(), threads_, [&](size_t i) { session_.accumulate(todo[i]); });

  // Render in parallel, print in order: output never depends on threads.
  std::vector<std::string> rendered(todo.size());
  std::vector<std::string> render_messages(todo.size());
  report::TextOptions topts{o_.all_blocks, o_.branches, o_.counts, o_.human,        o_.colors,
                            o_.hotness,    o_.verbose,  o_.unconditional, o_.files.size() > 1};
  report::JsonOptions jopts{o_.branches};
  util::parallel_for(todo.size(), threads_, [&](size_t i) {
    uint32_t s = todo[i];
    if (!o_.gcov_file) return;
    if (o_.json) {
      report::JsonWriter w;
      report::write_json_source(w, session_, s, jopts);
      rendered[i] = std::move(w.text());
    } else if (session_.coverage(s).coverage.lines) {
      auto r = report::render_gcov_text(session_, s, topts);
      rendered[i] = std::move(r.text);
      render_messages[i] = std::move(r.messages);
    }
  });

  report::JsonWriter doc;
  report::begin_json_document(doc, session_);
  for (size_t i = 0; i < todo.size(); ++i) {
    uint32_t s = todo[i];
    const auto& cov = session_.coverage(s).coverage;
    if (o_.debug) debug_dump(s);
    if (!o_.use_stdout) file_summary(session_.sources().entries()[s].display_name, cov);
    total_lines_ += cov.lines;
    total_executed_ += cov.lines_executed;
    if (!o_.gcov_file) continue;
    if (!render_messages[i].empty()) {
      std::fflush(stdout);
      std::fwrite(render_messages[i].data(), 1, render_messages[i].size(), stderr);
    }
    if (o_.json) {
      doc.raw_value(rendered[i]);
      if (!o_.use_stdout) out("\n");
    } else if (o_.use_stdout) {
      if (cov.lines) out(rendered[i]);
    } else {
      write_gcov_file(file_name, s, rendered[i]);
      out("\n");
    }
  }
  report::end_json_document(doc, session_, file_name);
  if (o_.gcov_file && o_.json) {
    if (o_.use_stdout)
      out(doc.text() + "\n");
    else
      write_json_file(report::json_file_name(file_name, names_), doc.text());
  }
}

int GcovRun::run() {
  names_ = report::NameOptions{o_.long_names, o_.preserve_paths, o_.hash_names};
  const size_t n = o_.files.size();
  // Reading and parsing is independent per object: do it all up front in parallel.
  std::vector<model::LoadedObject> loaded(n);
  util::parallel_for(n, threads_, [&](size_t i) { loaded[i] = model::load_object(o_.files[i], o_.object_directory); });

  for (size_t i = 0; i < n; ++i) {
    if (o_.display_progress) out(fmt::format("Processing file {} out of {}\n", i + 1, n));
    session_.add_object(std::move(loaded[i]), o_.files[i]);
    flush_messages();
    if (o_.json || i + 1 == n) {
      session_.process_all_functions();
      flush_messages();
      generate_results(o_.files[i]);
      flush_messages();
      session_.release();
    }
  }
  if (!o_.use_stdout) executed_summary(int(total_lines_), int(total_executed_));
  std::fflush(stdout);
  return session_.return_code();
}

}  // namespace

int run_gcov_command(int argc, char** argv) {
  GcovOptions opts;
  switch (parse_gcov_options(argc, argv, opts)) {
    case ParseOutcome::kExitSuccess: return 0;
    case ParseOutcome::kExitFailure: return 1;
    case ParseOutcome::kRun: break;
  }
  return GcovRun(opts).run();
}

}  // namespace covkit::cli
