// gprof's symbol tables (gprof_selection.h), built in gprof's order: the
// specifications newest first, matched against every function by address.
#include "gprof/gprof_selection.h"
#include "util/path_names.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace covkit::trace {

namespace {

// gprof.c's default_excluded_list: the profiler's own functions.
constexpr const char* kDefaultExcluded[] = {"_gprof_mcount", "mcount", "_mcount", "__mcount", "__mcount_internal",
                                            "__mcleanup"};

// One side of a specification, parsed. `file` is the source file it names
// (empty with `has_file` when no function has a file of that name: then it
// matches nothing).
struct SpecPattern {
  bool has_file = false;
  std::string file;
  int line = 0;  // 0: any
  bool has_name = false;
  std::string name;

  bool matches(const GprofSymbol& s) const {
    if (has_file && (file.empty() || s.file != file)) return false;
    if (line != 0 && s.line != line) return false;
    return !has_name || s.name == name;
  }
};

// gprof keeps its source files newest first and takes the first whose last
// component is `name`: of the files met, the last one so named.
std::string source_file_named(const std::vector<std::string>& files_met, const std::string& name) {
  for (auto it = files_met.rbegin(); it != files_met.rend(); ++it)
    if (util::last_path_component(*it) == name) return *it;
  return {};
}

SpecPattern parse_spec(const std::string& spec, const std::vector<std::string>& files_met) {
  SpecPattern p;
  auto set_file = [&](const std::string& f) {
    p.has_file = true;
    p.file = source_file_named(files_met, f);
  };
  auto set_line_or_name = [&](const std::string& s) {
    if (std::isdigit(static_cast<unsigned char>(s[0]))) {
      p.line = std::atoi(s.c_str());
    } else {
      p.has_name = true;
      p.name = s;
    }
  };
  const size_t colon = spec.rfind(':');
  if (colon != std::string::npos) {
    if (colon > 0) set_file(spec.substr(0, colon));
    if (colon + 1 < spec.size()) set_line_or_name(spec.substr(colon + 1));
  } else if (!spec.empty()) {
    if (spec.find('.') != std::string::npos)
      set_file(spec);
    else
      set_line_or_name(spec);
  }
  return p;
}

// A range being built: the first function it holds (the fields gprof's
// de-duplication looks at) and its extent.
struct RangeDraft {
  GprofSymbol first;
  uint64_t end_addr = 0;
  std::vector<size_t> arcs_to;  // indexes into the right-hand ranges
};

// The matches of one side of one specification: a new range whenever the
// matching functions are not consecutive.
struct SideMatches {
  long previous = -2;              // index of the last function matched
  std::vector<size_t> ranges;      // into its table's drafts, newest first
};

void extend(SideMatches& m, const std::vector<GprofSymbol>& symbols, size_t i, std::vector<RangeDraft>& drafts) {
  if (m.previous != long(i) - 1) {
    drafts.push_back({symbols[i], symbols[i].end_addr, {}});
    m.ranges.insert(m.ranges.begin(), drafts.size() - 1);
  }
  drafts[m.ranges.front()].end_addr = symbols[i].end_addr;
  m.previous = long(i);
}

struct ParsedSpec {
  GprofTable table;
  SpecPattern left, right;
  bool has_right = false;
  SideMatches left_matches, right_matches;
};

}  // namespace

