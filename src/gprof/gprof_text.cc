// gprof's printing (hist.c: hist_print; cg_print.c: cg_print,
// cg_print_index; utils.c: print_name), formatted with the C library's
// printf so that every rounding is the same as gprof's.
#include "gprof/gprof_text.h"

#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gprof/gprof_sort.h"
#include "util/demangle.h"

namespace covkit::trace {

namespace {

// gprof prints (long) hist_scale * sizeof (UNIT) and leaves the overflow of
// a hostile histogram (a range near 2^64 bytes in one bucket) to the
// machine; this is the same number, defined: x86-64's conversion (2^63 and
// above give INT64_MIN) and a two's-complement wrap.
long granularity_bytes(double hist_scale) {
  const uint64_t units = hist_scale < 9223372036854775808.0 ? uint64_t(int64_t(hist_scale)) : uint64_t(1) << 63;
  return long(units * 2u);
}

constexpr int kLess = -1, kEqual = 0, kGreater = 1;

[[gnu::format(printf, 2, 3)]] void appendf(std::string& out, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (size_t(n) < sizeof buf) {
    out.append(buf, size_t(n));
    return;
  }
  std::string big(size_t(n) + 1, '\0');
  va_start(ap, fmt);
  std::vsnprintf(big.data(), big.size(), fmt, ap);
  va_end(ap);
  out.append(big.data(), size_t(n));
}

using ulong = unsigned long;

struct Printer {
  GprofProfile& p;
  const GprofTextOptions& o;
  std::string out;
  bool first_output = true;

  GprofNode& node(size_t i) { return p.nodes[i]; }

  // utils.c: print_name_only; the number of characters printed.
  size_t name_only(const GprofNode& n) {
    // gprof demangles only in its GNU layout.
    std::string s = o.bsd ? n.name : gprof_display_name(n.name);
    out += s;
    return s.size();
  }

  void name(const GprofNode& n) {
    name_only(n);
    if (n.cycle != 0) appendf(out, " <cycle %d>", n.cycle);
    if (n.index != 0) appendf(out, n.print_flag ? " [%d]" : " (%d)", n.index);
  }

  void flat() {
    if (first_output)
      first_output = false;
    else
      out += "\f\n";
    if (!o.bsd) out += "Flat profile:\n";  // BSD's title comes only with the explanations
    std::vector<size_t> order(p.function_count);
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    glibc_merge_sort(order, [&](size_t li, size_t ri) {
      const GprofNode& l = p.nodes[li];
      const GprofNode& r = p.nodes[ri];
      const double diff = r.time - l.time;
      if (diff > 0.0) return 1;
      if (diff < 0.0) return -1;
      if (r.ncalls > l.ncalls) return 1;
      if (r.ncalls < l.ncalls) return -1;
      return std::strcmp(l.name.c_str(), r.name.c_str());
    });
    // The unit of the per-call columns: the SI prefix that puts the largest
    // time per call between 1 and 1000.
    static constexpr struct {
      char prefix;
      double scale;
    } kSi[] = {{'T', 1e-12}, {'G', 1e-09}, {'M', 1e-06}, {'K', 1e-03}, {' ', 1e-00}, {'m', 1e+03},
               {'u', 1e+06}, {'n', 1e+09}, {'p', 1e+12}, {'f', 1e+15}, {'a', 1e+18}};
    constexpr size_t kSeconds = 4;  // ' '
    size_t log_scale = 0;
    double top_time = 0.0;
    bool top = false;
    for (size_t i : order) {
      if (o.bsd) break;  // BSD: always milliseconds
      const GprofNode& s = p.nodes[i];
      if (s.ncalls == 0) continue;
      const double call_time = (s.time + s.child_time) / double(s.ncalls);
      if (call_time > top_time) {
        top = true;
        top_time = call_time;
      }
    }
    if (o.bsd) {
      log_scale = 5;
    } else if (top && top_time > 0.0) {
      top_time /= p.hz;
      for (log_scale = 0; log_scale < std::size(kSi); ++log_scale) {
        const double scaled = kSi[log_scale].scale * top_time;
        if (scaled >= 1.0 && scaled < 1000.0) break;
      }
      // No prefix fits: gprof reads past its table and prints whatever
      // character lies there. covkit says the unit the numbers are in:
      // seconds when they are not numbers at all (a profiling rate of 0
      // makes every time inf: "s/call"), else the nearest end of the table
      // (terasecond for longer times, attosecond for shorter ones).
      if (log_scale == std::size(kSi))
        log_scale = !std::isfinite(top_time) ? kSeconds : top_time >= 1.0 ? 0 : std::size(kSi) - 1;
    }
    const char prefix = kSi[log_scale].prefix;
    const double scale = kSi[log_scale].scale;
    char unit[64];
    std::snprintf(unit, sizeof unit, "%c%c/call", prefix, p.dimension_abbrev);
    double total_time = p.total_time;
    if (o.bsd) {
      appendf(out, "\ngranularity: each sample hit covers %ld byte(s)", granularity_bytes(p.hist_scale));
      if (total_time > 0.0)
        appendf(out, " for %.2f%% of %.2f %s\n\n", 100.0 / total_time, total_time / p.hz, p.dimension.c_str());
    } else {
      appendf(out, "\nEach sample counts as %g %s.\n", 1.0 / p.hz, p.dimension.c_str());
    }
    if (total_time <= 0.0) {
      out += " no time accumulated\n\n";
      total_time = 1.0;
    }
    appendf(out, "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "%  ", "cumulative", "self  ", "", "self  ",
            "total ", "");
    appendf(out, "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "time", p.dimension.c_str(),
            p.dimension.c_str(), "calls", unit, unit, "name");
    double accum_time = 0.0;
    for (size_t i : order) {
      const GprofNode& s = p.nodes[i];
      if (!s.flat_selected || (o.ignore_zeros && s.ncalls == 0 && s.time == 0)) continue;
      accum_time += s.time;
      appendf(out, o.bsd ? "%5.1f %10.2f %8.2f" : "%6.2f %9.2f %8.2f",
              total_time > 0.0 ? 100 * s.time / total_time : 0.0, accum_time / p.hz, s.time / p.hz);
      if (s.ncalls != 0)
        appendf(out, " %8lu %8.2f %8.2f  ", ulong(s.ncalls), scale * s.time / p.hz / double(s.ncalls),
                scale * (s.time + s.child_time) / p.hz / double(s.ncalls));
      else
        appendf(out, " %8.8s %8.8s %8.8s  ", "", "", "");
      if (o.bsd)
        name(s);
      else
        name_only(s);
      out += "\n";
    }
  }

