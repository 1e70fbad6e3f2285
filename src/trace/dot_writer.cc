#include "trace/dot_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "util/rounding.h"
#include "util/utf8.h"

namespace covkit::trace {

namespace {

constexpr std::string_view kTimes = "\xC3\x97";            // U+00D7 MULTIPLICATION SIGN

// Graphviz turns "&name;" and "&#123;" in labels into characters.
bool entity_at(std::string_view s, size_t i) {
  size_t j = i + 1;
  if (j < s.size() && s[j] == '#') ++j;
  size_t start = j;
  while (j < s.size() && std::isalnum(static_cast<unsigned char>(s[j]))) ++j;
  return j > start && j < s.size() && s[j] == ';';
}

// Label text (without the quotes): see dot_quote.
void append_label_text(std::string& out, std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '&': out += entity_at(s, i) ? "&amp;" : "&"; break;
        default:
          if (c < 0x20 || c == 0x7F)
            out += util::kReplacement;
          else
            out += char(c);
      }
      ++i;
      continue;
    }
    i += util::append_utf8_or_replacement(out, s, i);
  }
}

struct Rgb {
  double r, g, b;
};

double hue_to_rgb(double m1, double m2, double h) {
  if (h < 0.0)
    h += 1.0;
  else if (h > 1.0)
    h -= 1.0;
  if (h * 6 < 1.0) return m1 + (m2 - m1) * h * 6.0;
  if (h * 2 < 1.0) return m2;
  if (h * 3 < 2.0) return m1 + (m2 - m1) * (2.0 / 3.0 - h) * 6.0;
  return m1;
}

Rgb hsl_to_rgb(double h, double s, double l) {
  h = util::fraction(h);
  if (h < 0) h += 1.0;
  s = std::clamp(s, 0.0, 1.0);
  l = std::clamp(l, 0.0, 1.0);
  double m2 = l <= 0.5 ? l * (s + 1.0) : l + s - l * s;
  double m1 = l * 2.0 - m2;
  return {hue_to_rgb(m1, m2, h + 1.0 / 3.0), hue_to_rgb(m1, m2, h), hue_to_rgb(m1, m2, h - 1.0 / 3.0)};
}

int to_byte(double f) {
  if (!(f > 0.0)) return 0;
  if (f >= 1.0) return 255;
  return int(255.0 * f + 0.5);
}

std::string percent(double share) { return fmt::format("{:.2f}%", share * 100.0); }

// gprof2dot's theme: pen widths 0.5..4, arrows with the square root.
double pen_width(double weight) { return std::max(weight * 4.0, 0.5); }

}  // namespace

std::string dot_quote(std::string_view s) {
  std::string out = "\"";
  append_label_text(out, s);
  out += '"';
  return out;
}

std::string temperature_color(double weight) {
  if (!(weight >= 0.0)) weight = 0.0;  // also NaN
  weight = std::min(weight, 1.0);
  constexpr double hmin = 2.0 / 3.0, smin = 0.80, lmin = 0.25;  // dark blue
  constexpr double hmax = 0.0, smax = 1.0, lmax = 0.5;          // saturated red
  Rgb c = hsl_to_rgb(hmin + weight * (hmax - hmin), smin + weight * (smax - smin), lmin + weight * (lmax - lmin));
  return fmt::format("#{:02x}{:02x}{:02x}", to_byte(c.r), to_byte(c.g), to_byte(c.b));
}

std::string write_dot(const CallGraph& graph, const DotOptions& options) {
  std::string out = "digraph \"covkit trace\" {\n";
  out += "\tgraph [fontname=\"Arial\", nodesep=0.125, ranksep=0.25";
  if (!options.title.empty()) out += ", labelloc=t, fontsize=12, label=" + dot_quote(options.title);
  out += "];\n";
  out += "\tnode [fontcolor=\"#ffffff\", fontname=\"Arial\", fontsize=\"10.00\", height=0, shape=box, "
         "style=\"filled,rounded\", width=0];\n";
  out += "\tedge [fontname=\"Arial\", fontsize=\"10.00\"];\n";
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& n = graph.nodes[i];
    std::string label = "\"";
    append_label_text(label, n.name);
    label += fmt::format("\\n{}\\n({})\\n{}{}\"", percent(n.inclusive_share), percent(n.exclusive_share), n.calls,
                         kTimes);
    std::string color = temperature_color(n.inclusive_share);
    // A focused function keeps its fill and gets a thick black border.
    if (n.focus)
      out += fmt::format("\tn{} [label={}, fillcolor=\"{}\", color=\"#000000\", penwidth=3", i, label, color);
    else
      out += fmt::format("\tn{} [label={}, color=\"{}\"", i, label, color);
    if (!n.file.empty())
      out += ", tooltip=" + dot_quote(n.line ? fmt::format("{}:{}", n.file, n.line) : n.file);
    out += "];\n";
  }
  for (const GraphEdge& e : graph.edges) {
    double w = std::clamp(e.share, 0.0, 1.0);
    std::string color = temperature_color(w);
    out += fmt::format(
        "\tn{} -> n{} [label=\"{}{}\", color=\"{}\", fontcolor=\"{}\", penwidth=\"{:.2f}\", labeldistance=\"{:.2f}\", "
        "arrowsize=\"{:.2f}\"];\n",
        e.caller, e.callee, e.calls, kTimes, color, color, pen_width(w), pen_width(w), 0.5 * std::sqrt(pen_width(w)));
  }
  out += "}\n";
  return out;
}

}  // namespace covkit::trace
