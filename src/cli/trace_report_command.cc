// `covkit trace report [DIR]`: what the recorded calls did, as text tables
// or JSON: the flat profile, callers and callees, the call tree, and the
// deepest call stack.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/trace_command.h"
#include "cli/trace_warnings.h"
#include "format/trace_reader.h"
#include "trace/call_profile.h"
#include "trace/symbolizer.h"
#include "util/printable.h"

namespace covkit::cli {

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kDescription =
    "Reads a trace directory written by `covkit trace record` (also while the\n"
    "program still runs: what it has written so far) and prints, per function\n"
    "(by demangled name, added up over threads and processes): calls,\n"
    "inclusive time (with the callees; only the outermost activation of a\n"
    "recursive function counts), exclusive time (without them) and the average\n"
    "per call. Then the maximum call depth and the deepest call chain (the first\n"
    "one that reached that depth). Only instrumented functions are frames.\n";

constexpr const char* kFooter =
    "JSON (--json):\n"
    "  {\"functions\": [{\"name\", \"calls\", \"inclusive_ns\", \"exclusive_ns\"}...],\n"
    "   \"edges\": [{\"caller\", \"callee\", \"calls\"}...],\n"
    "   \"max_depth\": N, \"deepest_chain\": [names, outermost first]}\n"
    "  plus \"threads\" with --threads, \"tree\" with --tree, \"callers\" with --callers.\n"
    "\n"
    "Exit status: 0; 1 when DIR is not a readable trace directory or FUNC matches\n"
    "no function. Problems inside the trace (damaged or cut files) are warnings\n"
    "on stderr.\n"
    "\n"
    "Examples:\n"
    "  covkit trace report                          ./covkit-trace.data\n"
    "  covkit trace report /tmp/t --sort exclusive --limit 20\n"
    "  covkit trace report --callers parse_expr --tree\n"
    "  covkit trace report --json > profile.json";

struct Options {
  std::string dir = "covkit-trace.data";
  bool json = false, threads = false, tree = false;
  std::string callers, sort = "inclusive";
  size_t limit = 0;
};

std::string format_ns(uint64_t ns) {
  if (ns < 1000) return fmt::format("{} ns", ns);
  if (ns < 1000000) return fmt::format("{:.2f} us", ns / 1e3);
  if (ns < 1000000000) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.3f} s", ns / 1e9);
}

std::string location(const trace::FunctionStats& f) {
  if (f.file.empty()) return "";
  size_t slash = f.file.rfind('/');
  return fmt::format("  ({}:{})", util::printable(slash == std::string::npos ? f.file : f.file.substr(slash + 1)),
                     f.line);
}

void sort_functions(std::vector<trace::FunctionStats>& fns, const std::string& key) {
  auto by = [&](auto field) {
    std::stable_sort(fns.begin(), fns.end(), [&](const trace::FunctionStats& a, const trace::FunctionStats& b) {
      return field(a) != field(b) ? field(a) > field(b) : a.name < b.name;
    });
  };
  if (key == "calls") by([](const trace::FunctionStats& f) { return f.calls; });
  else if (key == "exclusive") by([](const trace::FunctionStats& f) { return f.exclusive_ns; });
  else if (key == "name")
    std::stable_sort(fns.begin(), fns.end(),
                     [](const trace::FunctionStats& a, const trace::FunctionStats& b) { return a.name < b.name; });
  else by([](const trace::FunctionStats& f) { return f.inclusive_ns; });
}

std::vector<trace::FunctionStats> shown(std::vector<trace::FunctionStats> fns, const Options& o) {
  sort_functions(fns, o.sort);
  if (o.limit && fns.size() > o.limit) fns.resize(o.limit);
  return fns;
}

// "main > fib(int) x11 > leaf": runs of one name shown once with a count.
std::string chain_text(const std::vector<std::string>& chain) {
  std::string out;
  for (size_t i = 0; i < chain.size();) {
    size_t j = i;
    while (j < chain.size() && chain[j] == chain[i]) ++j;
    if (!out.empty()) out += " > ";
    out += util::printable(chain[i]);
    if (j - i > 1) out += fmt::format(" x{}", j - i);
    i = j;
  }
  return out;
}

// Functions matching FUNC: the exact name, else the name before its
// parameter list ("fib" for "fib(int)"), else names containing FUNC.
std::vector<std::string> match_functions(const trace::CallProfile& p, const std::string& func) {
  std::vector<std::string> exact, bare, partial;
  for (const auto& f : p.functions) {
    std::string_view name = f.name;
    if (name == func) exact.push_back(f.name);
    else if (name.substr(0, name.find('(')) == func) bare.push_back(f.name);
    else if (name.find(func) != std::string_view::npos) partial.push_back(f.name);
  }
  return !exact.empty() ? exact : !bare.empty() ? bare : partial;
}

