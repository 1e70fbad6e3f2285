#include "model/exclusion_markers.h"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/thread_pool.h"

namespace covkit::model {

namespace {

constexpr std::array<std::string_view, 3> kPrefixes = {"LCOV_EXCL_", "GCOVR_EXCL_", "GCOV_EXCL_"};

// The markers on one source line.
struct LineMarkers {
  bool line = false, start = false, stop = false;
  bool br_line = false, br_start = false, br_stop = false;
  bool ex_line = false, ex_start = false, ex_stop = false;
};

LineMarkers scan_line(std::string_view line) {
  LineMarkers m;
  for (std::string_view prefix : kPrefixes) {
    size_t pos = 0;
    while ((pos = line.find(prefix, pos)) != std::string_view::npos) {
      pos += prefix.size();
      std::string_view rest = line.substr(pos);
      auto starts = [&](std::string_view w) { return rest.substr(0, w.size()) == w; };
      if (starts("EXCEPTION_BR_LINE")) m.ex_line = true;
      else if (starts("EXCEPTION_BR_START")) m.ex_start = true;
      else if (starts("EXCEPTION_BR_STOP")) m.ex_stop = true;
      else if (starts("BR_LINE")) m.br_line = true;
      else if (starts("BR_START")) m.br_start = true;
      else if (starts("BR_STOP")) m.br_stop = true;
      else if (starts("LINE")) m.line = true;
      else if (starts("START")) m.start = true;
      else if (starts("STOP")) m.stop = true;
    }
  }
  return m;
}

// The line breaks in `text`, 16 bytes a step where SSE2 is there (a
// byte-by-byte count took 24 M instructions for zstd's 81 sources): each
// byte's lane counts its matches, summed every 255 steps before it wraps.
size_t count_newlines(std::string_view text) {
  size_t n = 0, i = 0;
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n');
  while (i + 16 <= text.size()) {
    __m128i lanes = _mm_setzero_si128();
    for (int step = 0; step < 255 && i + 16 <= text.size(); ++step, i += 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
      lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(bytes, newline));  // a match is -1
    }
    const __m128i sums = _mm_sad_epu8(lanes, _mm_setzero_si128());
    n += size_t(_mm_cvtsi128_si32(sums)) + size_t(_mm_cvtsi128_si32(_mm_srli_si128(sums, 8)));
  }
#endif
  for (; i < text.size(); ++i) n += text[i] == '\n';
  return n;
}

// Where "_EXCL_" (every marker's middle) first is in `text`, or npos: 16
// starting places a step where SSE2 is there, by their first three bytes
// (glibc's memmem and string_view::find, which stops at each '_' of C
// code, took 8-15 M instructions for zstd's sources).
size_t find_marker(std::string_view text) {
  constexpr std::string_view kMarker = "_EXCL_";
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i underscore = _mm_set1_epi8('_'), e = _mm_set1_epi8('E'), x = _mm_set1_epi8('X');
  auto at = [&](size_t k) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + k)); };
  for (; i + 18 <= text.size(); i += 16) {
    const __m128i starts = _mm_and_si128(_mm_cmpeq_epi8(at(i), underscore),
                                         _mm_and_si128(_mm_cmpeq_epi8(at(i + 1), e), _mm_cmpeq_epi8(at(i + 2), x)));
    for (unsigned bits = unsigned(_mm_movemask_epi8(starts)); bits != 0; bits &= bits - 1) {
      const size_t start = i + size_t(__builtin_ctz(bits));
      if (text.substr(start, kMarker.size()) == kMarker) return start;
    }
  }
#endif
  const size_t rest = text.substr(i).find(kMarker);
  return rest == std::string_view::npos ? rest : i + rest;
}

// One kind of START/STOP region: STOP is checked first, so a STOP line is
// outside the region and a line with both closes it.
struct Region {
  const char* kind;
  uint32_t open_at = 0;  // 0: not open

  void update(bool start, bool stop, uint32_t n, const std::string& name, std::vector<std::string>& w) {
    if (stop) {
      if (!open_at) w.push_back(fmt::format("{}:{}: {}_STOP without a matching {}_START", name, n, kind, kind));
      open_at = 0;
    } else if (start) {
      if (open_at)
        w.push_back(fmt::format("{}:{}: {}_START inside the region opened at line {}", name, n, kind, open_at));
      else
        open_at = n;
    }
  }
  void finish(const std::string& name, std::vector<std::string>& w) const {
    if (open_at)
      w.push_back(fmt::format("{}:{}: {}_START without a matching {}_STOP; excluded to the end of the file", name,
                              open_at, kind, kind));
  }
};

}  // namespace

