#include "format/object_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>

#include "format/byte_reader.h"
#include "format/gcov_tags.h"

namespace covkit::format {

namespace fs = std::filesystem;

std::string absolute_path(const std::string& path, const std::string& base) {
  std::string joined;
  if (!path.empty() && path[0] == '/') {
    joined = path;
  } else {
    std::string b = base;
    if (b.empty()) {
      std::error_code ec;
      b = fs::current_path(ec).string();
    } else if (b[0] != '/') {
      b = absolute_path(b);
    }
    joined = b + "/" + path;
  }
  std::vector<std::string_view> parts;
  std::string_view rest = joined;
  while (!rest.empty()) {
    size_t slash = rest.find('/');
    std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (std::string_view p : parts) {
    out += '/';
    out += p;
  }
  return out.empty() ? "/" : out;
}

namespace {

bool has_suffix(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string stem_path(const std::string& path) { return path.substr(0, path.rfind('.')); }

// The stamp of a .gcno or .gcda header (magic, version, stamp: the same word
// in both files of one compilation), in either byte order; nullopt when the
// file cannot be read or has no such header.
std::optional<uint32_t> header_stamp(const std::string& path, uint32_t magic) {
  std::ifstream in(path, std::ios::binary);
  uint8_t h[12];
  if (!in.read(reinterpret_cast<char*>(h), sizeof h)) return std::nullopt;
  ByteReader r(h);
  if (!r.read_magic(magic) || !r.u32()) return std::nullopt;  // the version word
  return r.u32();
}

// Of notes files that match a data file's path equally well, the one its
// stamp names (the compilation that wrote it); empty when not exactly one.
std::string by_stamp(const std::string& data, const std::vector<std::string>& candidates) {
  const std::optional<uint32_t> stamp = header_stamp(data, kDataMagic);
  if (!stamp) return {};
  std::string found;
  for (const std::string& c : candidates) {
    if (header_stamp(c + ".gcno", kNotesMagic) != stamp) continue;
    if (!found.empty()) return {};
    found = c;
  }
  return found;
}

// How many trailing path components two stems share.
size_t shared_tail(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (!a.empty() && !b.empty()) {
    size_t sa = a.rfind('/'), sb = b.rfind('/');
    std::string_view ca = sa == std::string_view::npos ? a : a.substr(sa + 1);
    std::string_view cb = sb == std::string_view::npos ? b : b.substr(sb + 1);
    if (ca != cb) break;
    ++n;
    a = sa == std::string_view::npos ? std::string_view{} : a.substr(0, sa);
    b = sb == std::string_view::npos ? std::string_view{} : b.substr(0, sb);
  }
  return n;
}

void walk(const std::string& root, std::set<std::string>& notes, std::set<std::string>& data,
          std::vector<std::string>& warnings) {
  std::error_code ec;
  const std::string abs = absolute_path(root);
  auto st = fs::status(abs, ec);
  if (ec || !fs::exists(st)) {
    warnings.push_back(fmt::format("{}: no such file or directory", root));
    return;
  }
  auto add = [&](const std::string& p) {
    if (has_suffix(p, ".gcno")) notes.insert(p);
    else if (has_suffix(p, ".gcda")) data.insert(p);
  };
  if (!fs::is_directory(st)) {
    if (!has_suffix(abs, ".gcno") && !has_suffix(abs, ".gcda"))
      warnings.push_back(fmt::format("{}: neither a directory nor a .gcno/.gcda file", root));
    add(abs);
    // A single file brings its partner from beside it (x.gcda <-> x.gcno).
    const std::string partner = stem_path(abs) + (has_suffix(abs, ".gcda") ? ".gcno" : ".gcda");
    if ((has_suffix(abs, ".gcno") || has_suffix(abs, ".gcda")) && fs::is_regular_file(partner, ec)) add(partner);
    return;
  }
  fs::recursive_directory_iterator it(abs, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) {
    warnings.push_back(fmt::format("{}: cannot read directory: {}", root, ec.message()));
    return;
  }
  for (; it != end; it.increment(ec)) {
    if (ec) {
      warnings.push_back(fmt::format("{}: {}", it->path().string(), ec.message()));
      ec.clear();
      continue;
    }
    // Not only regular files: a .gcda that is a FIFO or a device is a run's
    // counts that cannot be read, which the report must say, not skip.
    if (!it->is_directory(ec)) add(it->path().string());
  }
}

}  // namespace

ObjectSearch find_objects(const std::vector<std::string>& roots, const std::vector<std::string>& notes_dirs) {
  ObjectSearch out;
  std::set<std::string> notes, data;
  for (const auto& r : roots) walk(r, notes, data, out.warnings);
  for (const auto& r : notes_dirs) {
    std::set<std::string> ignored;
    walk(r, notes, ignored, out.warnings);
  }
  // Index notes by file stem ("foo" of ".../foo.gcno") for the tree-crossing case.
  std::map<std::string, std::vector<std::string>> by_base;
  for (const auto& n : notes) {
    std::string stem = stem_path(n);
    by_base[stem.substr(stem.rfind('/') + 1)].push_back(stem);
  }
  std::set<std::string> paired;
  for (const auto& d : data) {
    std::string stem = stem_path(d);
    std::string match;
    if (notes.count(stem + ".gcno")) {
      match = stem;
    } else {
      auto it = by_base.find(stem.substr(stem.rfind('/') + 1));
      size_t best = 0;
      std::vector<std::string> tied;  // every candidate sharing the longest tail
      if (it != by_base.end())
        for (const auto& cand : it->second) {
          size_t n = shared_tail(stem, cand);
          if (n > best) {
            best = n, match = cand, tied = {cand};
          } else if (n == best && n > 0) {
            tied.push_back(cand);
          }
        }
      if (match.empty()) {
        out.warnings.push_back(fmt::format("{}: no matching .gcno file found; skipped", d));
        ++out.unpaired_data;
        continue;
      }
      if (tied.size() > 1) {
        // The path cannot tell (two builds of one tree, a.o and b.o both from
        // x.c in different directories); the stamp both files carry can.
        match = by_stamp(d, tied);
        if (match.empty()) {
          out.warnings.push_back(fmt::format(
              "{}: several .gcno files match equally well and no single one has its stamp; skipped (pass the "
              "build tree that holds it)",
              d));
          continue;
        }
      }
    }
    paired.insert(match + ".gcno");
    out.objects.push_back({match + ".gcno", d});
  }
  for (const auto& n : notes)
    if (!paired.count(n)) out.objects.push_back({n, ""});
  std::sort(out.objects.begin(), out.objects.end(), [](const ObjectFiles& a, const ObjectFiles& b) {
    return a.notes != b.notes ? a.notes < b.notes : a.data < b.data;
  });
  return out;
}

std::vector<std::string> build_directories_below(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (!it->is_directory(type_ec)) continue;
    for (const char* marker : {"CMakeCache.txt", "build.ninja", "meson-private", "config.status"}) {
      if (fs::exists(it->path() / marker, type_ec)) {
        found.push_back(it->path().string());
        break;
      }
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

namespace {

// The directories in `dir` (links to directories too: a build/ that is a
// link is a build directory), sorted, `except` left out; each entry read
// spends one of `budget`.
std::vector<std::string> subdirectories_of(const std::string& dir, const std::string& except, size_t& budget) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end && budget > 0; it.increment(ec)) {
    --budget;
    std::error_code type_ec;
    const std::string path = it->path().string();
    if (path != except && it->is_directory(type_ec) && it->path().filename().string()[0] != '.') out.push_back(path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::string> directories_with_notes_near(const std::string& searched) {
  const std::string abs = absolute_path(searched);
  std::error_code ec;
  if (abs == "/" || !fs::is_directory(abs, ec)) return {};
  size_t budget = kNotesSearchEntries;
  auto parent_of = [](const std::string& p) {
    const size_t slash = p.rfind('/');
    return slash == 0 ? std::string("/") : p.substr(0, slash);
  };
  const std::string parent = parent_of(abs);
  std::vector<std::string> candidates = subdirectories_of(parent, abs, budget);
  const size_t siblings = candidates.size();
  if (parent != "/")
    for (std::string& c : subdirectories_of(parent_of(parent), parent, budget)) candidates.push_back(std::move(c));

  // Breadth first over all candidates at once, a level at a time.
  struct Pending {
    std::string dir;
    size_t candidate;
  };
  std::vector<Pending> level;
  for (size_t i = 0; i < candidates.size(); ++i) level.push_back({candidates[i], i});
  std::vector<bool> holds(candidates.size(), false);
  for (int depth = 0; depth <= kNotesSearchDepth && !level.empty() && budget > 0; ++depth) {
    std::vector<Pending> next;
    for (const Pending& p : level) {
      if (holds[p.candidate]) continue;
      for (fs::directory_iterator it(p.dir, ec), end; !ec && it != end && budget > 0; it.increment(ec)) {
        --budget;
        const std::string name = it->path().filename().string();
        std::error_code type_ec;
        if (has_suffix(name, ".gcno")) {  // a link to one too (kernel-style trees)
          holds[p.candidate] = true;
          break;
        }
        if (name[0] != '.' && !it->is_symlink(type_ec) && it->is_directory(type_ec))
          next.push_back({it->path().string(), p.candidate});
      }
      ec.clear();
    }
    level = std::move(next);
  }
  std::vector<std::string> found;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (i == siblings && !found.empty()) break;  // the nearest level only
    if (holds[i]) found.push_back(candidates[i]);
  }
  return found;
}

}  // namespace covkit::format
