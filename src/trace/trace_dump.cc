#include "trace/trace_dump.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <tuple>

#include "format/trace_event_reader.h"
#include "format/trace_file_names.h"
#include "format/trace_stream_decoder.h"
#include "format/trace_stream_records.h"
#include "runtime/trace/trace_contract.h"
#include "trace/symbol_memo.h"
#include "util/append_number.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/plural.h"
#include "util/printable.h"

namespace covkit::trace {

namespace {

namespace fs = std::filesystem;

// A trace file, in the order of the dump: image by image, its .meta first,
// then its streams by tid.
struct DumpFile {
  uint32_t pid = 0, image = 0, tid = 0, sequence = 0;
  bool stream = false;
  std::string name;
  auto key() const { return std::tie(pid, image, stream, tid, sequence, name); }
};

// One line of the event listing: time (s.ns), tid, event, depth, function,
// in the columns of its heading ("{:>20} {:>7} {:<6} {:>5}  {}").
void append_event(std::string& out, uint64_t ns, uint32_t tid, std::string_view event, size_t depth,
                  std::string_view function) {
  util::append_seconds(out, ns, 20);
  out += ' ';
  util::append_decimal(out, tid, 7);
  out += ' ';
  out += event;
  out.append(event.size() < 6 ? 6 - event.size() : 0, ' ');
  out += ' ';
  util::append_decimal(out, depth, 5);
  out += "  ";
  out += function;
  out += '\n';
}

uint64_t le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

void dump_meta(const std::string& path, const std::string& name, const TextSink& out, DumpStats& stats) {
  auto data = util::read_input_file(path);
  if (data) util::note_data_file(path, *data);
  if (!data) {
    stats.damage.push_back(fmt::format("{}: {}", util::printable(path), data.error().describe()));
    out(fmt::format("== {} ==\n!! cannot read: {}\n\n", util::printable(name), data.error().describe()));
    return;
  }
  std::string_view text = data->text();
  out(fmt::format("== {} ({} bytes) ==\n", util::printable(name), text.size()));
  size_t line = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view l = text.substr(0, nl);
    ++stats.records;
    out(fmt::format("{:>6}: {}{}\n", ++line, util::printable(l),
                    nl == std::string_view::npos ? "   [no newline: readers ignore this line]" : ""));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  out("\n");
}

std::string record_fields(const format::StreamRecord& r) {
  using K = format::StreamRecord::Kind;
  switch (r.kind) {
    case K::kEnter: return fmt::format("id {}", r.id);
    case K::kExit: return "";
    case K::kDefine: return fmt::format("id {} address 0x{:x}", r.id, r.address);
    case K::kLost: return fmt::format("count {}", r.count);
    case K::kStack: {
      std::string s = fmt::format("frames {}:", r.count);
      for (uint64_t id : r.frames) s += fmt::format(" {}", id);
      if (r.count > r.frames.size()) s += fmt::format(" ... ({} more)", r.count - r.frames.size());
      return s;
    }
    case K::kEnd: return "";
    case K::kSync:
      return fmt::format("counter {} offset {}{}", r.sync_counter, r.sync_offset,
                         r.sync_offset == r.offset ? "" : "  [not its own offset: not a restart point]");
  }
  return "";
}

const char* record_kind(format::StreamRecord::Kind k) {
  using K = format::StreamRecord::Kind;
  switch (k) {
    case K::kEnter: return "enter";
    case K::kExit: return "exit";
    case K::kDefine: return "define";
    case K::kLost: return "lost";
    case K::kStack: return "stack";
    case K::kEnd: return "end";
    case K::kSync: return "sync";
  }
  return "?";
}

void dump_stream(const std::string& path, const std::string& name, const TextSink& out, DumpStats& stats) {
  auto damaged = [&](uint64_t offset, const std::string& what) {
    stats.damage.push_back(fmt::format("{}: byte {}: {}", util::printable(path), offset, what));
    out(fmt::format("!! byte {}: {}\n\n", offset, what));
  };
  auto opened = format::StreamBytes::open(path);
  if (!opened) {
    out(fmt::format("== {} ==\n", util::printable(name)));
    stats.damage.push_back(fmt::format("{}: {}", util::printable(path), opened.error().describe()));
    out(fmt::format("!! cannot read: {}\n\n", opened.error().describe()));
    return;
  }
  const format::StreamBytes& bytes = *opened;
  const uint64_t size = bytes.size();
  out(fmt::format("== {} ({} bytes) ==\n", util::printable(name), size));
  uint8_t h[format::kTraceHeaderSize] = {};
  const ssize_t got = bytes.read(0, h, sizeof h);
  if (got <= 0 || std::all_of(h, h + got, [](uint8_t c) { return c == 0; })) {
    out("no header yet (an empty or all-zero file: the thread's stream was just created)\n\n");
    return;
  }
  std::vector<std::string> warnings;
  format::StreamHeader header;
  if (format::parse_stream_header(std::span<const uint8_t>(h, size_t(got)), path, header, warnings) !=
      format::StreamStatus::kOk) {
    const std::string& w = warnings.empty() ? std::string("not a stream") : warnings.front();
    // The warning names the file and offset already: keep what follows them.
    const std::string prefix = util::printable(path) + ": byte 0: ";
    damaged(0, w.compare(0, prefix.size(), prefix) == 0 ? w.substr(prefix.size()) : w);
    return;
  }
  const uint32_t flags = uint32_t(le(h + CKT_HDR_FLAGS, 4));
  std::string flag_names;
  if (flags & CKT_FLAG_ENDED) flag_names += " ended";
  if (flags & CKT_FLAG_COUNTS) flag_names += " counts";
  if (flags & ~uint32_t(CKT_FLAG_ENDED | CKT_FLAG_COUNTS)) flag_names += " unknown-bits";
  out(fmt::format("header: magic {}  pid {}  tid {}  start {}  flags 0x{:x}{}{}  chunk {}\n",
                  std::string(reinterpret_cast<const char*>(h), 8), header.pid, header.tid, header.start, flags,
                  flag_names.empty() ? "" : " (", flag_names.empty() ? "" : flag_names.substr(1) + ")", header.chunk));
  out(fmt::format("        calls {}  events {}  lost {}  reserved {}{}\n", le(h + CKT_HDR_CALLS, 8),
                  le(h + CKT_HDR_EVENTS, 8), le(h + CKT_HDR_LOST, 8), le(h + 56, 8),
                  flags & CKT_FLAG_COUNTS ? "" : "  [counts not filled in: the thread did not end]"));
  out(fmt::format("{:>10} {:>4} {:<6} {:>4} {:>12} {:>20}  {}\n", "offset", "size", "kind", "lead", "delta",
                  "counter", "fields"));
  format::StreamRecordWalker walker(bytes, header.start);
  format::StreamRecord r;
  bool end_record = false;
  for (;;) {
    const auto step = walker.next(r);
    if (step == format::StreamRecordWalker::Step::kRecord) {
      ++stats.records;
      end_record |= r.kind == format::StreamRecord::Kind::kEnd;
      std::string line = fmt::format("{:>10} {:>4} {:<6} 0x{:02x} {:>12} {:>20}  {}", r.offset, r.size,
                                     record_kind(r.kind), r.lead, r.delta, r.time, record_fields(r));
      line.erase(line.find_last_not_of(' ') + 1);
      out(line + "\n");
      continue;
    }
    if (step == format::StreamRecordWalker::Step::kEnd) {
      if (walker.zero_tail())
        out(fmt::format("{:>10}      end of data: a zero byte ({} zero bytes to the end of the file)\n\n",
                        walker.end_offset(), size - walker.end_offset()));
      else
        out(fmt::format("{:>10}      end of the file\n\n", walker.end_offset()));
      // The runtime sets the flag after writing the end record.
      if ((flags & CKT_FLAG_ENDED) && !end_record)
        damaged(walker.end_offset(), "the header says the thread ended, but the stream stops here without its end "
                                     "event (cut short?)");
    } else {
      damaged(walker.damage_offset(), walker.damage());
    }
    return;
  }
}

}  // namespace

Expected<DumpStats> dump_trace_raw(const std::string& dir, const TextSink& out) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return Error(ec.message());
  std::vector<DumpFile> files;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Error(ec.message());
    std::string name = it->path().filename().string();
    if (auto m = format::parse_meta_name(name)) {
      files.push_back({.pid = m->pid, .image = m->sequence, .name = name});
    } else if (auto s = format::parse_stream_name(name)) {
      files.push_back({.pid = s->image.pid, .image = s->image.sequence, .tid = s->tid, .sequence = s->sequence,
                       .stream = true, .name = name});
    }
  }
  if (ec) return Error(ec.message());
  if (files.empty()) return Error("no trace files (IMAGE.meta, IMAGE-TID.ckt) in it");
  std::sort(files.begin(), files.end(), [](const DumpFile& a, const DumpFile& b) { return a.key() < b.key(); });
  DumpStats stats;
  for (const DumpFile& f : files) {
    ++stats.files;
    const std::string path = (fs::path(dir) / f.name).string();
    if (f.stream)
      dump_stream(path, f.name, out, stats);
    else
      dump_meta(path, f.name, out, stats);
  }
  return stats;
}