void print_table(const std::vector<trace::FunctionStats>& all, const Options& o) {
  std::vector<trace::FunctionStats> fns = shown(all, o);
  std::printf("%12s %12s %12s %12s  %s\n", "calls", "inclusive", "exclusive", "average", "function");
  for (const auto& f : fns)
    std::printf("%12s %12s %12s %12s  %s%s\n", fmt::format("{}", f.calls).c_str(), format_ns(f.inclusive_ns).c_str(),
                format_ns(f.exclusive_ns).c_str(), f.calls ? format_ns(f.inclusive_ns / f.calls).c_str() : "-",
                util::printable(f.name).c_str(), location(f).c_str());
  if (fns.size() < all.size())
    std::printf("%12s (%zu more functions; --limit 0 shows all)\n", "", all.size() - fns.size());
}

void print_tree(const trace::CallTreeNode& n, size_t depth) {
  std::printf("%12s %12s %12s  %*s%s\n", fmt::format("{}", n.calls).c_str(), format_ns(n.inclusive_ns).c_str(),
              format_ns(n.exclusive_ns).c_str(), int(2 * depth), "", util::printable(n.name).c_str());
  for (const auto& c : n.children) print_tree(c, depth + 1);
}

void print_callers(const trace::CallProfile& p, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    std::printf("\nCallers and callees of %s:\n", util::printable(name).c_str());
    std::printf("%12s %12s  %s\n", "calls", "inclusive", "called by");
    size_t n = 0;
    for (const auto& e : p.edges)
      if (e.callee == name)
        ++n, std::printf("%12s %12s  %s\n", fmt::format("{}", e.calls).c_str(), format_ns(e.inclusive_ns).c_str(),
                         util::printable(e.caller).c_str());
    if (n == 0) std::printf("%12s %12s  (none: a root of its thread)\n", "", "");
    std::printf("%12s %12s  %s\n", "calls", "inclusive", "calls");
    n = 0;
    for (const auto& e : p.edges)
      if (e.caller == name)
        ++n, std::printf("%12s %12s  %s\n", fmt::format("{}", e.calls).c_str(), format_ns(e.inclusive_ns).c_str(),
                         util::printable(e.callee).c_str());
    if (n == 0) std::printf("%12s %12s  (none)\n", "", "");
  }
}

std::string thread_title(const trace::ThreadProfile& t) {
  return fmt::format("thread {}{} of process {}", t.tid, t.name.empty() ? "" : " (" + util::printable(t.name) + ")",
                     t.pid);
}

// The thread where the maximum depth was first reached (for the text).
const trace::ThreadProfile* deepest_thread(const trace::CallProfile& p) {
  for (const auto& t : p.threads)
    if (t.max_depth == p.max_depth && t.max_depth > 0) return &t;
  return nullptr;
}

void print_text(const format::TraceSet& set, const trace::CallProfile& p, const Options& o,
                const std::vector<std::string>& callers) {
  size_t processes = 0;
  for (const auto& proc : set.processes) processes += !proc.threads.empty();
  std::printf("Trace %s: %zu %s, %zu %s, %s traced, %llu lost events\n", util::printable(set.dir).c_str(), processes,
              processes == 1 ? "process" : "processes", p.threads.size(), p.threads.size() == 1 ? "thread" : "threads",
              format_ns(p.total_ns).c_str(), static_cast<unsigned long long>(p.lost_events));
  if (o.threads) {
    for (const auto& t : p.threads) {
      std::printf("\nFlat profile of %s, %s:\n", thread_title(t).c_str(), format_ns(t.wall_ns).c_str());
      print_table(t.functions, o);
    }
    std::printf("\nFlat profile, all threads:\n");
  } else {
    std::printf("\nFlat profile (sorted by %s):\n", o.sort == "name" ? "name" : (o.sort + (o.sort == "calls" ? "" : " time")).c_str());
  }
  print_table(p.functions, o);
  if (!callers.empty()) print_callers(p, callers);
  if (o.tree)
    for (const auto& t : p.threads) {
      std::printf("\nCall tree of %s:\n", thread_title(t).c_str());
      std::printf("%12s %12s %12s  %s\n", "calls", "inclusive", "exclusive", "function");
      print_tree(t.tree, 0);
    }
  std::printf("\nMaximum call depth: %u", p.max_depth);
  if (const auto* t = deepest_thread(p)) std::printf(" (%s)", thread_title(*t).c_str());
  std::printf("\nDeepest call chain: %s\n", p.deepest_chain.empty() ? "(none)" : chain_text(p.deepest_chain).c_str());
}

Json function_json(const trace::FunctionStats& f) {
  return Json{{"name", f.name}, {"calls", f.calls}, {"inclusive_ns", f.inclusive_ns}, {"exclusive_ns", f.exclusive_ns}};
}