GprofSelection::GprofSelection(const GprofSymbolTable& symbols, const std::vector<GprofSymbolSpec>& specs) {
  // gprof adds each specification at the head of its list, the default
  // exclusions last: walk them newest first.
  std::vector<GprofSymbolSpec> all = specs;
  for (const char* name : kDefaultExcluded)
    for (GprofTable t : {GprofTable::kExclTime, GprofTable::kExclGraph, GprofTable::kExclFlat}) all.push_back({name, t});
  std::reverse(all.begin(), all.end());

  std::vector<ParsedSpec> parsed;
  for (const GprofSymbolSpec& s : all) {
    ParsedSpec p{s.table, {}, {}, false, {}, {}};
    const size_t slash = s.text.find('/');
    if (slash != std::string::npos) {
      p.has_right = true;
      p.right = parse_spec(s.text.substr(slash + 1), symbols.source_files);
    }
    p.left = parse_spec(s.text.substr(0, slash), symbols.source_files);
    parsed.push_back(std::move(p));
  }

  std::vector<RangeDraft> drafts[kGprofTableCount];
  std::vector<RangeDraft> right_drafts;
  for (size_t i = 0; i < symbols.symbols.size(); ++i)
    for (ParsedSpec& p : parsed) {
      if (p.left.matches(symbols.symbols[i])) extend(p.left_matches, symbols.symbols, i, drafts[int(p.table)]);
      if (p.has_right && p.right.matches(symbols.symbols[i])) extend(p.right_matches, symbols.symbols, i, right_drafts);
    }
  // Arcs from every left range to every right range (once per covered range).
  for (const ParsedSpec& p : parsed) {
    if (!p.has_right) continue;
    for (size_t l : p.left_matches.ranges)
      for (size_t r : p.right_matches.ranges) {
        RangeDraft& from = drafts[int(p.table)][l];
        const RangeDraft& to = right_drafts[r];
        const bool covered = std::any_of(from.arcs_to.begin(), from.arcs_to.end(), [&](size_t a) {
          return to.first.addr >= right_drafts[a].first.addr && to.end_addr <= right_drafts[a].end_addr;
        });
        if (!covered) from.arcs_to.insert(from.arcs_to.begin(), r);
      }
  }

  // symtab_finalize: by address (a stable sort), one range per address by
  // gprof_symbols.h's rules.
  for (int t = 0; t < kGprofTableCount; ++t) {
    std::vector<RangeDraft>& d = drafts[t];
    std::stable_sort(d.begin(), d.end(), [](const RangeDraft& l, const RangeDraft& r) { return l.first.addr < r.first.addr; });
    std::vector<RangeDraft> kept;
    for (RangeDraft& r : d) {
      if (!kept.empty() && kept.back().first.addr == r.first.addr) {
        const GprofSymbol& s = r.first;
        const GprofSymbol& k = kept.back().first;
        const char* sn = s.name.c_str();
        const char* kn = k.name.c_str();
        const bool better =
            (!s.is_static && k.is_static) ||
            (s.is_static == k.is_static &&
             ((s.is_func && !k.is_func) ||
              (s.is_func == k.is_func &&
               ((sn[0] != '_' && kn[0] == '_') || (sn[0] == '_' && kn[0] == '_' && sn[1] != '_' && kn[1] == '_')))));
        if (better) kept.back() = std::move(r);
        continue;
      }
      kept.push_back(std::move(r));
    }
    for (const RangeDraft& r : kept) {
      GprofSpecRange range{r.first.addr, r.end_addr, {}};
      for (size_t a : r.arcs_to) range.arcs_to.push_back({right_drafts[a].first.addr, right_drafts[a].end_addr, {}});
      GprofSymbol probe;
      probe.addr = range.addr;
      probe.end_addr = range.end_addr;
      lookup_[t].push_back(std::move(probe));
      tables_[t].push_back(std::move(range));
    }
  }
}

bool GprofSelection::holds(GprofTable t, uint64_t addr) const { return gprof_symbol_at(lookup_[int(t)], addr) >= 0; }

bool GprofSelection::holds_arc(GprofTable t, const GprofSymbol& from, const GprofSymbol& to) const {
  for (const GprofSpecRange& r : tables_[int(t)]) {
    if (from.addr < r.addr || from.addr > r.end_addr) continue;
    for (const GprofSpecRange& a : r.arcs_to)
      if (to.addr >= a.addr && to.end_addr <= a.end_addr) return true;
  }
  return false;
}

}  // namespace covkit::trace