DumpStats dump_trace_events(const format::TraceSet& trace, const SymbolLookup& symbols, const TextSink& out) {
  DumpStats stats;
  // Each function's name once (symbol_memo.h), the lines appended to a
  // buffer that goes out 64 KiB at a time: a lookup and an fmt::format per
  // event made the listing slower than uftrace dump's.
  // A symbol's name is its program's owner's bytes: a line break in it would
  // forge event lines, an escape sequence act on a terminal (as trace report).
  SymbolMemo<std::string> names(symbols,
                                [](const SymbolInfo& sym, std::string& name) { name = util::printable(sym.name); });
  constexpr size_t kBuffer = size_t(64) << 10;
  std::string text;
  for (const format::TraceProcess& p : trace.processes) {
    const format::TraceClock to_ns = p.clock();
    for (const format::TraceThread& t : p.threads) {
      ++stats.files;
      out(fmt::format("== process {} ({}) thread {} ({}): {} ==\n", p.pid, util::printable(p.exe), t.tid,
                      util::printable(format::thread_display_name(t)), util::printable(t.file)));
      out(fmt::format("{:>20} {:>7} {:<6} {:>5}  {}\n", "time", "tid", "event", "depth", "function"));
      std::vector<std::string> warnings;
      format::TraceEventReader reader(t, warnings, format::EventReadOptions{.lost_events = true});
      std::vector<const std::string*> open;  // the names of the open frames (the memo's): depth, not events
      auto block = reader.next();
      for (uint64_t address : reader.summary().initial_stack) {
        open.push_back(&names(p, address, t.start));
        append_event(text, to_ns(t.start), t.tid, "stack", open.size(), *open.back());
      }
      static const std::string kNone;
      for (; !block.empty(); block = reader.next()) {
        for (const format::TraceEvent& e : block) {
          ++stats.records;
          switch (e.kind) {
            case format::TraceEvent::Kind::kEnter:
              open.push_back(&names(p, e.address, e.time));
              append_event(text, to_ns(e.time), t.tid, "enter", open.size(), *open.back());
              break;
            case format::TraceEvent::Kind::kExit:
              append_event(text, to_ns(e.time), t.tid, "exit", open.size(), open.empty() ? kNone : *open.back());
              if (!open.empty()) open.pop_back();
              break;
            case format::TraceEvent::Kind::kLost:
              append_event(text, to_ns(e.time), t.tid, "lost", open.size(), fmt::format("{} events lost", e.address));
              break;
          }
          if (text.size() >= kBuffer) {
            out(text);
            text.clear();
          }
        }
      }
      out(text);
      text.clear();
      const format::StreamSummary& s = reader.summary();
      out(fmt::format("{}, {}, {} lost; {}{}\n\n", util::count_of(s.events, "event"), util::count_of(s.calls, "call"),
                      s.lost,
                      s.ended ? "the thread ended" : s.truncated ? "cut inside an event" : "the thread did not end",
                      open.empty() ? "" : fmt::format(", {} still open", util::count_of(open.size(), "frame"))));
      for (std::string& w : warnings) stats.damage.push_back(std::move(w));
    }
  }
  return stats;
}

}  // namespace covkit::trace
