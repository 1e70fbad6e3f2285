#include "sample/breakpoint_site_cache.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>

#include "sample/elf_module_file.h"
#include "util/file_io.h"

namespace covkit::sample {

namespace {

constexpr char kMagic[8] = {'C', 'K', 'S', 'I', 'T', 'E', 'S', '1'};

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

std::optional<std::vector<uint64_t>> load_cached_sites(const std::string& cache_dir, const std::string& build_id) {
  if (cache_dir.empty() || !valid_build_id(build_id)) return std::nullopt;
  auto file = util::read_file(cache_file(cache_dir, build_id));
  if (!file) return std::nullopt;
  std::span<const uint8_t> b = file->bytes();
  // magic, count, sites: anything else (a torn or foreign file) is recomputed.
  if (b.size() < 16 || std::memcmp(b.data(), kMagic, 8) != 0) return std::nullopt;
  uint64_t n;
  std::memcpy(&n, b.data() + 8, 8);
  if (n != (b.size() - 16) / 8 || (b.size() - 16) % 8 != 0) return std::nullopt;
  std::vector<uint64_t> sites(n);
  if (n) std::memcpy(sites.data(), b.data() + 16, n * 8);
  return sites;
}

void store_cached_sites(const std::string& cache_dir, const std::string& build_id, const std::vector<uint64_t>& sites) {
  if (cache_dir.empty() || !valid_build_id(build_id) || !make_dirs(cache_dir)) return;
  std::string content(kMagic, sizeof kMagic);
  const uint64_t n = sites.size();
  content.append(reinterpret_cast<const char*>(&n), 8);
  content.append(reinterpret_cast<const char*>(sites.data()), sites.size() * 8);
  (void)util::write_file_atomic(cache_file(cache_dir, build_id), content);  // a cache: failing is fine
}

}  // namespace covkit::sample