ExclusionRegions find_exclusions(std::string_view text, const std::string& name) {
  ExclusionRegions r;
  r.line.push_back(false);
  r.branch.push_back(ExclusionRegions::kKeep);
  Region lines{"LCOV_EXCL"}, branches{"LCOV_EXCL_BR"}, throws{"LCOV_EXCL_EXCEPTION_BR"};
  // Each line's state: lines without a marker (nearly all) take the open
  // regions' as they are, a run of them at once up to the next line that
  // holds "_EXCL_" (one search of the text, not one per line).
  auto add_lines = [&](size_t count, const LineMarkers& m) {
    r.line.insert(r.line.end(), count, m.line || lines.open_at != 0);
    r.branch.insert(r.branch.end(), count,
                    m.br_line || branches.open_at ? uint8_t(ExclusionRegions::kAllBranches)
                    : m.ex_line || throws.open_at ? uint8_t(ExclusionRegions::kThrowBranches)
                                                  : uint8_t(ExclusionRegions::kKeep));
  };
  uint32_t n = 0;  // lines so far
  while (!text.empty()) {
    const size_t mark = find_marker(text);
    // Lines before the marker's (all of them when there is none).
    const size_t line_start = mark == std::string_view::npos ? text.size() : text.rfind('\n', mark) + 1;
    const std::string_view plain = text.substr(0, line_start);
    size_t count = count_newlines(plain);
    if (mark == std::string_view::npos && !plain.empty() && plain.back() != '\n') ++count;  // the last, unended
    add_lines(count, LineMarkers{});
    n += uint32_t(count);
    if (mark == std::string_view::npos) break;
    text.remove_prefix(line_start);
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++n;
    const LineMarkers m = scan_line(line);
    lines.update(m.start, m.stop, n, name, r.warnings);
    branches.update(m.br_start, m.br_stop, n, name, r.warnings);
    throws.update(m.ex_start, m.ex_stop, n, name, r.warnings);
    add_lines(1, m);
  }
  lines.finish(name, r.warnings);
  branches.finish(name, r.warnings);
  throws.finish(name, r.warnings);
  return r;
}

void apply_exclusions(FileCov& file, const ExclusionRegions& regions) {
  auto in = [](const std::vector<bool>& v, uint32_t n) { return n < v.size() && v[n]; };
  for (LineCov& l : file.lines) {
    const uint8_t br = l.number < regions.branch.size() ? regions.branch[l.number] : uint8_t(ExclusionRegions::kKeep);
    if (in(regions.line, l.number)) {
      l.excluded = true;
      l.branches.clear();
    } else if (br == ExclusionRegions::kAllBranches) {
      l.branches.clear();
    } else if (br == ExclusionRegions::kThrowBranches) {
      std::erase_if(l.branches, [](const BranchCov& b) { return b.is_throw; });
    }
  }
  for (FunctionCov& f : file.functions)
    if (in(regions.line, f.start_line)) f.excluded = true;
}

SourceExclusions apply_source_exclusions(ProjectCov& project, unsigned threads, SourceTexts* keep) {
  std::vector<std::vector<std::string>> warnings(project.files.size());
  std::vector<std::optional<std::string>> unreadable(project.files.size());  // why
  std::vector<SourceTexts::Text> texts(keep ? project.files.size() : 0);
  util::parallel_for(project.files.size(), threads, [&](size_t i) {
    FileCov& f = project.files[i];
    auto data = util::read_source_file(f.absolute_path);  // named by the data: its owners' rights
    if (!data) {
      unreadable[i] = data.error().message;
      if (keep) texts[i].error = data.error().message;
      return;
    }
    ExclusionRegions regions = find_exclusions(data->text(), f.path);
    apply_exclusions(f, regions);
    warnings[i] = std::move(regions.warnings);
    if (keep) texts[i].data = std::move(*data);
  });
  // Only what was read from where a later reader would read it: a file
  // without an absolute path was looked for at "" here.
  if (keep)
    for (size_t i = 0; i < texts.size(); ++i)
      if (!project.files[i].absolute_path.empty()) keep->keep(project.files[i].absolute_path, std::move(texts[i]));
  SourceExclusions all;
  for (auto& ws : warnings)
    for (auto& w : ws) all.warnings.push_back(std::move(w));
  for (size_t i = 0; i < unreadable.size(); ++i)
    if (unreadable[i]) all.unreadable.push_back({project.files[i].absolute_path, std::move(*unreadable[i])});
  return all;
}

}  // namespace covkit::model
