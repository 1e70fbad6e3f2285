#include "format/object_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>

#include "format/byte_reader.h"
#include "format/gcov_tags.h"
#include "format/input_kind.h"
#include "util/file_io.h"
#include "util/printable.h"

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
  // Never a FIFO's or a device's: a tree another user can write may hold
  // one under a .gcda's name, and its open would wait for ever.
  auto head = util::read_file_head(path, 12);
  if (!head || head->size() < 12) return std::nullopt;
  ByteReader r(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(head->data()), head->size()));
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

// The names of `dir_fd`'s entries and their types (DT_*), "." and ".."
// left out; false (errno set) when it cannot be read. getdents64 itself:
// readdir's fdopendir costs a stat and two fcntl calls for each of a build
// tree's directories (zstd's: 144, a third of the search's system calls).
bool list_directory(int dir_fd, std::vector<std::pair<std::string, unsigned char>>& names) {
  alignas(8) char buf[32768];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, dir_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    for (long at = 0; at < n;) {
      struct Entry {
        uint64_t ino;
        int64_t off;
        unsigned short reclen;
        unsigned char type;
        char name[1];
      };
      const auto* e = reinterpret_cast<const Entry*>(buf + at);
      at += e->reclen;
      const std::string_view name(e->name);
      if (name != "." && name != "..") names.emplace_back(name, e->type);
    }
  }
}

// What one root holds: its notes and data files, and whether it is a file.
struct RootFiles {
  std::string abs;  // absolute, normalized
  bool is_file = false;
  std::set<std::string> notes, data;
};

// The notes and data files under the open directory `dir_fd` (closed
// here), whose path starts with `prefix`, as recursive_directory_iterator
// found them: no link to a directory followed, a directory that may not be
// read passed over, anything but a directory (or a link to one) taken.
void walk_directory(int dir_fd, const std::string& prefix, RootFiles& out, std::vector<std::string>& warnings) {
  std::vector<std::pair<std::string, unsigned char>> names;
  if (!list_directory(dir_fd, names))
    warnings.push_back(fmt::format("{}: {}", util::printable(prefix), std::strerror(errno)));
  for (const auto& [name, type] : names) {
    bool is_dir = type == DT_DIR;
    struct stat st;
    if (type == DT_UNKNOWN && ::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
      is_dir = S_ISDIR(st.st_mode);
    if (is_dir) {
      const int sub = ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub >= 0)
        walk_directory(sub, prefix + name + "/", out, warnings);
      else if (errno != EACCES)
        warnings.push_back(fmt::format("{}: {}", util::printable(prefix + name), std::strerror(errno)));
      continue;
    }
    const bool notes = has_suffix(name, ".gcno");
    if (!notes && !has_suffix(name, ".gcda")) continue;
    // Not only regular files: a .gcda that is a FIFO or a device is a run's
    // counts that cannot be read, which the report must say, not skip. A
    // link to a directory is none.
    if ((type == DT_LNK || type == DT_UNKNOWN) && ::fstatat(dir_fd, name.c_str(), &st, 0) == 0 && S_ISDIR(st.st_mode))
      continue;
    (notes ? out.notes : out.data).insert(prefix + name);
  }
  ::close(dir_fd);
}

RootFiles walk(const std::string& root, std::vector<std::string>& warnings) {
  RootFiles out;
  std::error_code ec;
  out.abs = absolute_path(root);
  const std::string& abs = out.abs;
  auto st = fs::status(abs, ec);
  if (ec || !fs::exists(st)) {
    warnings.push_back(fmt::format("{}: no such file or directory", root));
    return out;
  }
  auto add = [&](const std::string& p) {
    if (has_suffix(p, ".gcno")) out.notes.insert(p);
    else if (has_suffix(p, ".gcda")) out.data.insert(p);
  };
  if (!fs::is_directory(st)) {
    out.is_file = true;
    if (!has_suffix(abs, ".gcno") && !has_suffix(abs, ".gcda"))
      warnings.push_back(fmt::format("{}: neither a directory nor a .gcno/.gcda file{}", root,
                                     wrong_kind_hint(root, InputKind::notes_file)));
    add(abs);
    // A single file brings its partner from beside it (x.gcda <-> x.gcno).
    const std::string partner = stem_path(abs) + (has_suffix(abs, ".gcda") ? ".gcno" : ".gcda");
    if ((has_suffix(abs, ".gcno") || has_suffix(abs, ".gcda")) && fs::is_regular_file(partner, ec)) add(partner);
    return out;
  }
  const int fd = ::open(abs.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (errno != EACCES)  // as skip_permission_denied: an unreadable directory is passed over
      warnings.push_back(fmt::format("{}: cannot read directory: {}", root, std::strerror(errno)));
    return out;
  }
  walk_directory(fd, abs == "/" ? std::string("/") : abs + "/", out, warnings);
  return out;
}

