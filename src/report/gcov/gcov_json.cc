#include "report/gcov/gcov_json.h"

#include <algorithm>

namespace covkit::report {

namespace {

// gcov prints object members in the iteration order of GCC's hash map of
// keys, which is fixed for each kind of object; covkit writes the same order
// so that even the compressed files are byte-identical.
void write_line(JsonWriter& w, const model::LineInfo& line, uint32_t line_num, const std::string* function_name,
                const JsonOptions& o) {
  if (!line.exists) return;
  w.begin_object();
  w.key("branches");
  w.begin_array();
  if (o.branches)
    for (const model::ArcRef& a : line.branches) {
      if (a.arc->is_unconditional || a.arc->is_call_non_return) continue;
      w.begin_object();
      w.key("fallthrough");
      w.boolean(a.arc->fall_through);
      w.key("count");
      w.integer(a.arc->count);
      w.key("throw");
      w.boolean(a.arc->is_throw);
      w.end_object();
    }
  w.end_array();
  w.key("count");
  w.integer(line.count);
  w.key("line_number");
  w.integer(line_num);
  w.key("unexecuted_block");
  w.boolean(line.has_unexecuted_block);
  if (function_name) {
    w.key("function_name");
    w.string(*function_name);
  }
  w.end_object();
}

}  // namespace

void begin_json_document(JsonWriter& w, const model::GcovSession& session) {
  w.begin_object();
  w.key("gcc_version");
  w.string(session.version().gcc_version_string());
  w.key("files");
  w.begin_array();
}

void end_json_document(JsonWriter& w, const model::GcovSession& session, const std::string& data_file) {
  w.end_array();
  w.key("format_version");
  w.string("1");
  if (session.notes_cwd()) {
    w.key("current_working_directory");
    w.string(*session.notes_cwd());
  }
  w.key("data_file");
  w.string(data_file);
  w.end_object();
}


void write_json_source(JsonWriter& w, model::GcovSession& session, uint32_t src_idx, const JsonOptions& o) {
  model::SourceCoverage& src = session.coverage(src_idx);
  const model::SourceEntry& entry = session.sources().entries()[src_idx];
  w.begin_object();
  model::sort_by_start(src.functions);
  w.key("lines");
  w.begin_array();
  std::vector<model::SessionFunction*> open_fns;  // non-group functions whose body we are in
  const size_t nlines = src.lines.size();
  for (uint32_t line_num = 1; line_num <= nlines; ++line_num) {
    for (model::SessionFunction* f : src.functions_at(line_num)) {
      if (!f->is_group) open_fns.push_back(f);
      for (size_t i = 0; i < f->lines.size(); ++i)
        write_line(w, f->lines[i], uint32_t(line_num + i), &f->fn.name, o);
    }
    if (line_num < nlines) {
      model::SessionFunction* last = open_fns.empty() ? nullptr : open_fns.back();
      write_line(w, src.lines[line_num], line_num, last ? &last->fn.name : nullptr, o);
      if (last && last->fn.end_line == line_num) open_fns.pop_back();
    }
  }
  w.end_array();

  w.key("functions");
  w.begin_array();
  for (model::SessionFunction* f : src.functions) {
    w.begin_object();
    w.key("blocks");
    w.integer(f->fn.real_block_count());
    w.key("end_column");
    w.integer(f->fn.end_column);
    w.key("start_line");
    w.integer(f->fn.start_line);
    w.key("name");
    w.string(f->fn.name);
    w.key("blocks_executed");
    w.integer(f->blocks_executed);
    w.key("execution_count");
    w.integer(f->fn.blocks.empty() ? 0 : f->fn.blocks[model::kEntryBlock].count);
    w.key("demangled_name");
    w.string(model::GcovSession::demangled_name(*f));
    w.key("start_column");
    w.integer(f->fn.start_column);
    w.key("end_line");
    w.integer(f->fn.end_line);
    w.end_object();
  }
  w.end_array();
  w.key("file");
  w.string(entry.name);
  w.end_object();
}

}  // namespace covkit::report
