#include "report/gcov/gcov_text.h"

#include <fmt/format.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
    const char* const p = all.data();
    const size_t n = all.size();
    size_t i = 0;
#if defined(__SSE2__)
    // 16 bytes a step, each newline's place from the step's mask (a memchr
    // call per line of some 40 bytes cost twice as much).
    const __m128i newline = _mm_set1_epi8('\n');
    for (; i + 16 <= n; i += 16) {
      const __m128i piece = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      for (unsigned mask = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(piece, newline))); mask; mask &= mask - 1)
        starts_.push_back(uint32_t(i + unsigned(__builtin_ctz(mask)) + 1));
    }
#endif
    for (; i < n; ++i)
      if (p[i] == '\n') starts_.push_back(uint32_t(i + 1));
    if (starts_.back() != n) starts_.push_back(uint32_t(n));
  }
  void clear() {
    all_ = {};
    starts_.assign(1, 0);
  }
  size_t size() const { return starts_.size() - 1; }
  // Line `i` (0-based, < size()), without its '\n'.
  std::string_view operator[](size_t i) const {
    const size_t begin = starts_[i], end = starts_[i + 1];  // begin < end: a line has a byte at least
    return std::string_view(all_.data() + begin, end - begin - (all_[end - 1] == '\n'));
  }

 private:
  std::string_view all_;
  std::vector<uint32_t> starts_{0};  // each line's first byte, then the end
};

// The text being made, written in place: each line's pieces are copied to
// where the last ended, after one check that there is room for the line
// (an append per piece, each checking and growing the string, was half of
// the renderer's instructions). Views `text`, whose size is its capacity
// while rendering (its bytes past what was written unspecified); finish()
// leaves it the size of what was written.
class TextBuffer {
 public:
  explicit TextBuffer(std::string& text) : text_(text) {
    text_.resize(text_.capacity());
    used_ = 0;
  }
  // Room for `n` more bytes: where they go. commit() says where they ended.
  [[gnu::always_inline]] char* room(size_t n) {
    if (text_.size() - used_ < n) grow(n);
    return text_.data() + used_;
  }
  [[gnu::always_inline]] void commit(const char* end) { used_ = size_t(end - text_.data()); }
  [[gnu::always_inline]] void put(std::string_view piece) {
    char* at = room(piece.size());
    std::memcpy(at, piece.data(), piece.size());
    used_ += piece.size();
  }
  [[gnu::always_inline]] void put(char c) {
    *room(1) = c;
    ++used_;
  }
  size_t size() const { return used_; }
  std::string_view view() const { return {text_.data(), used_}; }
  void clear() { used_ = 0; }
  // At least `n` bytes in all.
  void reserve(size_t n) {
    if (text_.size() < n) text_.resize(n);
  }
  // The text written, as `text`'s contents.
  void finish() { text_.resize(used_); }

 private:
  void grow(size_t n) { text_.resize(std::max(2 * text_.size(), used_ + n + 4096)); }
  std::string& text_;
  size_t used_ = 0;
};

// `v` in decimal, right-aligned in `width` (<= 16) columns (wider when it
// needs to be), written at `at`, where there must be room for 16 + 20
// bytes; returns where it ends. Two digits a step, the padding one store:
// once or twice per line of every text (a loop per digit and a memset were
// a tenth of the renderer).
[[gnu::always_inline]] inline char* put_decimal(char* at, uint64_t v, size_t width) {
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  // Its digits from its bit length (log10 2 ~ 1233/4096), one compare to
  // settle: a division per digit was the renderer's largest single cost.
  static constexpr uint64_t kPowers[20] = {1,
                                           10,
                                           100,
                                           1000,
                                           10000,
                                           100000,
                                           1000000,
                                           10000000,
                                           100000000,
                                           1000000000,
                                           10000000000,
                                           100000000000,
                                           1000000000000,
                                           10000000000000,
                                           100000000000000,
                                           1000000000000000,
                                           10000000000000000,
                                           100000000000000000,
                                           1000000000000000000,
                                           10000000000000000000u};
  const uint64_t odd = v | 1;  // as many digits as v, and never 0
  const unsigned guess = unsigned(64 - __builtin_clzll(odd)) * 1233 >> 12;
  const size_t digits = guess + (odd >= kPowers[guess]);
  std::memcpy(at, "                ", 16);
  char* const end = at + (digits > width ? digits : width);
  char* d = end;
  while (v >= 100) {
    d -= 2;
    std::memcpy(d, kPairs + 2 * (v % 100), 2);
    v /= 100;
  }
  if (v >= 10) {
    d -= 2;
    std::memcpy(d, kPairs + 2 * v, 2);
  } else {
    *--d = char('0' + v);
  }
  return end;
}

