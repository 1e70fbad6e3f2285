// The call graph views of `covkit trace graph`: pruning and focus on a
// hand-built CallProfile, DOT text (escaping, colours), in-process rendering
// by Graphviz, and Callgrind output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "test_support.h"
#include "trace/call_graph_model.h"
#include "trace/callgrind_writer.h"
#include "trace/dot_writer.h"
#include "trace/graph_render.h"

namespace trace_graph_test {

using covkit::trace::build_call_graph;
using covkit::trace::CallGraph;
using covkit::trace::CallProfile;
using covkit::trace::dot_quote;
using covkit::trace::GraphOptions;
using covkit::trace::temperature_color;
using covkit::trace::write_dot;

covkit::trace::FunctionStats fn(std::string name, uint64_t calls, uint64_t incl, uint64_t excl,
                                 std::string file = "", uint32_t line = 0) {
  covkit::trace::FunctionStats f;
  f.name = std::move(name);
  f.calls = calls;
  f.inclusive_ns = incl;
  f.exclusive_ns = excl;
  f.file = std::move(file);
  f.line = line;
  return f;
}

covkit::trace::EdgeStats edge(std::string caller, std::string callee, uint64_t calls, uint64_t incl) {
  covkit::trace::EdgeStats e;
  e.caller = std::move(caller);
  e.callee = std::move(callee);
  e.calls = calls;
  e.inclusive_ns = incl;
  return e;
}

// main -> a(int) -> b -> e
// main -> c      -> b
// a(int) -> d ; main -> tiny (0.3%)
// Total 1000 ns, one thread whose tree starts in main.
CallProfile sample_profile() {
  CallProfile p;
  p.total_ns = 1000;
  p.functions = {fn("main", 1, 1000, 100, "/src/m.cc", 3), fn("a(int)", 2, 600, 200, "/src/a.cc", 10),
                 fn("b", 5, 350, 350, "/src/a.cc", 20),    fn("c", 1, 50, 40),
                 fn("d", 4, 50, 40, "/src/d.cc", 7),       fn("e", 1, 10, 10, "/src/d.cc", 9),
                 fn("tiny", 1, 3, 3)};
  p.edges = {edge("a(int)", "b", 4, 340), edge("a(int)", "d", 4, 50), edge("b", "e", 1, 10),
             edge("c", "b", 1, 10),       edge("main", "a(int)", 2, 600), edge("main", "c", 1, 50),
             edge("main", "tiny", 1, 3)};
  covkit::trace::ThreadProfile t;
  t.tree.name = "prog";
  covkit::trace::CallTreeNode root;
  root.name = "main";
  t.tree.children.push_back(root);
  p.threads.push_back(t);
  return p;
}

std::vector<std::string> node_names(const CallGraph& g) {
  std::vector<std::string> names;
  for (const auto& n : g.nodes) names.push_back(n.name);
  return names;
}

std::vector<std::string> edge_names(const CallGraph& g) {
  std::vector<std::string> names;
  for (const auto& e : g.edges) names.push_back(g.nodes[e.caller].name + "->" + g.nodes[e.callee].name);
  return names;
}

// ---- escaping -------------------------------------------------------------

TEST(DotQuote, CxxNamesPassThrough) {
  EXPECT_EQ(dot_quote("std::vector<int>::operator[](unsigned long)"),
            "\"std::vector<int>::operator[](unsigned long)\"");
  EXPECT_EQ(dot_quote("operator<<(std::ostream&, A const&)"), "\"operator<<(std::ostream&, A const&)\"");
  EXPECT_EQ(dot_quote("bool operator&&<X>(X, X)"), "\"bool operator&&<X>(X, X)\"");
  EXPECT_EQ(dot_quote("{lambda(int)#1}::operator()(int) const"), "\"{lambda(int)#1}::operator()(int) const\"");
}

TEST(DotQuote, QuotesBackslashesAndControls) {
  EXPECT_EQ(dot_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(dot_quote("\\N"), "\"\\\\N\"");  // not Graphviz's node-name escape
  EXPECT_EQ(dot_quote("two\nlines"), "\"two\\nlines\"");
  EXPECT_EQ(dot_quote("tab\there"), "\"tab\xEF\xBF\xBDhere\"");
  EXPECT_EQ(dot_quote("bad\xFFutf8"), "\"bad\xEF\xBF\xBDutf8\"");
  EXPECT_EQ(dot_quote("caf\xC3\xA9"), "\"caf\xC3\xA9\"");
  // An entity would turn into a character: its '&' is escaped.
  EXPECT_EQ(dot_quote("x&amp;y&#65;z & w&;"), "\"x&amp;amp;y&amp;#65;z & w&;\"");
}

// ---- colours ----------------------------------------------------------------

TEST(TemperatureColor, MatchesGprof2dot) {
  // Values printed by gprof2dot's TEMPERATURE_COLORMAP.
  EXPECT_EQ(temperature_color(0.0), "#0d0d73");
  EXPECT_EQ(temperature_color(0.1), "#0d3b80");
  EXPECT_EQ(temperature_color(0.5), "#0ab60a");
  EXPECT_EQ(temperature_color(0.9), "#f06102");
  EXPECT_EQ(temperature_color(1.0), "#ff0000");
  EXPECT_EQ(temperature_color(-3), "#0d0d73");
  EXPECT_EQ(temperature_color(7), "#ff0000");
}

double hue_degrees(const std::string& hex) {
  unsigned r, g, b;
  EXPECT_EQ(std::sscanf(hex.c_str(), "#%2x%2x%2x", &r, &g, &b), 3) << hex;
  double R = r / 255.0, G = g / 255.0, B = b / 255.0;
  double mx = std::max({R, G, B}), mn = std::min({R, G, B}), d = mx - mn;
  if (d == 0) return 0;
  double h = mx == R ? std::fmod((G - B) / d, 6.0) : mx == G ? (B - R) / d + 2 : (R - G) / d + 4;
  h *= 60;
  return h < 0 ? h + 360 : h;
}

double lightness(const std::string& hex) {
  unsigned r, g, b;
  std::sscanf(hex.c_str(), "#%2x%2x%2x", &r, &g, &b);
  return (std::max({r, g, b}) + std::min({r, g, b})) / 510.0;
}

TEST(TemperatureColor, MonotoneInShare) {
  // Hotter is redder (hue falls from blue, 240°, to red, 0°) and lighter.
  double last_hue = 361, last_light = -1;
  for (int i = 0; i <= 200; ++i) {
    std::string c = temperature_color(i / 200.0);
    double h = hue_degrees(c), l = lightness(c);
    EXPECT_LE(h, last_hue + 1.0) << i << " " << c;  // 1°: rounding to bytes
    EXPECT_GE(l, last_light - 0.005) << i << " " << c;
    last_hue = h;
    last_light = l;
  }
  EXPECT_NEAR(hue_degrees(temperature_color(0)), 240, 0.5);
  EXPECT_NEAR(hue_degrees(temperature_color(1)), 0, 0.5);
}

// ---- pruning ----------------------------------------------------------------

TEST(CallGraphModel, ThresholdDropsNodesAndEdges) {
  auto g = build_call_graph(sample_profile(), GraphOptions{});  // 0.5%
  ASSERT_TRUE(g);
  EXPECT_EQ(node_names(*g), (std::vector<std::string>{"main", "a(int)", "b", "c", "d", "e"}));
  EXPECT_EQ(g->dropped_nodes, 1u);  // tiny, 0.3%
  // c->b (1%) stays; main->tiny goes with tiny.
  EXPECT_EQ(edge_names(*g),
            (std::vector<std::string>{"main->a(int)", "main->c", "a(int)->b", "a(int)->d", "b->e", "c->b"}));
  EXPECT_EQ(g->dropped_edges, 1u);
  EXPECT_DOUBLE_EQ(g->nodes[1].inclusive_share, 0.6);
  EXPECT_DOUBLE_EQ(g->nodes[1].exclusive_share, 0.2);

  GraphOptions ten;
  ten.threshold_percent = 10;
  g = build_call_graph(sample_profile(), ten);
  EXPECT_EQ(node_names(*g), (std::vector<std::string>{"main", "a(int)", "b"}));
  EXPECT_EQ(edge_names(*g), (std::vector<std::string>{"main->a(int)", "a(int)->b"}));

  GraphOptions all;
  all.threshold_percent = 0;
  g = build_call_graph(sample_profile(), all);
  EXPECT_EQ(g->nodes.size(), 7u);
  EXPECT_EQ(g->edges.size(), 7u);
}

TEST(CallGraphModel, EdgeBelowThresholdBetweenKeptNodes) {
  GraphOptions two;
  two.threshold_percent = 2;  // c (5%) and b stay; c->b (1%) goes
  auto g = build_call_graph(sample_profile(), two);
  EXPECT_EQ(node_names(*g), (std::vector<std::string>{"main", "a(int)", "b", "c", "d"}));
  EXPECT_EQ(edge_names(*g), (std::vector<std::string>{"main->a(int)", "main->c", "a(int)->b", "a(int)->d"}));
}

// A box above the threshold whose calls are each below it still gets the
// arrow of its heaviest caller; a caller below the threshold is shown then.
TEST(CallGraphModel, AShownFunctionKeepsItsHeaviestCaller) {
  CallProfile p;
  p.total_ns = 1000;
  // log (6%) is called from six functions of 1% each; p1..p6 are 1.2% each.
  p.functions = {fn("main", 1, 1000, 900), fn("log", 60, 60, 60)};
  for (int i = 1; i <= 6; ++i) {
    std::string name = "p" + std::to_string(i);
    p.functions.push_back(fn(name, 1, 12, 2));
    p.edges.push_back(edge("main", name, 1, 12));
    p.edges.push_back(edge(name, "log", 10, i == 4 ? 11 : 10));
  }
  std::sort(p.edges.begin(), p.edges.end(), [](const auto& a, const auto& b) {
    return a.caller != b.caller ? a.caller < b.caller : a.callee < b.callee;
  });
  GraphOptions five;
  five.threshold_percent = 5;
  auto g = build_call_graph(p, five);
  ASSERT_TRUE(g);
  EXPECT_EQ(node_names(*g), (std::vector<std::string>{"main", "log", "p4"}));
  EXPECT_EQ(edge_names(*g), (std::vector<std::string>{"main->p4", "p4->log"}));
  EXPECT_EQ(g->dropped_nodes, 5u);
  // Every shown function but the thread's root has an arrow in.
  for (size_t i = 1; i < g->nodes.size(); ++i)
    EXPECT_TRUE(std::any_of(g->edges.begin(), g->edges.end(), [&](const auto& e) { return e.callee == i; }))
        << g->nodes[i].name;
}

// Only the heaviest caller's arrow is added: b (36%) gets a(int)->b (34%,
// below the threshold) and none from c.
TEST(CallGraphModel, OnlyTheHeaviestCallerIsAdded) {
  CallProfile p = sample_profile();
  p.functions[2].inclusive_ns = 360;  // b at 36%, called by a(int) (34%) and c (1%)
  GraphOptions t;
  t.threshold_percent = 36;
  auto g = build_call_graph(p, t);
  ASSERT_TRUE(g);
  EXPECT_EQ(node_names(*g), (std::vector<std::string>{"main", "a(int)", "b"}));
  EXPECT_EQ(edge_names(*g), (std::vector<std::string>{"main->a(int)", "a(int)->b"}));
}

TEST(CallGraphModel, FocusKeepsCallersChainAndCallees) {
  GraphOptions o;
  o.focus = "b";
  o.threshold_percent = 0;
  auto g = build_call_graph(sample_profile(), o);
  ASSERT_TRUE(g);
  EXPECT_EQ(node_names(*g), (std::vector<std::string>{"main", "a(int)", "b", "c", "e"}));
  EXPECT_TRUE(g->nodes[2].focus);
  EXPECT_FALSE(g->nodes[0].focus);

  // Callees down to --depth; the callers chain is never cut.
  o.focus = "a";  // "a(int)" without its parameters
  o.depth = 1;
  g = build_call_graph(sample_profile(), o);
  EXPECT_EQ(node_names(*g), (std::vector<std::string>{"main", "a(int)", "b", "d"}));
  EXPECT_EQ(edge_names(*g), (std::vector<std::string>{"main->a(int)", "a(int)->b", "a(int)->d"}));
  o.depth = 0;
  g = build_call_graph(sample_profile(), o);
  EXPECT_EQ(node_names(*g), (std::vector<std::string>{"main", "a(int)"}));
}

TEST(CallGraphModel, FocusAndItsCallersSurviveTheThreshold) {
  GraphOptions o;
  o.focus = "e";  // 1%, below the threshold; so is its caller chain's c->b edge
  o.threshold_percent = 20;
  auto g = build_call_graph(sample_profile(), o);
  EXPECT_EQ(node_names(*g), (std::vector<std::string>{"main", "a(int)", "b", "c", "e"}));
  EXPECT_EQ(edge_names(*g),
            (std::vector<std::string>{"main->a(int)", "main->c", "a(int)->b", "b->e", "c->b"}));
}

TEST(CallGraphModel, FocusByQualifiedOrUnqualifiedName) {
  CallProfile p;
  p.total_ns = 100;
  p.functions = {fn("ns::Parser<char>::parse(char const*) const", 1, 100, 50), fn("parse(int)", 1, 50, 50),
                 fn("void run<int>(int)", 1, 10, 10)};
  GraphOptions o;
  o.threshold_percent = 0;
  o.focus = "parse";  // both functions called parse
  EXPECT_EQ(build_call_graph(p, o)->nodes.size(), 2u);
  o.focus = "Parser<char>::parse";
  EXPECT_EQ(node_names(*build_call_graph(p, o)),
            (std::vector<std::string>{"ns::Parser<char>::parse(char const*) const"}));
  o.focus = "parse(int)";  // the exact name
  EXPECT_EQ(node_names(*build_call_graph(p, o)), (std::vector<std::string>{"parse(int)"}));
  o.focus = "run<int>";  // after a template's return type
  EXPECT_EQ(node_names(*build_call_graph(p, o)), (std::vector<std::string>{"void run<int>(int)"}));
  o.focus = "Parser";  // else any part of a name
  EXPECT_EQ(node_names(*build_call_graph(p, o)),
            (std::vector<std::string>{"ns::Parser<char>::parse(char const*) const"}));
  o.focus = "nothere";
  auto none = build_call_graph(p, o);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "no function named 'nothere' in the trace");
}

TEST(CallGraphModel, BaseName) {
  using covkit::trace::function_base_name;
  EXPECT_EQ(function_base_name("f(int)"), "f");
  EXPECT_EQ(function_base_name("std::vector<int>::operator[](unsigned long)"), "std::vector<int>::operator[]");
  EXPECT_EQ(function_base_name("S::operator()(int) const"), "S::operator()");
  EXPECT_EQ(function_base_name("(anonymous namespace)::g(long)"), "(anonymous namespace)::g");
  EXPECT_EQ(function_base_name("f(int) [clone .cold]"), "f");
  EXPECT_EQ(function_base_name("main"), "main");
}

TEST(CallGraphModel, DepthWithoutFocusStartsAtThreadRoots) {
  GraphOptions o;
  o.threshold_percent = 0;
  o.depth = 1;
  auto g = build_call_graph(sample_profile(), o);
  EXPECT_EQ(node_names(*g), (std::vector<std::string>{"main", "a(int)", "c", "tiny"}));
  o.depth = 0;
  EXPECT_EQ(node_names(*build_call_graph(sample_profile(), o)), (std::vector<std::string>{"main"}));
}

// ---- DOT ------------------------------------------------------------------

TEST(DotWriter, NodesAndEdges) {
  GraphOptions ten;
  ten.threshold_percent = 10;
  auto g = build_call_graph(sample_profile(), ten);
  std::string dot = write_dot(*g);
  EXPECT_EQ(dot,
            "digraph \"covkit trace\" {\n"
            "\tgraph [fontname=\"Arial\", nodesep=0.125, ranksep=0.25];\n"
            "\tnode [fontcolor=\"#ffffff\", fontname=\"Arial\", fontsize=\"10.00\", height=0, shape=box, "
            "style=\"filled,rounded\", width=0];\n"
            "\tedge [fontname=\"Arial\", fontsize=\"10.00\"];\n"
            "\tn0 [label=\"main\\n100.00%\\n(10.00%)\\n1\xC3\x97\", color=\"#ff0000\", tooltip=\"/src/m.cc:3\"];\n"
            "\tn1 [label=\"a(int)\\n60.00%\\n(20.00%)\\n2\xC3\x97\", color=\"#53c408\", tooltip=\"/src/a.cc:10\"];\n"
            "\tn2 [label=\"b\\n35.00%\\n(35.00%)\\n5\xC3\x97\", color=\"#0ba165\", tooltip=\"/src/a.cc:20\"];\n"
            "\tn0 -> n1 [label=\"2\xC3\x97\", color=\"#53c408\", fontcolor=\"#53c408\", penwidth=\"2.40\", "
            "labeldistance=\"2.40\", arrowsize=\"0.77\"];\n"
            "\tn1 -> n2 [label=\"4\xC3\x97\", color=\"#0ba06a\", fontcolor=\"#0ba06a\", penwidth=\"1.36\", "
            "labeldistance=\"1.36\", arrowsize=\"0.58\"];\n"
            "}\n");
}

TEST(DotWriter, EscapedNamesAndTitle) {
  CallProfile p;
  p.total_ns = 4;
  p.functions = {fn("std::vector<int>::operator[](unsigned long)", 3, 4, 1), fn("a\"b\\c", 1, 1, 1)};
  p.edges = {edge("std::vector<int>::operator[](unsigned long)", "a\"b\\c", 1, 1)};
  covkit::trace::DotOptions o;
  o.title = "say \"hi\"";
  std::string dot = write_dot(*build_call_graph(p, GraphOptions{}), o);
  EXPECT_NE(dot.find("label=\"say \\\"hi\\\"\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("n0 [label=\"std::vector<int>::operator[](unsigned long)\\n100.00%\\n(25.00%)\\n3\xC3\x97\""),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("n1 [label=\"a\\\"b\\\\c\\n25.00%\\n(25.00%)\\n1\xC3\x97\""), std::string::npos) << dot;
}

TEST(DotWriter, FocusedNodeIsThicker) {
  GraphOptions o;
  o.focus = "b";
  std::string dot = write_dot(*build_call_graph(sample_profile(), o));
  EXPECT_NE(dot.find("n2 [label=\"b\\n35.00%\\n(35.00%)\\n5\xC3\x97\", fillcolor=\"#0ba165\", color=\"#000000\", penwidth=3,"),
            std::string::npos)
      << dot;
}

// ---- rendering --------------------------------------------------------------

TEST(GraphRender, SvgHoldsEveryName) {
  CallProfile p;
  p.total_ns = 100;
  p.functions = {fn("main", 1, 100, 10), fn("std::vector<int>::operator[](unsigned long)", 3, 60, 60),
                 fn("a\"b\\c", 1, 30, 30), fn("operator<<(std::ostream&, X const&)", 1, 5, 5)};
  p.edges = {edge("main", "std::vector<int>::operator[](unsigned long)", 3, 60), edge("main", "a\"b\\c", 1, 30),
             edge("main", "operator<<(std::ostream&, X const&)", 1, 5)};
  std::string dot = write_dot(*build_call_graph(p, GraphOptions{}));
  ::testing::internal::CaptureStderr();
  auto svg = covkit::trace::render_dot(dot, "svg");
  std::string stderr_text = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(svg) << svg.error().message;
  EXPECT_EQ(stderr_text, "");
  EXPECT_NE(svg->find("<svg"), std::string::npos);
  // SVG text is XML-escaped by Graphviz: each name shows exactly once.
  for (const char* shown : {">main<", ">std::vector&lt;int&gt;::operator[](unsigned long)<", ">a&quot;b\\c<",
                            ">operator&lt;&lt;(std::ostream&amp;, X const&amp;)<", ">60.00%<", ">(10.00%)<",
                            ">3\xC3\x97<"})
    EXPECT_NE(svg->find(shown), std::string::npos) << shown << "\n" << *svg;
}

TEST(GraphRender, Png) {
  auto png = covkit::trace::render_dot(write_dot(*build_call_graph(sample_profile(), GraphOptions{})), "png");
  ASSERT_TRUE(png) << png.error().message;
  ASSERT_GT(png->size(), 8u);
  EXPECT_EQ(png->substr(0, 8), "\x89PNG\r\n\x1a\n");
}

TEST(GraphRender, ErrorsAreStringsNotStderr) {
  ::testing::internal::CaptureStderr();
  auto bad = covkit::trace::render_dot("digraph { a -> ; }", "svg");
  std::string stderr_text = ::testing::internal::GetCapturedStderr();
  ASSERT_FALSE(bad);
  EXPECT_EQ(stderr_text, "");
  std::string error = bad.error().message;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_NE(error.find("syntax error"), std::string::npos) << error;

  ::testing::internal::CaptureStderr();
  auto unknown = covkit::trace::render_dot("digraph { a -> b; }", "nosuchformat");
  stderr_text = ::testing::internal::GetCapturedStderr();
  ASSERT_FALSE(unknown);
  EXPECT_EQ(stderr_text, "");
  EXPECT_NE(unknown.error().message.find("nosuchformat"), std::string::npos) << unknown.error().message;

  // Graphviz still works after errors.
  auto good = covkit::trace::render_dot("digraph { a -> b; }", "svg");
  ASSERT_TRUE(good) << good.error().message;
  EXPECT_NE(good->find(">a<"), std::string::npos);
}

// ---- Callgrind ----------------------------------------------------------------

TEST(CallgrindWriter, SelfLinesAndCallLines) {
  CallProfile p;
  p.total_ns = 1000;
  p.functions = {fn("main", 1, 1000, 100, "/src/m.cc", 3), fn("work(int)", 2, 900, 700, "/src/w.cc", 10),
                 fn("leaf", 8, 200, 200, "/src/w.cc", 20)};
  p.edges = {edge("main", "work(int)", 2, 900), edge("work(int)", "leaf", 8, 200)};
  covkit::trace::CallgrindOptions o;
  o.command = "/bin/prog";
  EXPECT_EQ(covkit::trace::write_callgrind(p, o),
            "# callgrind format\n"
            "version: 1\n"
            "creator: covkit\n"
            "cmd: /bin/prog\n"
            "positions: line\n"
            "event: Time_ns : Time (ns)\n"
            "events: Time_ns\n"
            "summary: 1000\n"
            "\n"
            "fl=(1) /src/m.cc\n"
            "fn=(1) main\n"
            "3 100\n"
            "cfl=(2) /src/w.cc\n"
            "cfn=(2) work(int)\n"
            "calls=2 10\n"
            "3 900\n"
            "\n"
            "fl=(2)\n"
            "fn=(2)\n"
            "10 700\n"
            "cfn=(3) leaf\n"
            "calls=8 20\n"
            "10 200\n"
            "\n"
            "fl=(2)\n"
            "fn=(3)\n"
            "20 200\n"
            "\n"
            "totals: 1000\n");
}

TEST(CallgrindWriter, CallgrindAnnotateReadsIt) {
  if (!covkit::testing::have_program("callgrind_annotate")) GTEST_SKIP() << "no callgrind_annotate";
  CallProfile p;
  p.total_ns = 1000;
  p.functions = {fn("main", 1, 1000, 100, "/src/m.cc", 3), fn("work(int)", 2, 900, 700, "/src/w.cc", 10),
                 fn("(anonymous namespace)::leaf()", 8, 200, 200)};
  p.edges = {edge("main", "work(int)", 2, 900), edge("work(int)", "(anonymous namespace)::leaf()", 8, 200)};
  covkit::testing::TempDir tmp;
  ASSERT_TRUE(covkit::testing::write_text(tmp / "callgrind.out.1", covkit::trace::write_callgrind(p)));
  std::string out;
  ASSERT_EQ(covkit::testing::run_command("callgrind_annotate --inclusive=yes " + tmp / "callgrind.out.1", &out), 0)
      << out;
  EXPECT_EQ(out.find("WARNING"), std::string::npos) << out;
  EXPECT_NE(out.find("1,000"), std::string::npos) << out;  // the total
  // Inclusive: main 1000, work 900, leaf 200.
  EXPECT_NE(out.find("1,000 (100.0%)  /src/m.cc:main"), std::string::npos) << out;
  EXPECT_NE(out.find("900 (90.00%)  /src/w.cc:work(int)"), std::string::npos) << out;
  EXPECT_NE(out.find("200 (20.00%)  ???:(anonymous namespace)::leaf()"), std::string::npos) << out;
}

TEST(CallgrindWriter, ZeroCallsStillAssociation) {
  CallProfile p;
  p.functions = {fn("f", 1, 10, 5), fn("g", 0, 5, 5)};
  p.edges = {edge("f", "g", 0, 5)};
  std::string text = covkit::trace::write_callgrind(p);
  EXPECT_NE(text.find("cfn=(2) g\ncalls=1 0\n0 5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("totals: 10\n"), std::string::npos) << text;
}

}  // namespace