  // cg_print.c: cmp_arc.
  int cmp_arc(const GprofArc& l, const GprofArc& r) {
    const GprofNode& lp = node(l.parent);
    const GprofNode& lc = node(l.child);
    const GprofNode& rp = node(r.parent);
    const GprofNode& rc = node(r.child);
    if (l.parent == l.child) return kLess;
    if (r.parent == r.child) return kGreater;
    const bool l_in = lp.cycle != 0 && lc.cycle != 0 && lp.cycle == lc.cycle;
    const bool r_in = rp.cycle != 0 && rc.cycle != 0 && rp.cycle == rc.cycle;
    if (l_in) {
      if (!r_in) return kLess;
      if (l.count < r.count) return kLess;
      if (l.count > r.count) return kGreater;
      return kEqual;
    }
    if (r_in) return kGreater;
    const double lt = l.time + l.child_time, rt = r.time + r.child_time;
    if (lt < rt) return kLess;
    if (lt > rt) return kGreater;
    if (l.count < r.count) return kLess;
    if (l.count > r.count) return kGreater;
    return kEqual;
  }

  // Insertion sorts of sort_parents (ascending, a new arc before its
  // equals) and sort_children (descending, likewise).
  void sort_arcs(std::vector<size_t>& list, bool ascending) {
    std::vector<size_t> sorted;
    for (size_t a : list) {
      size_t at = 0;
      for (; at < sorted.size(); ++at) {
        const int c = cmp_arc(p.arcs[a], p.arcs[sorted[at]]);
        if (ascending ? c != kGreater : c != kLess) break;
      }
      sorted.insert(sorted.begin() + long(at), a);
    }
    list = std::move(sorted);
  }

  void graph_header() {
    if (first_output)
      first_output = false;
    else
      out += "\f\n";
    if (!o.bsd) out += "\t\t\tCall graph\n\n";
    appendf(out, "\ngranularity: each sample hit covers %ld byte(s)", granularity_bytes(p.hist_scale));
    if (p.print_time > 0.0) {
      appendf(out, " for %.2f%% of %.2f seconds\n\n", 100.0 / p.print_time, p.print_time / p.hz);
    } else {
      out += " no time propagated\n\n";
      p.print_time = 1.0;
    }
    if (o.bsd) {
      appendf(out, "%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n", "", "", "", "", "called", "total", "parents");
      appendf(out, "%-6.6s %5.5s %7.7s %11.11s %7.7s+%-7.7s %-8.8s\t%5.5s\n", "index", "%time", "self",
              "descendants", "called", "self", "name", "index");
      appendf(out, "%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n", "", "", "", "", "called", "total", "children");
      out += "\n";
    } else {
      out += "index % time    self  children    called     name\n";
    }
  }

