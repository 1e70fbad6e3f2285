#include "report/gcov/gcov_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "model/counts.h"
#include "report/gcov/gcov_numbers.h"
#include "util/append_number.h"
#include "util/file_io.h"
#include "util/foreign_data.h"

namespace covkit::report {

namespace {

// GCC's colour escapes (SGR sequences with erase-to-end-of-line).
constexpr std::string_view kReset = "\033[m\033[K";
std::string sgr(std::string_view code) { return fmt::format("\033[{}m\033[K", code); }

constexpr std::string_view kLineStart = "        -:    0:";
constexpr std::string_view kSeparator = "------------------\n";

void pad9(std::string& s) {
  if (s.size() < 9) s.insert(0, 9 - s.size(), ' ');
}

// A source's lines, split like gcov's line reader: on '\n', a last line
// without one kept. Where each starts, 4 bytes a line (a view of 16 bytes
// a line made the thread's largest buffer after the text).
static_assert(util::kMaxSourceBytes < UINT32_MAX, "a source's offsets fit 32 bits");
class SourceLines {
 public:
  void split(std::string_view all) {
    all_ = all;
    starts_.clear();
    starts_.push_back(0);
    for (const char* at = all.data(); const void* nl = std::memchr(at, '\n', size_t(all.data() + all.size() - at));) {
      at = static_cast<const char*>(nl) + 1;
      starts_.push_back(uint32_t(at - all.data()));
    }
    if (starts_.back() != all.size()) starts_.push_back(uint32_t(all.size()));
  }
  void clear() {
    all_ = {};
    starts_.assign(1, 0);
  }
  size_t size() const { return starts_.size() - 1; }
  // Line `i` (0-based, < size()), without its '\n'.
  std::string_view operator[](size_t i) const {
    const size_t begin = starts_[i], end = starts_[i + 1];
    return all_.substr(begin, end - begin - (all_[end - 1] == '\n'));
  }

 private:
  std::string_view all_;
  std::vector<uint32_t> starts_{0};  // each line's first byte, then the end
};

class TextRenderer {
 public:
  TextRenderer(model::GcovSession& s, uint32_t src, const TextOptions& o, std::string& out,
               const TextSink* sink = nullptr)
      : session_(s),
        src_idx_(src),
        src_(s.coverage(src)),
        entry_(s.sources().entries()[src]),
        o_(o),
        out_(out),
        sink_(sink) {
    out_.clear();
    lines_.clear();  // the last source's (a source that cannot be read has none)
  }

  // Renders into the text given; returns the messages.
  std::string run();

 private:
  void line_beginning(bool exists, bool unexceptional, bool has_unexecuted_block, int64_t count, uint32_t line_num,
                      std::string_view exceptional_string, std::string_view unexceptional_string,
                      uint32_t maximum_count);
  void source_line(uint32_t line) {
    out_ += ':';
    // Printed like printf's %s: stops at a NUL byte (looked for per line
    // only in a source that has one: a search per line was ~2% of the run).
    std::string_view text = line >= 1 && line <= lines_.size() ? lines_[line - 1] : std::string_view();
    out_ += has_nul_ ? text.substr(0, text.find('\0')) : text;
    out_ += '\n';
  }
  // `field` right-aligned in 9 columns, ':', and the line number in 5.
  void append_field_and_number(std::string_view field, uint32_t line_num) {
    char buf[96];  // a field of at most 64, a separator, a number of at most 10 digits
    size_t n = 0;
    auto put = [&](std::string_view text, size_t width) {
      if (text.size() < width) {
        std::memset(buf + n, ' ', width - text.size());
        n += width - text.size();
      }
      std::memcpy(buf + n, text.data(), text.size());
      n += text.size();
    };
    put(field.substr(0, 64), 9);
    buf[n++] = ':';
    const fmt::format_int digits(line_num);
    put(std::string_view(digits.data(), digits.size()), 5);
    out_.append(buf, n);
  }
  void line_details(const model::LineInfo& line, uint32_t line_num);
  bool branch_count(int ix, const model::Function& fn, const model::Arc& arc);
  void function_details(model::SessionFunction& f);
  std::string fmt_count(int64_t top, int64_t bottom, int decimals) const {
    return format_gcov(top, bottom, decimals, o_.human);
  }

