#include "model/diff_lines.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "util/printable.h"
#include "util/run_process.h"

namespace covkit::model {

bool ChangedLines::contains(const std::string& path, uint32_t line) const {
  auto it = ranges.find(path);
  if (it == ranges.end()) return false;
  const auto& r = it->second;
  auto pos = std::upper_bound(r.begin(), r.end(), line,
                              [](uint32_t l, const std::pair<uint32_t, uint32_t>& range) { return l < range.first; });
  return pos != r.begin() && line <= std::prev(pos)->second;
}

namespace {

// ---- parsing ------------------------------------------------------------

// git's C-style quoting of unusual names: "a\"b\\c\303\251".
std::optional<std::string> unquote(std::string_view q) {
  if (q.size() < 2 || q.front() != '"' || q.back() != '"') return std::nullopt;
  q = q.substr(1, q.size() - 2);
  std::string out;
  for (size_t i = 0; i < q.size(); ++i) {
    char c = q[i];
    if (c == '"') return std::nullopt;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i == q.size()) return std::nullopt;
    switch (q[i]) {
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'v': out += '\v'; break;
      case 'f': out += '\f'; break;
      case 'r': out += '\r'; break;
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      default: {
        if (i + 2 >= q.size()) return std::nullopt;
        int v = 0;
        for (size_t k = 0; k < 3; ++k) {
          char d = q[i + k];
          if (d < '0' || d > '7') return std::nullopt;
          v = v * 8 + (d - '0');
        }
        if (v > 0xff) return std::nullopt;
        out += char(v);
        i += 2;
      }
    }
  }
  return out;
}

// The new-side name of "+++ NAME": nullopt for /dev/null (a deleted file),
// *bad when NAME cannot be read.
std::optional<std::string> new_side_path(std::string_view name, bool* bad) {
  *bad = false;
  std::string path;
  // git ends a name holding a space with a tab (as GNU diff does before its
  // timestamp), quoted or not; an unquoted name never holds a tab itself.
  if (!name.empty() && name.front() == '"') {
    if (name.ends_with("\"\t")) name.remove_suffix(1);
    auto u = unquote(name);
    if (!u) {
      *bad = true;
      return std::nullopt;
    }
    path = std::move(*u);
  } else {
    name = name.substr(0, name.find('\t'));
    if (name == "/dev/null") return std::nullopt;
    path = std::string(name);
  }
  if (path.starts_with("b/")) path.erase(0, 2);
  if (path.empty()) *bad = true;
  return path;
}

bool parse_number(std::string_view& s, uint64_t& v) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data() || v > UINT32_MAX) return false;
  s.remove_prefix(size_t(end - s.data()));
  return true;
}

// "START[,COUNT]" after the sign; COUNT is 1 when left out.
bool parse_side(std::string_view& s, char sign, uint64_t& start, uint64_t& count) {
  if (s.empty() || s[0] != sign) return false;
  s.remove_prefix(1);
  if (!parse_number(s, start)) return false;
  count = 1;
  if (!s.empty() && s[0] == ',') {
    s.remove_prefix(1);
    if (!parse_number(s, count)) return false;
  }
  return true;
}

// "@@ -a[,b] +c[,d] @@[ section]"
bool parse_hunk_header(std::string_view s, uint64_t& old_count, uint64_t& new_start, uint64_t& new_count) {
  uint64_t old_start;
  s.remove_prefix(3);
  if (!parse_side(s, '-', old_start, old_count) || s.empty() || s[0] != ' ') return false;
  s.remove_prefix(1);
  if (!parse_side(s, '+', new_start, new_count)) return false;
  return s.starts_with(" @@") && new_start + new_count <= uint64_t(UINT32_MAX) + 1;
}

void add_line(std::vector<std::pair<uint32_t, uint32_t>>& r, uint32_t line) {
  if (!r.empty() && r.back().second + 1 == line)
    r.back().second = line;
  else
    r.emplace_back(line, line);
}

// Sorted and disjoint, whatever order the hunks (or repeated headers) came in.
void tidy(std::vector<std::pair<uint32_t, uint32_t>>& r) {
  std::sort(r.begin(), r.end());
  size_t out = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    if (out > 0 && uint64_t(r[i].first) <= uint64_t(r[out - 1].second) + 1)
      r[out - 1].second = std::max(r[out - 1].second, r[i].second);
    else
      r[out++] = r[i];
  }
  r.resize(out);
}

}  // namespace

