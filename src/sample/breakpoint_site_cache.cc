#include "sample/breakpoint_site_cache.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <span>

#include "sample/elf_module_file.h"
#include "util/file_io.h"
#include "util/md5.h"

namespace covkit::sample {

namespace {

constexpr char kMagic[8] = {'C', 'K', 'S', 'I', 'T', 'E', 'S', '4'};

bool valid_build_id(const std::string& id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// covkit's own build: sites chosen by another covkit (another analysis)
// are not reused, even if kBreakpointSitesVersion was not bumped.
const std::string& own_build() {
  static const std::string id = [] {
    auto self = read_elf_module("/proc/self/exe");
    return self && !self->build_id.empty() ? self->build_id.substr(0, 16) : std::string("unknown");
  }();
  return id;
}

std::string cache_file(const std::string& dir, const std::string& build_id) {
  return fmt::format("{}/{}.v{}-{}", dir, build_id, kBreakpointSitesVersion, own_build());
}

// mkdir -p, owner only: the plans describe the user's binaries.
bool make_dirs(const std::string& dir) {
  for (size_t at = 1; at <= dir.size(); ++at) {
    if (at != dir.size() && dir[at] != '/') continue;
    const std::string part = dir.substr(0, at);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  return true;
}

}  // namespace

std::string default_site_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/')
    return std::string(xdg) + "/covkit/breakpoint-sites";
  if (const char* home = std::getenv("HOME"); home && home[0] == '/')
    return std::string(home) + "/.cache/covkit/breakpoint-sites";
  return "";
}

namespace {

// The file: magic, u64 size and the digest, the stamp (5 u64), u64 flags, then per list (whole run, window) u64 count
// and the sites, then u64 size and the skipped lines joined by '\n'.
constexpr uint64_t kHasLines = 1, kWholeRunKnown = 2, kWindowKnown = 4;

class CacheReader {
 public:
  explicit CacheReader(std::span<const uint8_t> b) : b_(b) {}
  bool u64(uint64_t& v) {
    if (b_.size() - at_ < 8) return false;
    std::memcpy(&v, b_.data() + at_, 8);
    at_ += 8;
    return true;
  }
  bool sites(std::vector<uint64_t>& out) {
    uint64_t n;
    if (!u64(n) || n > (b_.size() - at_) / 8) return false;
    out.resize(n);
    if (n) std::memcpy(out.data(), b_.data() + at_, n * 8);
    at_ += n * 8;
    return true;
  }
  bool text(std::string& out) {
    uint64_t n;
    if (!u64(n) || n > b_.size() - at_) return false;
    out.assign(reinterpret_cast<const char*>(b_.data() + at_), n);
    at_ += n;
    return true;
  }
  bool at_end() const { return at_ == b_.size(); }

 private:
  std::span<const uint8_t> b_;
  size_t at_ = 8;  // after the magic
};

void put64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }

}  // namespace

std::string file_digest(std::span<const uint8_t> bytes) {
  return util::md5_hex(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

FileStamp file_stamp(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return {};
  return {uint64_t(st.st_dev), uint64_t(st.st_ino), uint64_t(st.st_size),
          uint64_t(st.st_mtim.tv_sec) * 1'000'000'000 + uint64_t(st.st_mtim.tv_nsec),
          uint64_t(st.st_ctim.tv_sec) * 1'000'000'000 + uint64_t(st.st_ctim.tv_nsec)};
}

std::optional<CachedSites> load_cached_sites(const std::string& cache_dir, const std::string& build_id,
                                             const std::string& digest) {
  return load_cached_sites(cache_dir, build_id, FileStamp{}, [&] { return digest; });
}

std::optional<CachedSites> load_cached_sites(const std::string& cache_dir, const std::string& build_id,
                                             const FileStamp& stamp, const std::function<std::string()>& digest) {
  if (cache_dir.empty() || !valid_build_id(build_id)) return std::nullopt;
  auto file = util::read_file(cache_file(cache_dir, build_id));
  if (!file) return std::nullopt;
  std::span<const uint8_t> b = file->bytes();
  // Anything but the whole layout (a torn or foreign file) is recomputed.
  if (b.size() < 8 || std::memcmp(b.data(), kMagic, 8) != 0) return std::nullopt;
  CacheReader r(b);
  CachedSites out;
  uint64_t flags;
  std::string skipped;
  if (!r.text(out.digest) || out.digest.empty() || !r.u64(out.stamp.dev) || !r.u64(out.stamp.ino) ||
      !r.u64(out.stamp.size) || !r.u64(out.stamp.mtime_ns) || !r.u64(out.stamp.ctime_ns))
    return std::nullopt;
  // Another content's answers are never used.
  if (!(out.stamp.known() && out.stamp == stamp) && out.digest != digest()) return std::nullopt;
  if (!r.u64(flags) || !r.sites(out.whole_run) || !r.sites(out.window) || !r.text(skipped) || !r.at_end())
    return std::nullopt;
  out.has_lines = flags & kHasLines;
  out.whole_run_known = flags & kWholeRunKnown;
  out.window_known = flags & kWindowKnown;
  for (size_t at = 0; at < skipped.size();) {
    size_t end = skipped.find('\n', at);
    if (end == std::string::npos) end = skipped.size();
    out.skipped.push_back(skipped.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

void store_cached_sites(const std::string& cache_dir, const std::string& build_id, const CachedSites& sites) {
  if (cache_dir.empty() || !valid_build_id(build_id) || sites.digest.empty() || !make_dirs(cache_dir)) return;
  std::string content(kMagic, sizeof kMagic);
  put64(content, sites.digest.size());
  content += sites.digest;
  for (uint64_t v : {sites.stamp.dev, sites.stamp.ino, sites.stamp.size, sites.stamp.mtime_ns, sites.stamp.ctime_ns})
    put64(content, v);
  put64(content, (sites.has_lines ? kHasLines : 0) | (sites.whole_run_known ? kWholeRunKnown : 0) |
                     (sites.window_known ? kWindowKnown : 0));
  for (const std::vector<uint64_t>* list : {&sites.whole_run, &sites.window}) {
    put64(content, list->size());
    content.append(reinterpret_cast<const char*>(list->data()), list->size() * 8);
  }
  std::string skipped;
  for (const std::string& line : sites.skipped) skipped += (skipped.empty() ? "" : "\n") + line;
  put64(content, skipped.size());
  content += skipped;
  (void)util::write_file_atomic(cache_file(cache_dir, build_id), content);  // a cache: failing is fine
}

}  // namespace covkit::sample
