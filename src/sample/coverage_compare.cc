#include "sample/coverage_compare.h"

#include <gnu/lib-names.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "util/shared_library.h"

namespace covkit::sample {

double Agreement::recall() const {
  const int64_t truth = true_positive + false_negative;
  return truth == 0 ? 1.0 : double(true_positive) / double(truth);
}

double Agreement::precision() const {
  const int64_t sampled = true_positive + false_positive;
  return sampled == 0 ? 1.0 : double(true_positive) / double(sampled);
}

namespace {

// libm's log2, loaded at the first call: covkit is linked without libm,
// which every command would otherwise load at start-up (util/rounding.h).
double log2_from_libm(double x) {
  static double (*const log2_function)(double) = [] {
    auto libm = util::SharedLibrary::open(LIBM_SO, "to compare coverage");
    if (!libm) throw std::runtime_error(libm.error().message);
    double (*f)(double) = nullptr;
    if (auto bound = libm->bind(f, "log2"); !bound) throw std::runtime_error(bound.error().message);
    return f;
  }();
  return log2_function(x);
}

void add(Agreement& into, const Agreement& a) {
  into.true_positive += a.true_positive;
  into.false_positive += a.false_positive;
  into.false_negative += a.false_negative;
  into.true_negative += a.true_negative;
}

void count(Agreement& a, bool sampled, bool truth) {
  if (sampled && truth) ++a.true_positive;
  else if (sampled) ++a.false_positive;
  else if (truth) ++a.false_negative;
  else ++a.true_negative;
}

std::string key(const model::FileCov& f) { return f.absolute_path.empty() ? f.path : f.absolute_path; }

struct CommonLine {
  uint32_t number;
  const model::LineCov* sampled;
  const model::LineCov* truth;
};

// The lines executable on both sides (not excluded), in order; the others counted.
std::vector<CommonLine> common_lines(const model::FileCov& s, const model::FileCov& t, FileAgreement& out) {
  std::map<uint32_t, CommonLine> lines;
  for (const model::LineCov& l : s.lines)
    if (!l.excluded) lines[l.number] = {l.number, &l, nullptr};
  for (const model::LineCov& l : t.lines) {
    if (l.excluded) continue;
    auto it = lines.find(l.number);
    if (it == lines.end()) {
      ++out.only_truth;
      continue;
    }
    it->second.truth = &l;
  }
  std::vector<CommonLine> both;
  for (const auto& [number, line] : lines) {
    if (line.truth)
      both.push_back(line);
    else
      ++out.only_sampled;
  }
  return both;
}

FileAgreement compare_file(const model::FileCov& s, const model::FileCov& t, std::vector<double>& sampled_weights,
                           std::vector<double>& truth_weights) {
  FileAgreement out;
  out.path = t.path;
  const std::vector<CommonLine> both = common_lines(s, t, out);
  for (const CommonLine& l : both) {
    count(out.lines, l.sampled->covered(), l.truth->covered());
    sampled_weights.push_back(double(std::max<int64_t>(l.sampled->count, 0)));
    truth_weights.push_back(double(std::max<int64_t>(l.truth->count, 0)));
  }
  for (const model::FunctionCov& fn : t.functions) {
    if (fn.excluded) continue;
    FunctionAgreement fa;
    fa.name = fn.demangled.empty() ? fn.name : fn.demangled;
    fa.start_line = fn.start_line;
    fa.end_line = std::max(fn.end_line, fn.start_line);
    for (const CommonLine& l : both)
      if (l.number >= fa.start_line && l.number <= fa.end_line)
        count(fa.lines, l.sampled->covered(), l.truth->covered());
    out.functions.push_back(std::move(fa));
  }
  return out;
}

}  // namespace

double jensen_shannon(const std::vector<double>& p, const std::vector<double>& q) {
  double sp = 0, sq = 0;
  for (double x : p) sp += x;
  for (double x : q) sq += x;
  if (sp <= 0 || sq <= 0 || p.size() != q.size()) return 0;
  double d = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const double a = p[i] / sp, b = q[i] / sq, m = (a + b) / 2;
    if (a > 0) d += a * log2_from_libm(a / m) / 2;
    if (b > 0) d += b * log2_from_libm(b / m) / 2;
  }
  return std::clamp(d, 0.0, 1.0);
}

Comparison compare_coverage(const model::ProjectCov& sampled, const model::ProjectCov& truth) {
  Comparison out;
  std::map<std::string, const model::FileCov*> by_key;
  for (const model::FileCov& f : sampled.files) by_key[key(f)] = &f;
  std::vector<double> sampled_weights, truth_weights;
  for (const model::FileCov& t : truth.files) {
    auto it = by_key.find(key(t));
    if (it == by_key.end()) {
      out.files_only_truth.push_back(t.path);
      continue;
    }
    FileAgreement fa = compare_file(*it->second, t, sampled_weights, truth_weights);
    add(out.lines, fa.lines);
    out.only_sampled += fa.only_sampled;
    out.only_truth += fa.only_truth;
    out.files.push_back(std::move(fa));
    by_key.erase(it);
  }
  for (const auto& [k, f] : by_key) out.files_only_sampled.push_back(f->path);
  std::sort(out.files.begin(), out.files.end(),
            [](const FileAgreement& a, const FileAgreement& b) { return a.path < b.path; });
  out.divergence = jensen_shannon(sampled_weights, truth_weights);
  return out;
}

}  // namespace covkit::sample