bool is_below(const std::string& path, const std::string& dir) {
  return dir == "/" ? path.size() > 1
                    : path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/';
}

// The notes file a data file under `dir` records by its place there:
// DIR/home/me/build/x.gcda -> /home/me/build/x.gcno (`live dump -o DIR`, and
// libgcov under GCOV_PREFIX=DIR without a strip); empty when there is none.
std::string recorded_notes(const std::string& data, const std::string& dir) {
  if (!is_below(data, dir)) return {};
  const std::string notes = stem_path(data.substr(dir == "/" ? 0 : dir.size())) + ".gcno";
  std::error_code ec;
  return fs::is_regular_file(notes, ec) ? notes : std::string();
}

// The tree a data file was found in, as it pairs with its notes file: the
// directory left when the tail of directory names the two share is taken
// off the data file's (/b/snap/b/obj/x.gcda with /b/obj/x.gcno: /b/snap);
// "" beside it.
std::string data_place(const std::string& data, const std::string& notes) {
  std::string_view d = data, n = notes;
  d = d.substr(0, d.rfind('/'));
  n = n.substr(0, n.rfind('/'));
  if (d == n) return {};
  while (!d.empty() && !n.empty()) {
    const size_t sd = d.rfind('/'), sn = n.rfind('/');
    if (d.substr(sd + 1) != n.substr(sn + 1)) break;
    d = d.substr(0, sd);
    n = n.substr(0, sn);
  }
  return d.empty() ? std::string("/") : std::string(d);
}

// "/b/snap (3 files), /b/d1 (3 files)"; the files beside their notes are
// "beside the .gcno files".
std::string places_text(const std::map<std::string, size_t>& places) {
  std::string out;
  size_t shown = 0;
  for (const auto& [place, files] : places) {
    if (shown == 4) {
      out += fmt::format(" and {} more", places.size() - shown);
      break;
    }
    out += fmt::format("{}{} ({} file{})", shown ? ", " : "", place.empty() ? "beside the .gcno files" : util::printable(place), files,
                       files == 1 ? "" : "s");
    ++shown;
  }
  return out;
}

struct Pairing {
  std::string notes, data;
  size_t root;  // the deepest root the data file was found under
};

// Of the data files of one notes file, which to use; the rest go to
// `left_out`. False when the choice is the user's (several, none named,
// none beside the notes).
bool choose_data(std::vector<Pairing>& pairs, const std::vector<bool>& named, std::vector<Pairing>& left_out) {
  std::vector<Pairing> chosen;
  std::map<size_t, size_t> per_root;
  for (const Pairing& p : pairs)
    if (named[p.root]) {
      chosen.push_back(p);
      ++per_root[p.root];
    }
  // A named tree holding two of them (snap1/ and snap2/ below one PATH)
  // names neither.
  for (const auto& [root, n] : per_root)
    if (n > 1) return false;
  if (chosen.empty()) {
    for (const Pairing& p : pairs)
      if (stem_path(p.data) == stem_path(p.notes)) chosen.push_back(p);
    if (chosen.size() != 1) return false;
  }
  for (const Pairing& p : pairs)
    if (std::find_if(chosen.begin(), chosen.end(), [&](const Pairing& c) { return c.data == p.data; }) == chosen.end())
      left_out.push_back(p);
  pairs = std::move(chosen);
  return true;
}

}  // namespace