  model::GcovSession& session_;
  uint32_t src_idx_;
  model::SourceCoverage& src_;
  const model::SourceEntry& entry_;
  const TextOptions& o_;
  // The source's lines: a list the thread keeps from source to source (a
  // fresh one per source was fresh pages for every long header).
  SourceLines& lines_ = kept_lines;
  static thread_local SourceLines kept_lines;
  bool has_nul_ = false;  // the source holds a NUL byte somewhere
  std::string& out_;
  const TextSink* sink_;  // where out_ goes when full, if anywhere
  // Handed to sink_ from this size on.
  static constexpr size_t kPiece = size_t(64) << 10;
  void pass_on_if_full() {
    if (sink_ && out_.size() >= kPiece) {
      (*sink_)(out_);
      out_.clear();
    }
  }
};

void TextRenderer::line_beginning(bool exists, bool unexceptional, bool has_unexecuted_block, int64_t count,
                                  uint32_t line_num, std::string_view exceptional_string,
                                  std::string_view unexceptional_string, uint32_t maximum_count) {
  if (!o_.colors && !(o_.hotness && maximum_count)) {
    // Without colours, the count and the line number are put together
    // and appended at once: once per line of every source, an append per
    // piece (padding, text, separator) was a fifth of the renderer.
    char count_buf[64];
    std::string_view field;
    if (!exists) {
      field = "-";
    } else if (count > 0) {
      field = count_text(count_buf, count, o_.human);
      if (has_unexecuted_block && session_.has_unexecuted_blocks()) {
        count_buf[field.size()] = '*';
        field = std::string_view(count_buf, field.size() + 1);
      }
    } else {
      field = unexceptional ? unexceptional_string : exceptional_string;
    }
    append_field_and_number(field, line_num);
    return;
  }
  // Appended in place: once per line of every source, a temporary string
  // per field was a good part of the run.
  if (!exists) {
    out_.append(8, ' ');
    out_ += '-';
  } else if (count > 0) {
    if (has_unexecuted_block && session_.has_unexecuted_blocks()) {
      if (o_.colors) {
        out_ += sgr("45;37");
        append_count(out_, count, o_.human, 9);
        out_ += kReset;
      } else {
        std::string s = fmt_count(count, 0, -1);
        s += '*';
        pad9(s);
        out_ += s;
      }
    } else {
      append_count(out_, count, o_.human, 9);
    }
  } else if (o_.colors) {
    out_ += unexceptional ? sgr("41;37") : sgr("46;37");
    out_.append(8, ' ');
    out_ += '0';
    out_ += kReset;
  } else {
    std::string_view mark = unexceptional ? unexceptional_string : exceptional_string;
    if (mark.size() < 9) out_.append(9 - mark.size(), ' ');
    out_ += mark;
  }
  out_ += ':';
  if (o_.hotness && maximum_count) {
    // Wrapping products: the same answers as gcov for any count, without UB.
    const int64_t max = maximum_count;
    auto times = [count](uint64_t k) { return int64_t(uint64_t(count) * k); };
    if (times(2) > max)
      out_ += sgr("41");
    else if (times(5) > max)
      out_ += sgr("43");
    else if (times(10) > max)
      out_ += sgr("42");
    util::append_decimal(out_, line_num, 5);
    out_ += kReset;
  } else {
    util::append_decimal(out_, line_num, 5);
  }
}

bool TextRenderer::branch_count(int ix, const model::Function& fn, const model::Arc& arc) {
  const int64_t src_count = fn.blocks[arc.src].count;
  const int decimals = o_.counts ? -1 : 0;
  auto number = [&](std::string_view what) {
    out_ += what;
    util::append_decimal(out_, uint64_t(ix), 2);
  };
  if (arc.is_call_non_return) {
    number("call   ");
    if (src_count) {
      out_ += " returned ";
      append_gcov(out_, model::sub_counts(src_count, arc.count), src_count, decimals, o_.human);
    } else {
      out_ += " never executed";
    }
    out_ += '\n';
  } else if (!arc.is_unconditional) {
    number("branch ");
    if (src_count) {
      out_ += " taken ";
      append_gcov(out_, arc.count, src_count, decimals, o_.human);
      out_ += arc.fall_through ? " (fallthrough)" : arc.is_throw ? " (throw)" : "";
    } else {
      out_ += " never executed";
    }
    if (o_.verbose) out_ += fmt::format(" (BB {})", fn.blocks[arc.dst].id);
    out_ += '\n';
  } else if (o_.unconditional && !fn.blocks[arc.dst].is_call_return) {
    number("unconditional ");
    if (src_count) {
      out_ += " taken ";
      append_gcov(out_, arc.count, src_count, decimals, o_.human);
    } else {
      out_ += " never executed";
    }
    out_ += '\n';
  } else {
    return false;
  }
  return true;
}

void TextRenderer::line_details(const model::LineInfo& line, uint32_t line_num) {
  if (o_.all_blocks) {
    int ix = 0, jx = 0;
    for (const model::LineBlockRef& ref : line.blocks) {
      const model::Block& b = ref.fn->blocks[ref.block];
      if (!b.is_call_return) {
        // gcov passes the block's "exceptional" where the line's
        // "unexceptional" goes, so '$$$$$' marks exceptional blocks.
        line_beginning(line.exists, b.exceptional, false, b.count, line_num, "%%%%%", "$$$$$", 0);
        out_ += "-block ";
        util::append_decimal(out_, uint64_t(ix++), 2);
        if (o_.verbose) out_ += fmt::format(" (BB {})", b.id);
        out_ += '\n';
      }
      if (o_.branches)
        for (uint32_t a : b.succ) jx += branch_count(jx, *ref.fn, ref.fn->arcs[a]);
    }
  } else if (o_.branches) {
    int ix = 0;
    for (const model::ArcRef& a : line.branches) ix += branch_count(ix, *a.fn, *a.arc);
  }
}

void TextRenderer::function_details(model::SessionFunction& f) {
  if (!o_.branches) return;
  const model::Function& fn = f.fn;
  int64_t return_count = fn.blocks.size() > model::kExitBlock ? fn.blocks[model::kExitBlock].count : 0;
  const int64_t called_count = fn.blocks.empty() ? 0 : fn.blocks[model::kEntryBlock].count;
  if (fn.blocks.size() > model::kExitBlock)
    for (uint32_t a : fn.blocks[model::kExitBlock].pred)
      if (fn.arcs[a].fake) return_count = model::sub_counts(return_count, fn.arcs[a].count);
  // Appended in place (a formatted string per function was a few percent of the run).
  out_ += "function ";
  out_ += session_.function_name(f);
  out_ += " called ";
  append_gcov(out_, called_count, 0, -1, o_.human);
  out_ += " returned ";
  append_gcov(out_, return_count, called_count, 0, o_.human);
  out_ += " blocks executed ";
  append_gcov(out_, f.blocks_executed, fn.real_block_count(), 0, o_.human);
  out_ += '\n';
}

std::string TextRenderer::run() {
  std::string messages;
  if (o_.colors)
    out_ += fmt::format("{}Colorization: profile count: {}zero coverage (exceptional){} {}zero coverage (unexceptional){} "
                        "{}unexecuted block{}\n",
                        kLineStart, sgr("46"), kReset, sgr("41"), kReset, sgr("45"), kReset);
  if (o_.hotness)
    out_ += fmt::format("{}Colorization: line numbers: hotness: {}> 50%{} {}> 20%{} {}> 10%{}\n", kLineStart,
                        sgr("41"), kReset, sgr("43"), kReset, sgr("42"), kReset);
  out_ += fmt::format("{}Source:{}\n", kLineStart, entry_.display_name);
  if (!o_.multiple_files) {
    out_ += fmt::format("{}Graph:{}\n", kLineStart, session_.notes_name());
    out_ += fmt::format("{}Data:{}\n", kLineStart, session_.no_data_file() ? "-" : session_.data_name());
    out_ += fmt::format("{}Runs:{}\n", kLineStart, session_.object_runs());
  }
  auto file = util::read_source_file(entry_.name);  // named by the notes: their owners' rights
  if (!file)
    messages += fmt::format("Cannot open source file {}\n", entry_.name);
  else if (entry_.file_time == 0)
    out_ += fmt::format("{}Source is newer than graph\n", kLineStart);
  if (file) {
    lines_.split(file->text());
    has_nul_ = std::memchr(file->bytes().data(), 0, file->bytes().size()) != nullptr;
  }
  // The source and per line a count, a line number and its branch lines
  // (a line of a library compiled into many objects has hundreds: grown
  // by doubling, the text was copied about twice over).
  size_t estimate = out_.size() + (file ? file->bytes().size() : 0) + lines_.size() * 24;
  if (o_.branches)
    for (const model::LineInfo& line : src_.lines.entries()) estimate += line.branches.size() * 36;
  out_.reserve(sink_ ? std::min(estimate, 2 * kPiece) : estimate);

  uint32_t line_start_group = 0;
  std::vector<model::SessionFunction*>* fns = nullptr;
  for (uint32_t line_num = 1; line_num <= lines_.size(); ++line_num) {
    if (line_num >= src_.lines.size()) {
      append_field_and_number("-", line_num);
      source_line(line_num);
      pass_on_if_full();
      continue;
    }
    const model::LineInfo& line = src_.lines[line_num];
    if (line_start_group == 0) {
      fns = src_.functions_at(line_num);
      if (fns && fns->size() > 1) {
        // Functions may overlap partially: the group ends at the last end line.
        for (auto* f : *fns)
          if (f->fn.end_line > line_start_group) line_start_group = f->fn.end_line;
      } else if (fns && fns->size() == 1) {
        function_details(*fns->front());
      }
    }
    line_beginning(line.exists, line.unexceptional, line.has_unexecuted_block, line.count, line_num, "=====",
                   "#####", src_.maximum_count);
    source_line(line_num);
    line_details(line, line_num);
    if (line_start_group == line_num) {
      for (model::SessionFunction* f : *fns) {
        out_ += kSeparator;
        std::string name = session_.function_name(*f);
        if (o_.colors) name = sgr("36") + name + std::string(kReset);
        out_ += name;
        out_ += ":\n";
        function_details(*f);
        for (size_t i = 0; i < f->lines.size(); ++i) {
          const model::LineInfo& fl = f->lines[i];
          uint32_t l = uint32_t(f->fn.start_line + i);
          line_beginning(fl.exists, fl.unexceptional, fl.has_unexecuted_block, fl.count, l, "=====", "#####",
                         src_.maximum_count);
          source_line(l);
          line_details(fl, l);
          pass_on_if_full();
        }
      }
      out_ += kSeparator;
      line_start_group = 0;
    }
    pass_on_if_full();
  }
  if (sink_ && !out_.empty()) {
    (*sink_)(out_);
    out_.clear();
  }
  (void)src_idx_;
  return messages;
}

thread_local SourceLines TextRenderer::kept_lines;

}  // namespace

TextResult render_gcov_text(model::GcovSession& session, uint32_t src, const TextOptions& o) {
  TextResult result;
  result.messages = TextRenderer(session, src, o, result.text).run();
  return result;
}

std::string render_gcov_text(model::GcovSession& session, uint32_t src, const TextOptions& o, std::string& text) {
  return TextRenderer(session, src, o, text).run();
}

std::string render_gcov_text(model::GcovSession& session, uint32_t src, const TextOptions& o, std::string& text,
                             const TextSink& sink) {
  return TextRenderer(session, src, o, text, &sink).run();
}

}  // namespace covkit::report
