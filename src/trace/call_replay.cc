#include "trace/call_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <list>
#include <utility>

#include "trace/call_graph_model.h"
#include "trace/symbol_memo.h"
#include "trace/thread_merge.h"
#include "util/append_number.h"
#include "util/printable.h"

namespace covkit::trace {

namespace {

// A line that may be written: an enter (`f() {`, or `f();` when its return
// comes next), a return (`} /* f */`), or a note (events lost). Lines wait
// in time order until each one is known to be shown (a call waits until it
// has lasted the time filter's T, or returned) and, for an enter, until the
// next shown line says whether it is a leaf.
struct Line {
  enum class Kind : uint8_t { kEnter, kExit, kLost };
  Kind kind = Kind::kEnter;
  bool pending = false;     // an enter whose call may still prove too short
  bool inherited = false;   // an enter of a frame open when a forked child's stream began
  bool open_end = false;    // a return made up for a call still open at the end
  size_t thread = 0;
  size_t frame = 0;         // enter: its frame's index in the thread's stack
  int depth = 0;            // indentation
  uint64_t ns = 0;          // when
  uint64_t begin_ns = 0;    // exit: when the call began
  uint64_t count = 0;       // lost
  const std::string* name = nullptr;     // shown name ("main", "f(int)"), kept by the Replay's memo
  const std::string* comment = nullptr;  // in the closing comment ("main", "f")
  Line* partner = nullptr;  // an enter's queued return, a return's queued enter
  std::list<Line>::iterator self;  // where it is queued
};

struct ReplayFrame {
  uint64_t begin_ns = 0;
  int depth = -1;          // indentation; -1: hidden by -F, -N or --depth
  Line* line = nullptr;    // its enter while queued
  const std::string* comment = nullptr;  // for its return once the enter is written
};

struct ThreadState {
  std::vector<ReplayFrame> stack;
  long notrace_at = -1;  // index of the outermost open frame -N named
  long filter_at = -1;   // index of the outermost open frame -F named
};

bool ends_with_component(const std::string& name, const std::string& tail) {
  return name.size() > tail.size() + 2 && name.compare(name.size() - tail.size(), tail.size(), tail) == 0 &&
         name.compare(name.size() - tail.size() - 2, 2, "::") == 0;
}

class Replay {
 public:
  Replay(const ReplayOptions& o, const SymbolLookup& symbols, const TextSink& out, ThreadMerge& merge,
         ReplayStats& stats)
      : o_(o), out_(out), merge_(merge), stats_(stats), threads_(merge.threads().size()),
        filter_hits_(o.filters.size()), notrace_hits_(o.notrace.size()),
        shown_(symbols, [this](const SymbolInfo& sym, Shown& shown) { make_shown(sym, shown); }) {
    buffer_.reserve(kBuffer + 4096);
  }

  void run() {
    header();
    MergedEvent e;
    while (merge_.next(e)) {
      if (o_.min_ns > 0) confirm(e.ns);
      switch (e.kind) {
        case MergedEvent::Kind::kStart:
          for (uint64_t address : *e.frames) enter(e.thread, address, e.counter, e.ns, true);
          break;
        case MergedEvent::Kind::kEnter: enter(e.thread, e.address, e.counter, e.ns, false); break;
        case MergedEvent::Kind::kExit: exit(e.thread, e.ns, false); break;
        case MergedEvent::Kind::kLost: lost(e.thread, e.ns, e.count); break;
        case MergedEvent::Kind::kFinish:
          while (!threads_[e.thread].stack.empty()) exit(e.thread, e.ns, true);
          break;
      }
      flush(false);
    }
    flush(true);
    write_out();
    for (size_t i = 0; i < o_.filters.size(); ++i)
      if (!filter_hits_[i]) stats_.unmatched.push_back(o_.filters[i]);
    for (size_t i = 0; i < o_.notrace.size(); ++i)
      if (!notrace_hits_[i]) stats_.unmatched.push_back(o_.notrace[i]);
  }

 private:
  // What the replay shows of a function, made once per function
  // (symbol_memo.h): its names and whether -F or -N name it.
  struct Shown {
    std::string name, comment;
    bool filter = false, notrace = false;
  };