// The line numbers of a listing, right-aligned in 5 columns. Each is
// mostly the one before plus one: the last one's text is kept and counted
// up a digit at a time (its digits made afresh for every line of every
// source were a tenth of the renderer's instructions).
class LineNumberText {
 public:
  LineNumberText() { set(0); }
  // Writes `n` at `at`, where there must be room for 16 bytes; returns
  // where it ends.
  [[gnu::always_inline]] char* put(char* at, uint32_t n) {
    if (n != value_) {
      if (uint64_t{n} != uint64_t{value_} + 1 || !increment()) set(n);
      value_ = n;
    }
    std::memcpy(at, text_, 16);
    return at + size_;
  }

 private:
  void set(uint32_t n) { size_ = size_t(put_decimal(text_, n, 5) - text_); }
  // The text plus one; false when that needs a column more (all nines).
  bool increment() {
    for (size_t i = size_; i > 0;) {
      char& c = text_[--i];
      if (c == ' ') {
        c = '1';
        return true;
      }
      if (c != '9') {
        ++c;
        return true;
      }
      c = '0';
    }
    return false;
  }
  char text_[16 + 20];  // put_decimal's room
  size_t size_ = 0;
  uint32_t value_ = 0;
};

// `text` right-aligned in `width` columns at `at`; returns where it ends.
char* put_padded(char* at, std::string_view text, size_t width) {
  if (text.size() < width) {
    std::memset(at, ' ', width - text.size());
    at += width - text.size();
  }
  std::memcpy(at, text.data(), text.size());
  return at + text.size();
}

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
    lines_.clear();  // the last source's (a source that cannot be read has none)
  }

  // Renders into the text given; returns the messages.
  std::string run();

 private:
  void line_beginning(bool exists, bool unexceptional, bool has_unexecuted_block, int64_t count, uint32_t line_num,
                      std::string_view exceptional_string, std::string_view unexceptional_string,
                      uint32_t maximum_count);
  // Line `line` of the source as gcov prints it: like printf's %s, it stops
  // at a NUL byte (looked for per line only in a source that has one: a
  // search per line was ~2% of the run).
  std::string_view line_text(uint32_t line) const {
    std::string_view text = line >= 1 && line <= lines_.size() ? lines_[line - 1] : std::string_view();
    if (has_nul_) text = text.substr(0, text.find('\0'));
    return text;
  }
  void source_line(uint32_t line) {
    const std::string_view text = line_text(line);
    char* at = out_.room(text.size() + 2);
    *at++ = ':';
    std::memcpy(at, text.data(), text.size());
    at += text.size();
    *at++ = '\n';
    out_.commit(at);
  }
  // `field` right-aligned in 9 columns, ':', and the line number in 5.
  void append_field_and_number(std::string_view field, uint32_t line_num) {
    field = field.substr(0, 64);
    char* at = out_.room(9 + 64 + 1 + 16 + 20);
    at = put_padded(at, field, 9);
    *at++ = ':';
    out_.commit(line_numbers_.put(at, line_num));
  }
  // A line without code ("        -:"), the commonest, in two stores.
  static constexpr char kNoCode[] = "        -:";
  void append_no_code_and_number(uint32_t line_num) {
    char* at = out_.room(10 + 16 + 20);
    std::memcpy(at, kNoCode, 10);
    out_.commit(line_numbers_.put(at + 10, line_num));
  }
  // The same line whole, with its text: one check for room (the beginning
  // and the text apart, each a call and a check, were a sixth of the
  // renderer's instructions on sources that are mostly such lines).
  void no_code_line(uint32_t line_num) {
    const std::string_view text = line_text(line_num);
    char* at = out_.room(10 + 16 + 20 + text.size() + 2);
    std::memcpy(at, kNoCode, 10);
    at = line_numbers_.put(at + 10, line_num);
    *at++ = ':';
    std::memcpy(at, text.data(), text.size());
    at += text.size();
    *at++ = '\n';
    out_.commit(at);
  }
  // Whether the count and line number of a line go without colours or
  // hotness (line_beginning's plain path).
  bool plain_beginning(uint32_t maximum_count) const { return !o_.colors && !(o_.hotness && maximum_count); }
  // Source line `line_num` of the listing (the file's, or a function's of a
  // group) with its blocks and branches: a plain line without code written
  // whole in one step.
  void listed_line(const model::LineInfo& line, uint32_t line_num) {
    if (!line.exists && plain_beginning(src_.maximum_count)) {
      no_code_line(line_num);
    } else {
      line_beginning(line.exists, line.unexceptional, line.has_unexecuted_block, line.count, line_num, "=====",
                     "#####", src_.maximum_count);
      source_line(line_num);
    }
    if (!line.blocks.empty() || !line.branches.empty()) line_details(line, line_num);
  }
  // A count in 9 columns, '*' after it for a line with an unexecuted
  // block, ':', and the line number in 5.
  void append_count_and_number(uint64_t count, bool star, uint32_t line_num) {
    char* at = out_.room(16 + 20 + 1 + 1 + 16 + 20);
    if (star) {
      char digits[40];
      char* end = put_decimal(digits, count, 0);
      *end++ = '*';
      at = put_padded(at, std::string_view(digits, size_t(end - digits)), 9);
    } else {
      at = put_decimal(at, count, 9);
    }
    *at++ = ':';
    out_.commit(line_numbers_.put(at, line_num));
  }
  // The number of a block or branch line, in 2 columns.
  void put_index(int ix) { out_.commit(put_decimal(out_.room(16 + 20), uint64_t(ix), 2)); }
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
  TextBuffer out_;
  LineNumberText line_numbers_;
  std::string scratch_;  // the colours' and hotness' pieces
  const TextSink* sink_;  // where out_ goes when full, if anywhere
  // Handed to sink_ from this size on.
  // 16 KiB rather than 64: tinyxml2.cpp's 183 KB of .gcov text in 12
  // writes instead of 3, and a buffer (zeroed when sized) of 18 KiB
  // instead of 72, 13 fresh pages fewer, each dearer than a write.
  static constexpr size_t kPiece = size_t(16) << 10;
  void pass_on_if_full() {
    if (sink_ && out_.size() >= kPiece) {
      (*sink_)(out_.view());
      out_.clear();
    }
  }
};

