#include "report/gcov/llvm_gcov_json.h"

#include <fmt/format.h>

#include "model/counts.h"
#include "model/llvm_gcov.h"
#include "report/gcov/gcov_file_names.h"
#include "report/gcov/llvm_gcov_text.h"
#include "report/json_writer.h"
#include "util/gzip.h"

namespace covkit::report {

namespace {

// Members in the order gcov writes them (report/gcov/gcov_json.cc).
void write_line(JsonWriter& w, const model::LlvmObject& obj, const model::LlvmLine& line, uint32_t ln, bool branches) {
  w.begin_object();
  w.key("branches");
  w.begin_array();
  bool unexecuted = false;
  for (const auto& [fi, bi] : line.blocks) {
    const model::LlvmFunction& f = obj.functions[fi];
    const model::LlvmBlock& b = f.blocks[bi];
    if (b.count == 0) unexecuted = true;
    if (!branches || !b.branches_on(ln)) continue;
    for (uint32_t a : b.succ) {
      w.begin_object();
      w.key("fallthrough");
      w.boolean(f.arcs[a].fallthrough);
      w.key("count");
      w.integer(model::saturated_count(f.arcs[a].count));
      w.key("throw");
      w.boolean(false);
      w.end_object();
    }
  }
  w.end_array();
  w.key("count");
  w.integer(model::saturated_count(line.count));
  w.key("line_number");
  w.integer(ln);
  w.key("unexecuted_block");
  w.boolean(unexecuted);
  w.key("function_name");
  w.string(obj.functions[line.blocks.front().first].name);
  w.end_object();
}

void write_function(JsonWriter& w, const model::LlvmFunction& f) {
  w.begin_object();
  w.key("blocks");
  w.integer(f.blocks.size() >= 2 ? int64_t(f.blocks.size() - 2) : 0);
  w.key("end_column");
  w.integer(0);
  w.key("start_line");
  w.integer(f.start_line);
  w.key("name");
  w.string(f.name);
  w.key("blocks_executed");
  w.integer(int64_t(f.blocks_executed()));
  w.key("execution_count");
  w.integer(model::saturated_count(f.entry_count()));
  w.key("demangled_name");
  w.string(model::llvm_function_name(f, true));
  w.key("start_column");
  w.integer(0);
  w.key("end_line");
  w.integer(0);
  w.end_object();
}

}  // namespace

void plan_llvm_gcov_json(const GcovOptions& o, const std::string& arg, const model::LoadedObject& lo,
                         ActionList& actions) {
  std::optional<LlvmRun> run = start_llvm_gcov(o, lo, actions);
  if (!run) return;
  model::LlvmObject& obj = run->obj;

  JsonWriter doc;
  doc.begin_object();
  doc.key("gcc_version");
  doc.string("4.8.0");
  doc.key("files");
  doc.begin_array();
  for (model::LlvmSource& si : run->sources) {
    const std::string display = llvm_display_name(si.filename, o.source_prefix);
    if (o.relative_only && !display.empty() && display[0] == '/') continue;
    const model::LlvmSummary summary = model::llvm_collect_source(obj, si, display, o.branches);
    if (!o.use_stdout) actions.out(fmt::format("File '{}'\n", summary.name) + llvm_summary_text(summary, o.branches) + "\n");
    doc.begin_object();
    doc.key("lines");
    doc.begin_array();
    for (uint32_t ln = 1; ln < si.lines.size(); ++ln)
      if (si.lines[ln].exists) write_line(doc, obj, si.lines[ln], ln, o.branches);
    doc.end_array();
    doc.key("functions");
    doc.begin_array();
    for (const std::vector<uint32_t>& at : si.functions_at)
      for (uint32_t fi : at) write_function(doc, obj.functions[fi]);
    doc.end_array();
    doc.key("file");
    doc.string(si.filename);
    doc.end_object();
  }
  doc.end_array();
  doc.key("format_version");
  doc.string("1");
  doc.key("data_file");
  doc.string(arg);
  doc.end_object();
  if (o.use_stdout) {
    actions.out(doc.text() + "\n");
    return;
  }
  const std::string name = json_file_name(arg, NameOptions{o.long_names, o.preserve_paths, o.hash_names});
  if (auto gz = util::gzip_compress(doc.text())) {
    actions.write_json(name, std::move(*gz));
  } else {
    actions.out(fmt::format("Creating '{}'\n", name));
    actions.err(fmt::format("Error writing JSON output file {}\n", name));
    actions.return_code(6);
  }
}

}  // namespace covkit::report
