#include "sample/cfg_breakpoint_provider.h"

#include <fcntl.h>
#include <fnmatch.h>

#include "sample/binary_image.h"
#include "sample/breakpoint_site_cache.h"
#include "util/file_io.h"
#include "util/unique_fd.h"

namespace covkit::sample {

namespace {

bool is_covkit_runtime(const std::string& path) {
  return path.ends_with("/libcovkit-sample.so") || path.ends_with("/libcovkit-trace.so");
}

bool matches(const std::string& pattern, const std::string& path) {
  if (pattern.find('/') != std::string::npos) return ::fnmatch(pattern.c_str(), path.c_str(), 0) == 0;
  const size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

// "function: why" into its two parts.
format::UnplantedFunction split_skipped(const std::string& path, const std::string& line) {
  const size_t colon = line.find(": ");
  if (colon == std::string::npos) return {path, line, ""};
  return {path, line.substr(0, colon), line.substr(colon + 2)};
}

}  // namespace

void PlanLog::left_out(const ModuleIdentity& m, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const format::LeftOutImage& l : left_out_)
    if (l.path == m.path && l.build_id == m.build_id) return;
  left_out_.push_back({m.path, m.build_id, reason});
}

void PlanLog::unplanted(const std::string& path, const std::vector<std::string>& functions) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const std::string& f : functions) {
    format::UnplantedFunction u = split_skipped(path, f);
    bool known = false;
    for (const format::UnplantedFunction& k : unplanted_) known = known || (k.path == u.path && k.function == u.function);
    if (!known) unplanted_.push_back(std::move(u));
  }
}

void PlanLog::fill(format::SampleRecording& rec) const {
  std::lock_guard<std::mutex> lock(mutex_);
  rec.left_out.insert(rec.left_out.end(), left_out_.begin(), left_out_.end());
  rec.unplanted.insert(rec.unplanted.end(), unplanted_.begin(), unplanted_.end());
}

ImageVerdict select_image(const ImageSelection& selection, const std::string& path) {
  if (selection.all) return {ImageVerdict::plant, ""};
  if (!selection.patterns.empty()) {
    for (const std::string& p : selection.patterns)
      if (matches(p, path)) return {ImageVerdict::plant, ""};
    return {ImageVerdict::leave, "not named by --images"};
  }
  for (const std::string& prefix : selection.system_prefixes)
    if (path.starts_with(prefix)) return {ImageVerdict::leave, "system libraries (--images or --all-images plants them)"};
  return {ImageVerdict::if_lines, ""};
}

namespace {

// The file the process maps (opened through what identifies the mapping
// itself), which a cached answer must have been computed from: its stamp,
// and its digest, read only when the stamp does not settle it ("" when it
// cannot be read: no cached answer is used).
class MappedFile {
 public:
  MappedFile(const ModuleIdentity& m, const std::string& cache) : path_(m.read_by()) {
    if (cache.empty() || m.build_id.empty()) return;
    // Regular files only: a program's plan request names any path, and
    // opening a device runs its driver.
    if (auto fd = util::open_regular_file(path_)) fd_ = std::move(*fd);
    if (fd_.valid()) stamp_ = file_stamp(fd_.get());
  }
  const FileStamp& stamp() const { return stamp_; }
  const std::string& digest() {
    if (!read_ && stamp_.known()) {
      read_ = true;
      if (auto file = util::read_open_file(fd_.get(), path_)) digest_ = file_digest(file->bytes());
    }
    return digest_;
  }

 private:
  std::string path_;
  util::UniqueFd fd_;
  FileStamp stamp_;
  bool read_ = false;
  std::string digest_;
};

}  // namespace

BreakpointProvider cfg_breakpoint_provider(ImageSelection selection, std::string cache_dir, PlanWindow window,
                                           std::shared_ptr<PlanLog> log) {
  return [selection = std::move(selection), cache = std::move(cache_dir), window,
          log = std::move(log)](const ModuleIdentity& m) -> Expected<std::vector<uint64_t>> {
    // covkit's own runtimes run the traps: never planted.
    if (is_covkit_runtime(m.path)) return std::vector<uint64_t>{};
    ImageVerdict verdict = select_image(selection, m.path);
    if (verdict.kind == ImageVerdict::leave) {
      if (log) log->left_out(m, verdict.reason);
      return std::vector<uint64_t>{};
    }
    CachedSites c;
    MappedFile mapped(m, cache);
    if (auto cached = load_cached_sites(cache, m.build_id, mapped.stamp(), [&] { return mapped.digest(); })) {
      c = std::move(*cached);
    } else {
      Expected<BinaryImage> img = load_binary_image(m.path);
      // Messages without the path: the caller names the module (one line, once).
      if (!img) return Error(img.error().describe());
      c.has_lines = img->has_line_table();
      c.digest = file_digest(img->file_bytes());
      // The mapped file's stamp vouches for this content only if it has it.
      c.stamp = mapped.digest() == c.digest ? mapped.stamp() : FileStamp{};
    }
    if (verdict.kind == ImageVerdict::if_lines && !c.has_lines) {
      store_cached_sites(cache, m.build_id, c);
      if (log) log->left_out(m, "no line information (--images or --all-images plants them)");
      return std::vector<uint64_t>{};
    }
    bool known = window == PlanWindow::whole_run ? c.whole_run_known : c.window_known;
    if (!known) {
      Expected<ModuleSites> sites = breakpoint_sites(m.path, window);
      if (!sites) return sites.error();
      (window == PlanWindow::whole_run ? c.whole_run : c.window) = std::move(sites->vaddrs);
      (window == PlanWindow::whole_run ? c.whole_run_known : c.window_known) = true;
      c.skipped = std::move(sites->skipped);
      if (sites->digest != c.digest) c.digest.clear();  // the file changed between the two reads: not kept
      store_cached_sites(cache, m.build_id, c);
    }
    if (log) log->unplanted(m.path, c.skipped);
    return window == PlanWindow::whole_run ? c.whole_run : c.window;
  };
}

}  // namespace covkit::sample