void TextRenderer::line_beginning(bool exists, bool unexceptional, bool has_unexecuted_block, int64_t count,
                                  uint32_t line_num, std::string_view exceptional_string,
                                  std::string_view unexceptional_string, uint32_t maximum_count) {
  if (!o_.colors && !(o_.hotness && maximum_count)) {
    // Without colours, the count and the line number are written at once.
    if (!exists) {
      append_no_code_and_number(line_num);
    } else if (count > 0 && !o_.human) {
      append_count_and_number(uint64_t(count), has_unexecuted_block && session_.has_unexecuted_blocks(), line_num);
    } else if (count > 0) {
      char count_buf[64];
      std::string_view field = count_text(count_buf, count, o_.human);
      if (has_unexecuted_block && session_.has_unexecuted_blocks()) {
        count_buf[field.size()] = '*';
        field = std::string_view(count_buf, field.size() + 1);
      }
      append_field_and_number(field, line_num);
    } else {
      append_field_and_number(unexceptional ? unexceptional_string : exceptional_string, line_num);
    }
    return;
  }
  // With colours or hotness: made in a string of the renderer's, then written.
  std::string& text = scratch_;
  text.clear();
  if (!exists) {
    text.append(8, ' ');
    text += '-';
  } else if (count > 0) {
    if (has_unexecuted_block && session_.has_unexecuted_blocks()) {
      if (o_.colors) {
        text += sgr("45;37");
        append_count(text, count, o_.human, 9);
        text += kReset;
      } else {
        std::string s = fmt_count(count, 0, -1);
        s += '*';
        pad9(s);
        text += s;
      }
    } else {
      append_count(text, count, o_.human, 9);
    }
  } else if (o_.colors) {
    text += unexceptional ? sgr("41;37") : sgr("46;37");
    text.append(8, ' ');
    text += '0';
    text += kReset;
  } else {
    std::string_view mark = unexceptional ? unexceptional_string : exceptional_string;
    if (mark.size() < 9) text.append(9 - mark.size(), ' ');
    text += mark;
  }
  text += ':';
  if (o_.hotness && maximum_count) {
    // Wrapping products: the same answers as gcov for any count, without UB.
    const int64_t max = maximum_count;
    auto times = [count](uint64_t k) { return int64_t(uint64_t(count) * k); };
    if (times(2) > max)
      text += sgr("41");
    else if (times(5) > max)
      text += sgr("43");
    else if (times(10) > max)
      text += sgr("42");
    util::append_decimal(text, line_num, 5);
    text += kReset;
  } else {
    util::append_decimal(text, line_num, 5);
  }
  out_.put(text);
}