  void cycle(size_t ci) {
    GprofNode& c = node(ci);
    char buf[32];
    std::snprintf(buf, sizeof buf, "[%d]", c.index);
    appendf(out, o.bsd ? "%-6.6s %5.1f %7.2f %11.2f %7lu" : "%-6.6s %5.1f %7.2f %7.2f %7lu", buf, 100 * (c.prop_self + c.prop_child) / p.print_time,
            c.prop_self / p.hz, c.prop_child / p.hz, ulong(c.ncalls));
    if (c.self_calls != 0)
      appendf(out, "+%-7lu", ulong(c.self_calls));
    else
      appendf(out, " %7.7s", "");
    appendf(out, " <cycle %d as a whole> [%d]\n", c.cycle, c.index);
    // sort_members: insertion sort, descending by time then calls, stable.
    std::vector<size_t> sorted;
    for (size_t m : c.members) {
      const GprofNode& d = node(m);
      size_t at = 0;
      for (; at < sorted.size(); ++at) {
        const GprofNode& e = node(sorted[at]);
        const double dt = d.prop_self + d.prop_child, et = e.prop_self + e.prop_child;
        const uint64_t dc = d.ncalls + d.self_calls, ec = e.ncalls + e.self_calls;
        if (dt > et || (dt == et && dc > ec)) break;
      }
      sorted.insert(sorted.begin() + long(at), m);
    }
    c.members = sorted;
    for (size_t m : c.members) {
      const GprofNode& n = node(m);
      appendf(out, o.bsd ? "%6.6s %5.5s %7.2f %11.2f %7lu" : "%6.6s %5.5s %7.2f %7.2f %7lu", "", "", n.prop_self / p.hz, n.prop_child / p.hz,
              ulong(n.ncalls));
      if (n.self_calls != 0)
        appendf(out, "+%-7lu", ulong(n.self_calls));
      else
        appendf(out, " %7.7s", "");
      out += "     ";
      name(n);
      out += "\n";
    }
  }

  void parents(size_t ci) {
    GprofNode& c = node(ci);
    const GprofNode& head = node(c.cycle_head);
    if (c.parents.empty()) {
      appendf(out,
              o.bsd ? "%6.6s %5.5s %7.7s %11.11s %7.7s %7.7s     <spontaneous>\n"
                    : "%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     <spontaneous>\n", "", "", "", "", "", "");
      return;
    }
    sort_arcs(c.parents, true);
    for (size_t a : c.parents) {
      const GprofArc& arc = p.arcs[a];
      const GprofNode& par = node(arc.parent);
      if (arc.parent == ci || (c.cycle != 0 && par.cycle == c.cycle))
        appendf(out, o.bsd ? "%6.6s %5.5s %7.7s %11.11s %7lu %7.7s     " : "%6.6s %5.5s %7.7s %7.7s %7lu %7.7s     ", "", "", "", "", ulong(arc.count), "");
      else
        appendf(out, o.bsd ? "%6.6s %5.5s %7.2f %11.2f %7lu/%-7lu     " : "%6.6s %5.5s %7.2f %7.2f %7lu/%-7lu     ", "", "", arc.time / p.hz, arc.child_time / p.hz,
                ulong(arc.count), ulong(head.ncalls));
      name(par);
      out += "\n";
    }
  }

  void line(const GprofNode& n) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "[%d]", n.index);
    appendf(out, o.bsd ? "%-6.6s %5.1f %7.2f %11.2f" : "%-6.6s %5.1f %7.2f %7.2f", buf, 100 * (n.prop_self + n.prop_child) / p.print_time,
            n.prop_self / p.hz, n.prop_child / p.hz);
    if (n.ncalls + n.self_calls != 0) {
      appendf(out, " %7lu", ulong(n.ncalls));
      if (n.self_calls != 0)
        appendf(out, "+%-7lu ", ulong(n.self_calls));
      else
        appendf(out, " %7.7s ", "");
    } else {
      appendf(out, " %7.7s %7.7s ", "", "");
    }
    name(n);
    out += "\n";
  }

  void children(size_t pi) {
    GprofNode& par = node(pi);
    sort_arcs(par.children, false);
    for (size_t a : par.children) {
      const GprofArc& arc = p.arcs[a];
      const GprofNode& c = node(arc.child);
      if (arc.child == pi || (c.cycle != 0 && c.cycle == par.cycle))
        appendf(out, o.bsd ? "%6.6s %5.5s %7.7s %11.11s %7lu %7.7s     " : "%6.6s %5.5s %7.7s %7.7s %7lu %7.7s     ", "", "", "", "", ulong(arc.count), "");
      else
        appendf(out, o.bsd ? "%6.6s %5.5s %7.2f %11.2f %7lu/%-7lu     " : "%6.6s %5.5s %7.2f %7.2f %7lu/%-7lu     ", "", "", arc.time / p.hz, arc.child_time / p.hz,
                ulong(arc.count), ulong(node(c.cycle_head).ncalls));
      name(c);
      out += "\n";
    }
  }