Expected<ChangedLines> parse_unified_diff(std::string_view diff) {
  ChangedLines result;
  std::vector<std::pair<uint32_t, uint32_t>>* current = nullptr;  // null: deleted file or none yet
  bool have_file = false;     // a "+++" line was seen in this file's section
  bool binary_patch = false;  // inside "GIT binary patch" data
  uint64_t old_left = 0, new_left = 0, new_line = 0;
  size_t line_no = 0;
  auto fail = [&](const std::string& what) { return Error(fmt::format("diff line {}: {}", line_no, what)); };
  size_t pos = 0;
  while (pos < diff.size()) {
    size_t nl = diff.find('\n', pos);
    std::string_view line = diff.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? diff.size() : nl + 1;
    ++line_no;
    if (old_left > 0 || new_left > 0) {
      // Inside a hunk: the header's counts say where it ends, so body lines
      // that look like headers ("+++ x", "diff --git") are still body.
      char c = line.empty() ? ' ' : line[0];  // some tools strip a blank context line to nothing
      if (c == '\\') continue;              // "\ No newline at end of file"
      if ((c == ' ' && (old_left == 0 || new_left == 0)) || (c == '+' && new_left == 0) ||
          (c == '-' && old_left == 0) || (c != ' ' && c != '+' && c != '-'))
        return fail(fmt::format("hunk body does not match its header: '{}'", util::printable(line.substr(0, 40))));
      if (c != '+') --old_left;
      if (c != '-') {
        if (c == '+' && current) add_line(*current, uint32_t(new_line));
        ++new_line;
        --new_left;
      }
      continue;
    }
    if (line.starts_with("diff ")) {
      current = nullptr;
      have_file = false;
      binary_patch = false;
    } else if (binary_patch) {
      continue;
    } else if (line.starts_with("+++ ")) {
      bool bad = false;
      auto path = new_side_path(line.substr(4), &bad);
      if (bad) return fail(fmt::format("cannot read the file name in '{}'", util::printable(line.substr(0, 80))));
      have_file = true;
      current = path ? &result.ranges[*path] : nullptr;
    } else if (line.starts_with("@@@")) {
      return fail("combined diffs (of a merge in progress) are not supported");
    } else if (line.starts_with("@@ ")) {
      if (!have_file) return fail("hunk before any '+++' file header");
      uint64_t new_start;
      if (!parse_hunk_header(line, old_left, new_start, new_left))
        return fail(fmt::format("malformed hunk header '{}'", util::printable(line.substr(0, 80))));
      new_line = new_start;
    } else if (line == "GIT binary patch") {
      binary_patch = true;
    }
    // Everything else is a header git writes between files ("index",
    // "similarity index", "rename from", "Binary files ... differ", modes,
    // "\ No newline at end of file" after a hunk): nothing on the new side.
  }
  if (old_left > 0 || new_left > 0) return fail("the diff ends inside a hunk");
  for (auto& [path, r] : result.ranges) tidy(r);
  return result;
}

// ---- running git --------------------------------------------------------

namespace {

std::string first_line(std::string_view s) {
  s = s.substr(0, s.find('\n'));
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return util::printable(s);
}

// The message for a git run that failed, or "" when it succeeded.
std::string git_failure(const util::ProcessResult& r, const std::string& what) {
  if (r.spawn_errno == ENOENT) return "git is not installed (or not on PATH)";
  if (r.spawn_errno != 0) return fmt::format("cannot run git: {}", std::strerror(r.spawn_errno));
  if (r.exit_status == 0) return "";
  std::string line = first_line(r.err);
  if (line.empty()) line = r.exit_status < 0 ? "killed by a signal" : fmt::format("exit status {}", r.exit_status);
  return fmt::format("{}: {}", what, line);
}

}  // namespace

Expected<ChangedLines> changed_lines_since(const std::string& rev, const std::string& repo_dir) {
  auto fail = [](const std::string& what) { return Error(what); };
  // git would take "-..." as an option (--output=FILE writes files).
  if (rev.empty() || rev[0] == '-') return fail(fmt::format("'{}' is not a revision", util::printable(rev)));

  util::ProcessResult top = util::run_process({"git", "-C", repo_dir, "rev-parse", "--show-toplevel"});
  if (std::string f = git_failure(top, util::printable(repo_dir)); !f.empty()) return fail(f);
  std::string top_dir = top.out.substr(0, top.out.find('\n'));

  // Fixed prefixes and no diff.relative, whatever the user's configuration,
  // so that paths are relative to the top level and start with "b/";
  // no textconv, so that line numbers are those of the real file.
  util::ProcessResult diff = util::run_process({"git", "-C", repo_dir, "-c", "diff.relative=false", "diff", "-U0", "--no-color",
                                    "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", rev,
                                    "--"});
  if (std::string f = git_failure(diff, fmt::format("git diff {}", util::printable(rev))); !f.empty()) return fail(f);
  auto lines = parse_unified_diff(diff.out);
  if (!lines) return fail(fmt::format("git diff {}: {}", util::printable(rev), lines.error().message));
  lines->toplevel = std::move(top_dir);
  return lines;
}

}  // namespace covkit::model
