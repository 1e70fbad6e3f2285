#include "trace/profile_text.h"

#include <fmt/format.h>

#include "util/printable.h"

namespace covkit::trace {

namespace {

std::string location(const FunctionStats& f) {
  if (f.file.empty()) return "";
  size_t slash = f.file.rfind('/');
  return fmt::format("  ({}:{})", util::printable(slash == std::string::npos ? f.file : f.file.substr(slash + 1)),
                     f.line);
}

void table(std::string& out, const std::vector<FunctionStats>& all, const ProfileView& view) {
  std::vector<FunctionStats> fns = shown_functions(all, view);
  out += fmt::format("{:>12} {:>12} {:>12} {:>12}  {}\n", "calls", "inclusive", "exclusive", "average", "function");
  for (const auto& f : fns)
    out += fmt::format("{:>12} {:>12} {:>12} {:>12}  {}{}\n", f.calls, format_duration(f.inclusive_ns),
                       format_duration(f.exclusive_ns), f.calls ? format_duration(f.inclusive_ns / f.calls) : "-",
                       util::printable(f.name), location(f));
  if (fns.size() < all.size())
    out += fmt::format("{:>12} ({} more functions; --limit 0 shows all)\n", "", all.size() - fns.size());
}

void tree(std::string& out, const CallTreeNode& n, size_t depth) {
  out += fmt::format("{:>12} {:>12} {:>12}  {:{}}{}\n", n.calls, format_duration(n.inclusive_ns),
                     format_duration(n.exclusive_ns), "", 2 * depth, util::printable(n.name));
  for (const auto& c : n.children) tree(out, c, depth + 1);
}

void callers(std::string& out, const CallProfile& p, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    out += fmt::format("\nCallers and callees of {}:\n", util::printable(name));
    out += fmt::format("{:>12} {:>12}  {}\n", "calls", "inclusive", "called by");
    size_t n = 0;
    for (const auto& e : p.edges)
      if (e.callee == name)
        ++n, out += fmt::format("{:>12} {:>12}  {}\n", e.calls, format_duration(e.inclusive_ns), util::printable(e.caller));
    if (n == 0) out += fmt::format("{:>12} {:>12}  (none: a root of its thread)\n", "", "");
    out += fmt::format("{:>12} {:>12}  {}\n", "calls", "inclusive", "calls");
    n = 0;
    for (const auto& e : p.edges)
      if (e.caller == name)
        ++n, out += fmt::format("{:>12} {:>12}  {}\n", e.calls, format_duration(e.inclusive_ns), util::printable(e.callee));
    if (n == 0) out += fmt::format("{:>12} {:>12}  (none)\n", "", "");
  }
}

std::string thread_title(const ThreadProfile& t) {
  return fmt::format("thread {}{} of process {}", t.tid, t.name.empty() ? "" : " (" + util::printable(t.name) + ")",
                     t.pid);
}

// The thread where the maximum depth was first reached.
const ThreadProfile* deepest_thread(const CallProfile& p) {
  for (const auto& t : p.threads)
    if (t.max_depth == p.max_depth && t.max_depth > 0) return &t;
  return nullptr;
}

}  // namespace

std::string format_duration(uint64_t ns) {
  if (ns < 1000) return fmt::format("{} ns", ns);
  if (ns < 1000000) return fmt::format("{:.2f} us", ns / 1e3);
  if (ns < 1000000000) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.3f} s", ns / 1e9);
}

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

std::string profile_text(const std::string& dir, const CallProfile& p, const ProfileView& view) {
  // What was traced: from the first call of the first thread to the last
  // return of the last (a `trace attach --for 5s` window, not the threads'
  // lives); with several threads, their times added up too.
  std::string traced = format_duration(p.span_ns) + " traced";
  if (p.threads.size() > 1 && p.total_ns != p.span_ns)
    traced += fmt::format(" ({} in all threads)", format_duration(p.total_ns));
  std::string out = fmt::format("Trace {}: {} {}, {} {}, {}, {} lost {}\n", util::printable(dir), p.processes,
                                p.processes == 1 ? "process" : "processes", p.threads.size(),
                                p.threads.size() == 1 ? "thread" : "threads", traced, p.lost_events,
                                p.lost_events == 1 ? "event" : "events");
  if (view.threads) {
    for (const auto& t : p.threads) {
      out += fmt::format("\nFlat profile of {}, {}:\n", thread_title(t), format_duration(t.wall_ns));
      table(out, t.functions, view);
    }
    out += "\nFlat profile, all threads:\n";
  } else {
    out += fmt::format("\nFlat profile (sorted by {}):\n",
                       view.sort == "name" ? "name" : view.sort + (view.sort == "calls" ? "" : " time"));
  }
  table(out, p.functions, view);
  if (!view.callers.empty()) callers(out, p, view.callers);
  if (view.tree)
    for (const auto& t : p.threads) {
      out += fmt::format("\nCall tree of {}:\n", thread_title(t));
      out += fmt::format("{:>12} {:>12} {:>12}  {}\n", "calls", "inclusive", "exclusive", "function");
      tree(out, t.tree, 0);
    }
  out += fmt::format("\nMaximum call depth: {}", p.max_depth);
  if (const auto* t = deepest_thread(p)) out += fmt::format(" ({})", thread_title(*t));
  out += fmt::format("\nDeepest call chain: {}\n", p.deepest_chain.empty() ? "(none)" : chain_text(p.deepest_chain));
  return out;
}

}  // namespace covkit::trace