  void graph() {
    graph_header();
    for (size_t i : p.by_total) {
      const GprofNode& n = node(i);
      if ((o.ignore_zeros && n.ncalls == 0 && n.self_calls == 0 && n.prop_self == 0 && n.prop_child == 0) ||
          !n.print_flag)
        continue;
      if (n.is_cycle) {
        cycle(i);
      } else {
        parents(i);
        line(n);
        children(i);
      }
      if (o.bsd) out += "\n";
      out += "-----------------------------------------------\n";
      if (o.bsd) out += "\n";
    }
  }

  void index() {
    const int column_width = (o.width - 1) / 3;  // never the last column
    std::vector<size_t> names;
    for (size_t i = 0; i < p.function_count; ++i) {
      const GprofNode& n = node(i);
      if (o.ignore_zeros && n.ncalls == 0 && n.time == 0) continue;
      names.push_back(i);
    }
    glibc_merge_sort(names, [&](size_t l, size_t r) { return std::strcmp(node(l).name.c_str(), node(r).name.c_str()); });
    const size_t nnames = names.size();
    for (size_t c = p.function_count; c < p.nodes.size(); ++c) names.push_back(c);
    const size_t todo = names.size();
    out += "\f\n";
    out += "Index by function name\n\n";
    const size_t rows = (todo + 2) / 3;
    for (size_t i = 0; i < rows; ++i) {
      int col = 0, starting_col = 0;
      for (size_t j = i; j < todo; j += rows) {
        const GprofNode& n = node(names[j]);
        char buf[32];
        std::snprintf(buf, sizeof buf, n.print_flag ? "[%d]" : "(%d)", n.index);
        if (o.bsd) {
          // Fixed columns; the symbol table's name, neither demangled nor
          // labelled with its file.
          char cyc[32];
          std::snprintf(cyc, sizeof cyc, "<cycle %d>", n.cycle);
          appendf(out, "%6.6s %-19.19s", buf, j < nnames ? n.name.c_str() : cyc);
          continue;
        }
        col += int(std::strlen(buf));
        for (; col < starting_col + 5; ++col) out += ' ';
        appendf(out, " %s ", buf);
        if (j < nnames) {
          col += int(name_only(n));
          if (n.is_static && !n.file.empty()) {
            const size_t slash = n.file.rfind('/');
            const std::string base = slash == std::string::npos ? n.file : n.file.substr(slash + 1);
            appendf(out, " (%s)", base.c_str());
            col += int(base.size()) + 3;
          }
        } else {
          char cyc[32];
          std::snprintf(cyc, sizeof cyc, "<cycle %d>", n.cycle);
          out += cyc;
          col += int(std::strlen(cyc));
        }
        starting_col += column_width;
      }
      out += "\n";
    }
  }
};

}  // namespace

std::string gprof_display_name(const std::string& name) {
  // bfd_demangle: leading '.' and '$' and anything from '@' on are kept
  // around the demangled rest.
  size_t start = 0;
  while (start < name.size() && (name[start] == '.' || name[start] == '$')) ++start;
  const size_t at = name.find('@', start);
  const std::string core = name.substr(start, at == std::string::npos ? std::string::npos : at - start);
  auto d = util::demangle_or_none(core);
  if (!d) return name;
  return name.substr(0, start) + *d + (at == std::string::npos ? "" : name.substr(at));
}

std::string gprof_text(GprofProfile& profile, const GprofTextOptions& options) {
  Printer pr{profile, options, {}, true};
  if (options.bsd) {
    if (options.graph) pr.graph();
    if (options.flat) pr.flat();
    if (options.graph) pr.index();
  } else {
    if (options.flat) pr.flat();
    if (options.graph) {
      pr.graph();
      pr.index();
    }
  }
  return std::move(pr.out);
}

std::string gprof_block_counts_text(const GprofProfile& profile, const GprofSymbolTable& symbols) {
  if (profile.block_counts.empty()) return {};
  std::string out = "\f\nBasic-block counts\n\n";
  appendf(out, "%18s %20s  %s\n", "address", "count", "function");
  for (const format::GmonBlockCount& b : profile.block_counts) {
    const long s = gprof_symbol_at(symbols.symbols, b.address);
    appendf(out, "%#18" PRIx64 " %20" PRIu64 "  %s\n", b.address, b.count,
            s < 0 ? "??" : gprof_display_name(symbols.symbols[size_t(s)].name).c_str());
  }
  return out;
}

}  // namespace covkit::trace