  // Names shown through printable(), as trace report shows them: they are
  // the program's owner's bytes, and a line break would forge replay lines.
  void make_shown(const SymbolInfo& sym, Shown& s) {
    if (sym.known) {
      s.comment = function_base_name(sym.name);
      s.name = util::printable(s.comment == sym.name ? sym.name + "()" : sym.name);
      s.comment = util::printable(s.comment);
    } else {
      s.name = s.comment = util::printable(sym.name);
    }
    for (size_t i = 0; i < o_.filters.size(); ++i)
      if (replay_name_matches(sym.name, o_.filters[i])) s.filter = filter_hits_[i] = true;
    for (size_t i = 0; i < o_.notrace.size(); ++i)
      if (replay_name_matches(sym.name, o_.notrace[i])) s.notrace = notrace_hits_[i] = true;
  }

  void enter(size_t thread, uint64_t address, uint64_t counter, uint64_t ns, bool inherited) {
    ThreadState& t = threads_[thread];
    const size_t index = t.stack.size();
    ReplayFrame f;
    f.begin_ns = ns;
    const Shown& m = shown_(*merge_.threads()[thread].process, address, counter);
    bool shown = true;
    if (t.notrace_at >= 0) {
      shown = false;
    } else if (m.notrace) {
      t.notrace_at = long(index);
      shown = false;
    }
    long from = 0;
    if (!o_.filters.empty()) {
      if (t.filter_at < 0 && m.filter) t.filter_at = long(index);
      if (t.filter_at < 0) shown = false;
      from = t.filter_at;
    }
    const long depth = long(index) - from;
    if (o_.depth >= 0 && depth >= o_.depth) shown = false;
    if (shown) {
      f.depth = int(depth);
      Line& l = queue();
      l.kind = Line::Kind::kEnter;
      l.pending = o_.min_ns > 0;
      l.inherited = inherited;
      l.thread = thread;
      l.frame = index;
      l.depth = f.depth;
      l.ns = ns;
      l.name = &m.name;
      l.comment = &m.comment;
      f.comment = l.comment;
      f.line = &l;
    }
    t.stack.push_back(f);
  }

  void exit(size_t thread, uint64_t ns, bool open_end) {
    ThreadState& t = threads_[thread];
    if (t.stack.empty()) return;
    const size_t index = t.stack.size() - 1;
    ReplayFrame f = t.stack.back();
    t.stack.pop_back();
    if (t.notrace_at == long(index)) t.notrace_at = -1;
    if (t.filter_at == long(index)) t.filter_at = -1;
    if (f.depth < 0) return;
    Line* enter = f.line;
    if (enter && enter->pending) {
      if (ns - f.begin_ns < o_.min_ns) {  // too short: neither line is shown
        erase(enter);
        return;
      }
      enter->pending = false;
    }
    Line& l = queue();
    l.kind = Line::Kind::kExit;
    l.open_end = open_end;
    l.thread = thread;
    l.depth = f.depth;
    l.ns = ns;
    l.begin_ns = f.begin_ns;
    l.partner = enter;
    if (enter) {
      enter->partner = &l;
      l.name = enter->name;
      l.comment = enter->comment;
    } else {
      l.comment = f.comment;
    }
  }

  void lost(size_t thread, uint64_t ns, uint64_t count) {
    const ThreadState& t = threads_[thread];
    long depth = long(t.stack.size()) - (o_.filters.empty() ? 0 : std::max(t.filter_at, 0L));
    Line& l = queue();
    l.kind = Line::Kind::kLost;
    l.thread = thread;
    l.depth = int(std::max(depth, 0L));
    l.ns = ns;
    l.count = count;
  }

  // Calls that have lasted T by `now` are shown, whatever comes.
  void confirm(uint64_t now) {
    for (Line& l : lines_) {
      if (!l.pending) continue;
      if (now - l.ns < o_.min_ns) break;  // later lines began later still
      l.pending = false;
    }
  }

  Line& queue() {
    Line& l = lines_.emplace_back();
    l.self = std::prev(lines_.end());
    return l;
  }

  void erase(Line* l) { lines_.erase(l->self); }

  // Writes the lines at the front that are known; `all`: nothing more comes.
  void flush(bool all) {
    while (!lines_.empty()) {
      Line& head = lines_.front();
      if (head.pending) return;
      if (head.kind == Line::Kind::kEnter) {
        auto next = std::next(lines_.begin());
        if (next == lines_.end() && !all) return;
        if (next != lines_.end() && next->pending) return;
        if (next != lines_.end() && &*next == head.partner) {
          write(head, &*next);
          lines_.pop_front();
          lines_.pop_front();
          continue;
        }
        write(head, nullptr);
        // Its return, queued or to come, now closes a written `{`.
        if (head.partner) {
          head.partner->partner = nullptr;
        } else {
          ThreadState& t = threads_[head.thread];
          if (head.frame < t.stack.size() && t.stack[head.frame].line == &head) t.stack[head.frame].line = nullptr;
        }
      } else {
        write(head, nullptr);
      }
      lines_.pop_front();
    }
  }