ObjectSearch find_objects(const std::vector<std::string>& root_names, const std::vector<std::string>& notes_dirs,
                          SeveralData several) {
  ObjectSearch out;
  std::vector<RootFiles> roots;
  for (const auto& r : root_names) roots.push_back(walk(r, out.warnings));
  std::set<std::string> notes, data;
  for (const RootFiles& r : roots) {
    notes.insert(r.notes.begin(), r.notes.end());
    data.insert(r.data.begin(), r.data.end());
  }
  for (const auto& r : notes_dirs) {
    RootFiles n = walk(r, out.warnings);
    notes.insert(n.notes.begin(), n.notes.end());
  }
  // A data file belongs to the deepest root that holds it (`covkit report
  // d2 .`: d2's files are d2's, not the build tree's); a root names its
  // data when it is a file or holds no notes (a data tree).
  std::vector<bool> named(roots.size());
  for (size_t i = 0; i < roots.size(); ++i) named[i] = roots[i].is_file || roots[i].notes.empty();
  auto root_of = [&](const std::string& d) {
    size_t best = 0, best_depth = 0;
    for (size_t i = 0; i < roots.size(); ++i) {
      const RootFiles& r = roots[i];
      // A file root is deeper than any directory: the file itself named.
      const size_t depth = r.is_file ? (r.data.count(d) ? SIZE_MAX : 0) : (is_below(d, r.abs) ? r.abs.size() + 1 : 0);
      if (depth > best_depth) best = i, best_depth = depth;
    }
    return best;
  };
  // Index notes by file stem ("foo" of ".../foo.gcno") for the tree-crossing case.
  std::map<std::string, std::vector<std::string>> by_base;
  for (const auto& n : notes) {
    std::string stem = stem_path(n);
    by_base[stem.substr(stem.rfind('/') + 1)].push_back(stem);
  }
  std::map<std::string, std::vector<Pairing>> pairs;  // by notes path
  for (const auto& d : data) {
    const size_t root = root_of(d);
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
      if (match.empty() && !roots.empty() && !roots[root].is_file) {
        // The notes at the path the data tree records (`covkit report snap/`).
        const std::string recorded = recorded_notes(d, roots[root].abs);
        if (!recorded.empty()) match = stem_path(recorded);
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
    pairs[match + ".gcno"].push_back({match + ".gcno", d, root});
  }
  // Several data files of one object: never added up silently.
  std::map<std::string, size_t> used_places, left_places, conflict_places;
  size_t conflicts = 0;
  for (auto& [n, ps] : pairs) {
    if (ps.size() < 2 || several == SeveralData::add) continue;
    std::vector<Pairing> left_out;
    const std::vector<Pairing> all = ps;
    if (!choose_data(ps, named, left_out)) {
      ++conflicts;
      for (const Pairing& p : all) ++conflict_places[data_place(p.data, p.notes)];
      ps.clear();
      continue;
    }
    for (const Pairing& p : ps) ++used_places[data_place(p.data, p.notes)];
    for (const Pairing& p : left_out) ++left_places[data_place(p.data, p.notes)];
  }
  if (!left_places.empty())
    out.warnings.push_back(fmt::format(
        "data files of the same objects were found in several places; used: {}; left out: {} (--add adds them all; "
        "or name each tree to use)",
        places_text(used_places), places_text(left_places)));
  if (conflicts > 0)
    out.conflict = fmt::format(
        "the data files of {} object{} were found in several places and none of them is named or beside its .gcno "
        "file: {} (name the tree to use as a PATH, or add them all with --add)",
        conflicts, conflicts == 1 ? "" : "s", places_text(conflict_places));
  std::set<std::string> paired;
  for (const auto& [n, ps] : pairs)
    for (const Pairing& p : ps) {
      paired.insert(n);
      out.objects.push_back({p.notes, p.data});
    }
  for (const auto& n : notes)
    if (!paired.count(n) && !pairs.count(n)) out.objects.push_back({n, ""});
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