bool TextRenderer::branch_count(int ix, const model::Function& fn, const model::Arc& arc) {
  // The line's kind and what follows its number.
  std::string_view what, taken;
  if (arc.is_call_non_return) {
    what = "call   ";
    taken = " returned ";
  } else if (!arc.is_unconditional) {
    what = "branch ";
    taken = " taken ";
  } else if (o_.unconditional && !fn.blocks[arc.dst].is_call_return) {
    what = "unconditional ";
    taken = " taken ";
  } else {
    return false;
  }
  const int64_t src_count = fn.blocks[arc.src].count;
  // Written whole after one check for room (a check and a call per piece
  // were two fifths of a branch line's instructions; one is written for
  // each branch and call of every line with -b): the kind (<= 14 bytes),
  // the index (put_decimal: 16 + 20), the words (<= 10), the number
  // (gcov_number_text: 64), the suffix (<= 14) and the newline.
  constexpr size_t kRoom = 14 + 16 + 20 + 10 + 64 + 14 + 1;
  char* at = out_.room(kRoom);
  std::memcpy(at, what.data(), what.size());
  at = put_decimal(at + what.size(), uint64_t(ix), 2);
  if (src_count) {
    std::memcpy(at, taken.data(), taken.size());
    at += taken.size();
    const std::string_view number =
        arc.is_call_non_return
            ? gcov_number_text(at, model::sub_counts(src_count, arc.count), src_count, o_.counts ? -1 : 0, o_.human)
            : gcov_number_text(at, arc.count, src_count, o_.counts ? -1 : 0, o_.human);
    at += number.size();  // written in place: the text views `at`
    const bool conditional = !arc.is_call_non_return && !arc.is_unconditional;
    if (conditional && arc.fall_through) {
      std::memcpy(at, " (fallthrough)", 14);
      at += 14;
    } else if (conditional && arc.is_throw) {
      std::memcpy(at, " (throw)", 8);
      at += 8;
    }
  } else {
    std::memcpy(at, " never executed", 15);
    at += 15;
  }
  out_.commit(at);
  if (o_.verbose && !arc.is_call_non_return && !arc.is_unconditional)
    out_.put(fmt::format(" (BB {})", fn.blocks[arc.dst].id));
  out_.put('\n');
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
        out_.put("-block ");
        put_index(ix++);
        if (o_.verbose) out_.put(fmt::format(" (BB {})", b.id));
        out_.put('\n');
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
  // Written whole after one check for room, the numbers in place (a
  // formatted string per function was a few percent of the run; a check,
  // a copy and a call per piece ~130 instructions a function): the words
  // (<= 9 + 8 + 10 + 17), the name, three numbers (gcov_number_text: 64
  // each) and the newline.
  const std::string& name = session_.function_name(f);
  char* at = out_.room(9 + 8 + 10 + 17 + name.size() + 3 * 64 + 1);
  auto put = [&at](std::string_view piece) {
    std::memcpy(at, piece.data(), piece.size());
    at += piece.size();
  };
  put("function ");
  put(name);
  put(" called ");
  at += gcov_number_text(at, called_count, 0, -1, o_.human).size();
  put(" returned ");
  at += gcov_number_text(at, return_count, called_count, 0, o_.human).size();
  put(" blocks executed ");
  at += gcov_number_text(at, f.blocks_executed, fn.real_block_count(), 0, o_.human).size();
  *at++ = '\n';
  out_.commit(at);
}

