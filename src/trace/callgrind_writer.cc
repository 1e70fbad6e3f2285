#include "trace/callgrind_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace covkit::trace {

namespace {

// Names are the rest of a line: no line breaks or other control bytes.
std::string one_line(std::string_view s) {
  std::string r(s);
  for (char& c : r)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
  return r;
}

// Callgrind's name compression: "(id) name" the first time, "(id)" after.
class Names {
 public:
  std::string operator()(const std::string& name) {
    auto [it, added] = ids_.emplace(name, ids_.size() + 1);
    if (!added) return fmt::format("({})", it->second);
    return fmt::format("({}) {}", it->second, one_line(name));
  }

 private:
  std::unordered_map<std::string, size_t> ids_;
};

}  // namespace

std::string write_callgrind(const CallProfile& profile, const CallgrindOptions& options) {
  std::unordered_map<std::string, const FunctionStats*> by_name;
  for (const FunctionStats& f : profile.functions) by_name.emplace(f.name, &f);
  std::map<std::string, std::vector<const EdgeStats*>> calls_from;
  for (const EdgeStats& e : profile.edges) calls_from[e.caller].push_back(&e);

  uint64_t total = 0;
  for (const FunctionStats& f : profile.functions) total += f.exclusive_ns;

  std::string out = "# callgrind format\nversion: 1\ncreator: covkit\n";
  if (!options.command.empty()) out += "cmd: " + one_line(options.command) + "\n";
  out += "positions: line\nevent: Time_ns : Time (ns)\nevents: Time_ns\n";
  out += fmt::format("summary: {}\n\n", total);

  Names files, functions;
  auto file_of = [](const FunctionStats* f) { return f && !f->file.empty() ? f->file : std::string("???"); };
  for (const FunctionStats& f : profile.functions) {
    if (by_name.at(f.name) != &f) continue;  // a repeated name: its first entry counts
    const std::string file = file_of(&f);
    out += "fl=" + files(file) + "\n";
    out += "fn=" + functions(f.name) + "\n";
    out += fmt::format("{} {}\n", f.line, f.exclusive_ns);
    auto it = calls_from.find(f.name);
    if (it == calls_from.end()) {
      out += '\n';
      continue;
    }
    for (const EdgeStats* e : it->second) {
      auto callee = by_name.find(e->callee);
      const FunctionStats* target = callee == by_name.end() ? nullptr : callee->second;
      const std::string target_file = file_of(target);
      if (target_file != file) out += "cfl=" + files(target_file) + "\n";
      out += "cfn=" + functions(e->callee) + "\n";
      // A zero count would make the next line self cost to every reader.
      out += fmt::format("calls={} {}\n", std::max<uint64_t>(e->calls, 1), target ? target->line : 0);
      out += fmt::format("{} {}\n", f.line, e->inclusive_ns);
    }
    out += '\n';
  }
  out += fmt::format("totals: {}\n", total);
  return out;
}

}  // namespace covkit::trace
