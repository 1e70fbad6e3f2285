#pragma once
// covkit trace record's filters (-F, -N, -T): function names turned into the
// address ranges the runtime reads (CKT_ENV_FILTERS; format in
// runtime/trace/trace_contract.h). Names are matched here, with the symbol
// tables and the demangler, so the runtime in the traced program never reads
// a symbol table.
//
// A pattern names a function when it is the function's whole name: its
// symbol, its demangled name ("ns::f(int)"), or that name without its
// parameter list ("ns::f"). A pattern with regular-expression characters
// also names every function whose demangled name it matches somewhere (POSIX
// extended syntax, searched as uftrace does): "^ns::" or "parse_.*".
#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include "util/expected.h"

namespace covkit::trace {

enum class FilterAction { only, notrace, trace_on, trace_off };

struct FilterRule {
  FilterAction action = FilterAction::only;
  std::string pattern;
  bool exact = true;  // no regular-expression character: whole names only
  std::regex regex;   // when not exact
};

// One rule from an option's value: -F/-N take PATTERN, -T takes
// PATTERN@trace_on or PATTERN@trace_off. An Error names what is wrong.
Expected<FilterRule> parse_filter_rule(FilterAction action, const std::string& pattern);
Expected<FilterRule> parse_trigger_rule(const std::string& value);

// The names a pattern may give a function, worked out once per symbol.
struct FunctionNames {
  explicit FunctionNames(const std::string& mangled);
  std::string mangled, demangled, bare;  // bare: demangled without its parameter list
};

// Whether `rule` names the function.
bool rule_matches(const FilterRule& rule, const FunctionNames& names);
// The same for the function whose symbol is `mangled`.
bool rule_matches(const FilterRule& rule, const std::string& mangled);

struct FilterRange {
  std::string module;  // path as the dynamic loader names it
  uint64_t lo = 0, hi = 0;
  std::string actions;  // CKT_FILTER_* letters
  std::string name;     // the symbol (for messages and tests)
};

// A rule again, for libraries loaded later: the runtime matches it against
// their symbol names (as written: no demangling there).
struct LaterRule {
  char action = 0;  // CKT_FILTER_* letter
  bool exact = true;
  std::string pattern;
};

struct FilterPlan {
  std::vector<FilterRange> ranges;    // sorted by module, then lo
  std::vector<std::string> unmatched;  // patterns that named no function
  // For each unmatched pattern, the program's function whose name is
  // nearest to it (at most two edits: "fibb" -> "fib"), or "".
  std::vector<std::string> nearest;
  std::vector<std::string> modules;    // what was searched
  std::vector<LaterRule> later;        // every rule, in order
};

// The modules PROG loads at start: itself (canonical path), then the
// libraries its dynamic loader lists (`ld.so --list`; none for a static
// program). Libraries opened later with dlopen are not known here.
std::vector<std::string> startup_modules(const std::string& prog);

// The functions of `modules` that `rules` name, with their actions.
FilterPlan plan_filters(const std::vector<FilterRule>& rules, const std::vector<std::string>& modules);

// The filter file's text.
std::string filter_file_text(const FilterPlan& plan);

}  // namespace covkit::trace