  void header() {
    std::string h = o_.duration ? "# DURATION     TID" : "#    TID";
    if (o_.timestamp) h += "          TIMESTAMP";
    h.resize(function_column(), ' ');
    h += "FUNCTION\n";
    out_(h);
  }

  size_t function_column() const {
    return (o_.duration ? 12 : 0) + 8 + (o_.timestamp ? 19 : 0) + 3;
  }

  // `leaf_exit`: the enter is written as `f();` with this return. Lines
  // are appended to a buffer that goes out 64 KiB at a time.
  void write(const Line& l, const Line* leaf_exit) {
    std::string& s = buffer_;
    if (o_.duration) {
      if (leaf_exit)
        append_replay_duration(s, leaf_exit->ns - l.ns);
      else if (l.kind == Line::Kind::kExit)
        append_replay_duration(s, l.ns - l.begin_ns);
      else
        s.append(11, ' ');
      s += ' ';
    }
    s += '[';
    util::append_decimal(s, merge_.threads()[l.thread].thread->tid, 6);
    s += ']';
    if (o_.timestamp) {
      s += ' ';
      util::append_seconds(s, l.ns, 18);
    }
    s += " | ";
    s.append(size_t(l.depth) * 2, ' ');
    switch (l.kind) {
      case Line::Kind::kEnter:
        s += *l.name;
        if (leaf_exit) {
          s += ';';
          if (leaf_exit->open_end) s += " /* open at the end */";
        } else {
          s += " {";
        }
        if (l.inherited) s += " /* before fork */";
        break;
      case Line::Kind::kExit:
        s += "} /* ";
        s += *l.comment;
        s += l.open_end ? " (open at the end) */" : " */";
        break;
      case Line::Kind::kLost:
        s += fmt::format("/* {} events lost */", l.count);
        break;
    }
    s += '\n';
    ++stats_.lines;
    if (s.size() >= kBuffer) write_out();
  }

  void write_out() {
    out_(buffer_);
    buffer_.clear();
  }

  static constexpr size_t kBuffer = size_t(64) << 10;

  const ReplayOptions& o_;
  const TextSink& out_;
  ThreadMerge& merge_;
  ReplayStats& stats_;
  std::vector<ThreadState> threads_;
  std::list<Line> lines_;
  std::vector<bool> filter_hits_, notrace_hits_;
  SymbolMemo<Shown> shown_;
  std::string buffer_;  // lines not yet handed to out_
};

}  // namespace

bool replay_name_matches(const std::string& name, const std::string& func) {
  if (func.empty()) return false;
  if (name == func) return true;
  const std::string base = function_base_name(name);
  return base == func || ends_with_component(base, func);
}

std::string format_replay_duration(uint64_t ns) {
  std::string out;
  append_replay_duration(out, ns);
  return out;
}

void append_replay_duration(std::string& out, uint64_t ns) {
  // The number below 1000 in the unit, three decimals; seconds past that.
  uint64_t whole = ns / 1000000000, part = ns / 1000000 % 1000;
  const char* unit = "  s";
  if (ns < 1000000) {
    whole = ns / 1000, part = ns % 1000, unit = " us";
  } else if (ns < 1000000000) {
    whole = ns / 1000000, part = ns / 1000 % 1000, unit = " ms";
  }
  util::append_decimal(out, whole, 4);
  util::append_fraction(out, part, 3);
  out += unit;
}

void write_replay(const format::TraceSet& trace, const SymbolLookup& symbols, const ReplayOptions& options,
                  const TextSink& out, ReplayStats* stats) {
  ReplayStats counted;
  std::vector<MergedThread> threads;
  for (const format::TraceProcess& p : trace.processes)
    for (const format::TraceThread& t : p.threads)
      if (options.tids.empty() || std::find(options.tids.begin(), options.tids.end(), t.tid) != options.tids.end())
        threads.push_back({&p, &t});
  counted.threads = threads.size();
  {
    ThreadMerge merge(std::move(threads), counted.warnings);
    Replay(options, symbols, out, merge, counted).run();
  }
  if (stats) *stats = std::move(counted);
}

}  // namespace covkit::trace