std::string TextRenderer::run() {
  std::string messages;
  if (o_.colors)
    out_.put(fmt::format("{}Colorization: profile count: {}zero coverage (exceptional){} {}zero coverage "
                         "(unexceptional){} {}unexecuted block{}\n",
                         kLineStart, sgr("46"), kReset, sgr("41"), kReset, sgr("45"), kReset));
  if (o_.hotness)
    out_.put(fmt::format("{}Colorization: line numbers: hotness: {}> 50%{} {}> 20%{} {}> 10%{}\n", kLineStart,
                         sgr("41"), kReset, sgr("43"), kReset, sgr("42"), kReset));
  out_.put(fmt::format("{}Source:{}\n", kLineStart, entry_.display_name));
  if (!o_.multiple_files) {
    out_.put(fmt::format("{}Graph:{}\n", kLineStart, session_.notes_name()));
    out_.put(fmt::format("{}Data:{}\n", kLineStart, session_.no_data_file() ? "-" : session_.data_name()));
    out_.put(fmt::format("{}Runs:{}\n", kLineStart, session_.object_runs()));
  }
  auto file = util::read_source_file(entry_.name);  // named by the notes: their owners' rights
  if (!file)
    messages += fmt::format("Cannot open source file {}\n", entry_.name);
  else if (entry_.file_time == 0)
    out_.put(fmt::format("{}Source is newer than graph\n", kLineStart));
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
  // Handed on from kPiece: the buffer needs that and a line's worth more
  // (it grows if a line is longer). Sized in place, its pages are written:
  // no more than it needs.
  out_.reserve(sink_ ? std::min(estimate, kPiece + kPiece / 8) : estimate);

  uint32_t line_start_group = 0;
  std::span<model::SessionFunction*> fns;
  // The functions by first line, walked with the lines (a search for
  // every line, ~35 instructions each, was ~2% of the run).
  size_t next_start = 0;
  for (uint32_t line_num = 1; line_num <= lines_.size(); ++line_num) {
    if (line_num >= src_.lines.size()) {
      no_code_line(line_num);
      pass_on_if_full();
      continue;
    }
    const model::LineInfo& line = src_.lines[line_num];
    if (line_start_group == 0) {
      fns = src_.functions_at(line_num, next_start);
      if (fns.size() > 1) {
        // Functions may overlap partially: the group ends at the last end line.
        for (auto* f : fns)
          if (f->fn.end_line > line_start_group) line_start_group = f->fn.end_line;
      } else if (fns.size() == 1) {
        function_details(*fns.front());
      }
    }
    listed_line(line, line_num);
    if (line_start_group == line_num) {
      for (model::SessionFunction* f : fns) {
        out_.put(kSeparator);
        if (o_.colors) out_.put(sgr("36"));
        out_.put(session_.function_name(*f));
        if (o_.colors) out_.put(kReset);
        out_.put(":\n");
        function_details(*f);
        for (size_t i = 0; i < f->lines.size(); ++i) {
          const model::LineInfo& fl = f->lines[i];
          uint32_t l = uint32_t(f->fn.start_line + i);
          listed_line(fl, l);
          pass_on_if_full();
        }
      }
      out_.put(kSeparator);
      line_start_group = 0;
    }
    pass_on_if_full();
  }
  if (sink_) {
    // All handed on; the buffer keeps its size (unspecified contents) for
    // the next source: shrunk, it would be filled with zeros again.
    if (out_.size()) (*sink_)(out_.view());
  } else {
    out_.finish();
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