Json tree_json(const trace::CallTreeNode& n) {
  Json children = Json::array();
  for (const auto& c : n.children) children.push_back(tree_json(c));
  return Json{{"name", n.name},
              {"calls", n.calls},
              {"inclusive_ns", n.inclusive_ns},
              {"exclusive_ns", n.exclusive_ns},
              {"children", std::move(children)}};
}

void print_json(const trace::CallProfile& p, const Options& o, const std::vector<std::string>& callers) {
  Json out;
  Json functions = Json::array();
  for (const auto& f : shown(p.functions, o)) functions.push_back(function_json(f));
  out["functions"] = std::move(functions);
  Json edges = Json::array();
  for (const auto& e : p.edges) edges.push_back(Json{{"caller", e.caller}, {"callee", e.callee}, {"calls", e.calls}});
  out["edges"] = std::move(edges);
  out["max_depth"] = p.max_depth;
  out["deepest_chain"] = p.deepest_chain;
  if (o.threads) {
    Json threads = Json::array();
    for (const auto& t : p.threads) {
      Json fns = Json::array();
      for (const auto& f : shown(t.functions, o)) fns.push_back(function_json(f));
      threads.push_back(Json{{"pid", t.pid},
                             {"tid", t.tid},
                             {"name", t.name},
                             {"wall_ns", t.wall_ns},
                             {"functions", std::move(fns)},
                             {"max_depth", t.max_depth},
                             {"deepest_chain", t.deepest_chain}});
    }
    out["threads"] = std::move(threads);
  }
  if (o.tree) {
    Json trees = Json::array();
    for (const auto& t : p.threads) {
      Json tree = tree_json(t.tree);
      tree["pid"] = t.pid;
      tree["tid"] = t.tid;
      trees.push_back(std::move(tree));
    }
    out["tree"] = std::move(trees);
  }
  if (!o.callers.empty()) {
    Json list = Json::array();
    for (const std::string& name : callers) {
      Json by = Json::array(), to = Json::array();
      for (const auto& e : p.edges) {
        if (e.callee == name) by.push_back(Json{{"name", e.caller}, {"calls", e.calls}, {"inclusive_ns", e.inclusive_ns}});
        if (e.caller == name) to.push_back(Json{{"name", e.callee}, {"calls", e.calls}, {"inclusive_ns", e.inclusive_ns}});
      }
      list.push_back(Json{{"name", name}, {"callers", std::move(by)}, {"callees", std::move(to)}});
    }
    out["callers"] = std::move(list);
  }
  std::string text = out.dump(2, ' ', false, Json::error_handler_t::replace);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fputc('\n', stdout);
}

}  // namespace

int run_trace_report(int argc, char** argv) {
  CLI::App app{kDescription, "covkit trace report"};
  app.footer(kFooter);
  app.get_formatter()->column_width(30);
  Options o;
  app.add_option("DIR", o.dir, "Trace directory [default: ./covkit-trace.data]")->type_name("");
  app.add_flag("--json", o.json, "Print JSON instead of tables");
  app.add_flag("--threads", o.threads, "Also a flat profile per thread (before the total)");
  app.add_flag("--tree", o.tree, "Also the call tree of each thread, merged by call path");
  app.add_option("--callers", o.callers,
                 "Also the callers and callees of FUNC (a full name, a name without its parameters, or part of one)")
      ->type_name("FUNC");
  app.add_option("--sort", o.sort, "Order of the flat profile: calls, inclusive, exclusive or name [default: inclusive]")
      ->check(CLI::IsMember({"calls", "inclusive", "exclusive", "name"}))
      ->type_name("KEY");
  app.add_option("--limit", o.limit, "Show the first N functions of the flat profile (0: all) [default: 0]")
      ->type_name("N");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "covkit trace report: %s (see covkit trace report --help)\n", e.what());
    return 1;
  }

  std::string error;
  auto set = format::read_trace_dir(o.dir, &error);
  if (!set) {
    std::fprintf(stderr, "covkit trace report: %s: %s\n", util::printable(o.dir).c_str(), error.c_str());
    return 1;
  }
  print_trace_warnings("report", set->warnings);

  trace::Symbolizer symbols;
  trace::CallProfile profile = trace::build_profile(*set, symbols);
  std::vector<std::string> callers;
  if (!o.callers.empty()) {
    callers = match_functions(profile, o.callers);
    if (callers.empty()) {
      std::fprintf(stderr, "covkit trace report: --callers %s: no such function in the trace\n",
                   util::printable(o.callers).c_str());
      return 1;
    }
  }
  if (o.json) print_json(profile, o, callers);
  else print_text(*set, profile, o, callers);
  return 0;
}

}  // namespace covkit::cli
