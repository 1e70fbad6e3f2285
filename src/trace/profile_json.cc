#include "trace/profile_json.h"

#include <nlohmann/json.hpp>

namespace covkit::trace {

namespace {

using Json = nlohmann::ordered_json;

Json function_json(const FunctionStats& f) {
  return Json{{"name", f.name}, {"calls", f.calls}, {"inclusive_ns", f.inclusive_ns}, {"exclusive_ns", f.exclusive_ns}};
}

Json tree_json(const CallTreeNode& n) {
  Json children = Json::array();
  for (const auto& c : n.children) children.push_back(tree_json(c));
  return Json{{"name", n.name},
              {"calls", n.calls},
              {"inclusive_ns", n.inclusive_ns},
              {"exclusive_ns", n.exclusive_ns},
              {"children", std::move(children)}};
}

Json threads_json(const CallProfile& p, const ProfileView& view) {
  Json threads = Json::array();
  for (const auto& t : p.threads) {
    Json fns = Json::array();
    for (const auto& f : shown_functions(t.functions, view)) fns.push_back(function_json(f));
    threads.push_back(Json{{"pid", t.pid},
                           {"tid", t.tid},
                           {"name", t.name},
                           {"wall_ns", t.wall_ns},
                           {"functions", std::move(fns)},
                           {"max_depth", t.max_depth},
                           {"deepest_chain", t.deepest_chain}});
  }
  return threads;
}

Json trees_json(const CallProfile& p) {
  Json trees = Json::array();
  for (const auto& t : p.threads) {
    Json tree = tree_json(t.tree);
    tree["pid"] = t.pid;
    tree["tid"] = t.tid;
    trees.push_back(std::move(tree));
  }
  return trees;
}

Json callers_json(const CallProfile& p, const std::vector<std::string>& names) {
  Json list = Json::array();
  for (const std::string& name : names) {
    Json by = Json::array(), to = Json::array();
    for (const auto& e : p.edges) {
      if (e.callee == name) by.push_back(Json{{"name", e.caller}, {"calls", e.calls}, {"inclusive_ns", e.inclusive_ns}});
      if (e.caller == name) to.push_back(Json{{"name", e.callee}, {"calls", e.calls}, {"inclusive_ns", e.inclusive_ns}});
    }
    list.push_back(Json{{"name", name}, {"callers", std::move(by)}, {"callees", std::move(to)}});
  }
  return list;
}

}  // namespace

std::string profile_json(const CallProfile& p, const ProfileView& view) {
  Json out;
  Json functions = Json::array();
  for (const auto& f : shown_functions(p.functions, view)) functions.push_back(function_json(f));
  out["functions"] = std::move(functions);
  Json edges = Json::array();
  for (const auto& e : p.edges) edges.push_back(Json{{"caller", e.caller}, {"callee", e.callee}, {"calls", e.calls}});
  out["edges"] = std::move(edges);
  out["traced_ns"] = p.span_ns;
  out["thread_time_ns"] = p.total_ns;
  out["max_depth"] = p.max_depth;
  out["deepest_chain"] = p.deepest_chain;
  if (view.threads) out["threads"] = threads_json(p, view);
  if (view.tree) out["tree"] = trees_json(p);
  if (!view.callers.empty()) out["callers"] = callers_json(p, view.callers);
  return out.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace covkit::trace
