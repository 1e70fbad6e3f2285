#pragma once
// Breakpoint sites computed once per build: building the CFGs of a large
// executable costs a few hundred milliseconds, which breakpoint mode would
// otherwise pay in every process of a workload (a test suite runs the same
// binary hundreds of times). The sites are kept under the module's
// build-id, in $XDG_CACHE_HOME/covkit/breakpoint-sites (or ~/.cache/...):
// one file per build-id, analysis version and build of covkit itself, with
// the digest of the content they were computed from, since a build-id is
// only what a file claims. A module without a build-id is never cached; a
// cache that cannot be read or written is ignored (the sites are computed
// again).
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace covkit::sample {

// Bumped whenever breakpoint_sites() would choose other sites.
inline constexpr uint32_t kBreakpointSitesVersion = 2;

// What is kept of one build: whether it has line information (decided
// before anything is analyzed: a build without is not planted by default),
// and, once computed, its sites for a whole run and for a window (--pid),
// with the functions left out.
// One state of a file, known without reading it: a file of the same device,
// inode, size, modification and change time (which no user can set) still
// has the content it had. Zero: unknown, never equal to a file's.
struct FileStamp {
  uint64_t dev = 0, ino = 0, size = 0, mtime_ns = 0, ctime_ns = 0;
  bool known() const { return ino != 0; }
  bool operator==(const FileStamp&) const = default;
};
FileStamp file_stamp(int fd);

struct CachedSites {
  // The MD5 of the file these answers were computed from: they are used for
  // that content only. The build-id names the entry, but a build-id is
  // whatever the file says (another user may copy one into a binary of
  // theirs): sites of such a binary are never planted in the real one.
  std::string digest;
  FileStamp stamp;  // of a file that had `digest` (a check without reading it), or unknown
  bool has_lines = false;
  bool whole_run_known = false, window_known = false;
  std::vector<uint64_t> whole_run, window;
  std::vector<std::string> skipped;  // breakpoint_sites()'s, "NAME: why"
};

// The cache directory from the environment; "" when neither XDG_CACHE_HOME
// nor HOME is set.
std::string default_site_cache_dir();

// The digest CachedSites::digest holds, of a file's bytes.
std::string file_digest(std::span<const uint8_t> bytes);

// The entry of `build_id` if it was computed from content `digest`.
std::optional<CachedSites> load_cached_sites(const std::string& cache_dir, const std::string& build_id,
                                             const std::string& digest);
// The same for a file of stamp `stamp`: the entry's stamp equal to it, or
// else `digest()` (the file's digest, computed only then) equal to its digest.
std::optional<CachedSites> load_cached_sites(const std::string& cache_dir, const std::string& build_id,
                                             const FileStamp& stamp, const std::function<std::string()>& digest);
void store_cached_sites(const std::string& cache_dir, const std::string& build_id, const CachedSites& sites);

}  // namespace covkit::sample
