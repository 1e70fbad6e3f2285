#include "live/dump_journal.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>

#include <fmt/format.h>

#include "live/proc_files.h"

namespace covkit::live {

namespace {

constexpr char kJournalMagic[8] = {'C', 'K', 'L', 'J', 'R', 'N', 'L', '1'};
constexpr uint32_t kTagHeader = 1, kTagResets = 2, kTagRenaming = 3, kTagCommitting = 4;
constexpr const char* kJournalSuffix = ".journal";

// Little-endian fields, appended.
struct JournalEncoder {
  std::vector<uint8_t> out;
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
  }
  void bytes(const void* p, size_t n) {
    u64(n);
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
  void str(const std::string& s) { bytes(s.data(), s.size()); }
};

// The same fields read back, every read checked against the end; a read
// past it sets `bad` and gives zeros from then on.
struct JournalDecoder {
  const uint8_t* p;
  size_t n, at = 0;
  bool bad = false;
  bool need(size_t k) {
    if (bad || n - at < k) bad = true;
    return !bad;
  }
  uint32_t u32() {
    if (!need(4)) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(p[at + i]) << (8 * i);
    at += 4;
    return v;
  }
  uint64_t u64() {
    if (!need(8)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(p[at + i]) << (8 * i);
    at += 8;
    return v;
  }
  std::vector<uint8_t> bytes() {
    uint64_t k = u64();
    if (!need(k)) return {};
    std::vector<uint8_t> v(p + at, p + at + k);
    at += k;
    return v;
  }
  std::string str() {
    auto b = bytes();
    return std::string(b.begin(), b.end());
  }
  // A count of items of at least `each` bytes: never more than the bytes left.
  uint64_t count(size_t each) {
    uint64_t k = u64();
    if (!bad && k > (n - at) / each) bad = true;
    return bad ? 0 : k;
  }
};

std::vector<uint8_t> encode_strings(const std::vector<std::string>& list) {
  JournalEncoder e;
  e.u64(list.size());
  for (const std::string& s : list) e.str(s);
  return e.out;
}

std::vector<std::string> decode_strings(JournalDecoder& d) {
  std::vector<std::string> list;
  for (uint64_t i = 0, k = d.count(8); i < k && !d.bad; ++i) list.push_back(d.str());
  return list;
}

std::optional<JournalHeader> decode_header(JournalDecoder& d) {
  JournalHeader h;
  h.kind = JournalKind(d.u32());
  h.id = d.str();
  h.created = int64_t(d.u64());
  h.boot_id = d.str();
  h.marker.begun = d.u32();
  h.marker.done = d.u32();
  h.directory = d.str();
  h.separate = d.u32() != 0;
  for (uint64_t i = 0, k = d.count(8); i < k && !d.bad; ++i) {
    JournalProcess p;
    p.pid = pid_t(d.u32());
    p.start_time = d.u64();
    for (uint64_t r = 0, nr = d.count(8); r < nr && !d.bad; ++r) p.roots.push_back(d.u64());
    p.place.uid = d.u32();
    p.place.gid = d.u32();
    p.place.cwd = d.str();
    p.place.gcov_prefix = d.str();
    p.place.gcov_prefix_strip = int(d.u32());
    for (uint64_t f = 0, nf = d.count(16); f < nf && !d.bad; ++f) {
      std::string name = d.str();
      p.files.emplace_back(std::move(name), d.bytes());
    }
    h.processes.push_back(std::move(p));
  }
  if (d.bad || (h.kind != JournalKind::kDump && h.kind != JournalKind::kReset)) return std::nullopt;
  return h;
}

Error journal_error(int err, const std::string& what) {
  Error e(fmt::format("{}: {}", what, std::strerror(err)));
  e.errno_value = err;
  return e;
}

// A directory of covkit's state: created if missing (mode 0700), and
// refused unless it is a directory of covkit's own user that no one else
// may write.
Expected<void> own_directory(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) return journal_error(errno, path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return journal_error(errno, path);
  if (!S_ISDIR(st.st_mode)) return Error(fmt::format("{}: not a directory", path));
  if (st.st_uid != ::geteuid())
    return Error(fmt::format("{}: belongs to uid {}, not to covkit's user (uid {}): refused", path, st.st_uid,
                             ::geteuid()));
  if (st.st_mode & 022) return Error(fmt::format("{}: others may write in it: refused", path));
  return {};
}

// mkdir -p of the state directory's parents (theirs are the system's: not checked).
Expected<void> make_parents_of(const std::string& path) {
  for (size_t at = path.find('/', 1); at != std::string::npos; at = path.find('/', at + 1)) {
    std::string dir = path.substr(0, at);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return journal_error(errno, dir);
  }
  return {};
}

std::string state_base() {
  if (const char* s = std::getenv("COVKIT_STATE_DIR"); s && *s) return s;
  if (::geteuid() == 0) return "/var/lib/covkit";
  if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x == '/') return std::string(x) + "/covkit";
  if (const char* h = std::getenv("HOME"); h && *h == '/') return std::string(h) + "/.local/state/covkit";
  return fmt::format("/tmp/covkit-state-{}", ::geteuid());
}

Expected<void> write_all(int fd, const std::vector<uint8_t>& bytes) {
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return journal_error(n < 0 ? errno : ENOSPC, "cannot write the journal");
    done += size_t(n);
  }
  return {};
}

std::vector<uint8_t> record(uint32_t tag, const std::vector<uint8_t>& payload) {
  JournalEncoder e;
  e.u32(tag);
  e.u64(payload.size());
  e.out.insert(e.out.end(), payload.begin(), payload.end());
  e.u32(uint32_t(::crc32(0, e.out.data(), uInt(e.out.size()))));
  return e.out;
}

Expected<std::vector<uint8_t>> read_fd(int fd) {
  std::vector<uint8_t> bytes;
  uint8_t buf[65536];
  for (off_t at = 0;;) {
    ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return journal_error(errno, "cannot read the journal");
    if (n == 0) break;
    bytes.insert(bytes.end(), buf, buf + n);
    at += n;
  }
  return bytes;
}

}  // namespace

namespace {

void encode_header_into(JournalEncoder& e, const JournalHeader& h) {
  e.u32(uint32_t(h.kind));
  e.str(h.id);
  e.u64(uint64_t(h.created));
  e.str(h.boot_id);
  e.u32(h.marker.begun);
  e.u32(h.marker.done);
  e.str(h.directory);
  e.u32(h.separate ? 1 : 0);
  e.u64(h.processes.size());
  for (const JournalProcess& p : h.processes) {
    e.u32(uint32_t(p.pid));
    e.u64(p.start_time);
    e.u64(p.roots.size());
    for (uint64_t r : p.roots) e.u64(r);
    e.u32(p.place.uid);
    e.u32(p.place.gid);
    e.str(p.place.cwd);
    e.str(p.place.gcov_prefix);
    e.u32(uint32_t(p.place.gcov_prefix_strip));
    e.u64(p.files.size());
    for (const auto& [name, bytes] : p.files) {
      e.str(name);
      e.bytes(bytes.data(), bytes.size());
    }
  }
}

// The journal's first bytes: the magic and the header record, encoded in
// place (it is written while the processes are stopped: no copy spared).
std::vector<uint8_t> header_file_bytes(const JournalHeader& h) {
  JournalEncoder e;
  size_t size = 64;
  for (const JournalProcess& p : h.processes)
    for (const auto& [name, bytes] : p.files) size += name.size() + bytes.size() + 16;
  e.out.reserve(size + 4096);
  e.out.assign(kJournalMagic, kJournalMagic + sizeof kJournalMagic);
  const size_t start = e.out.size();
  e.u32(kTagHeader);
  e.u64(0);  // the length, once known
  encode_header_into(e, h);
  const uint64_t len = e.out.size() - start - 12;
  for (int i = 0; i < 8; ++i) e.out[start + 4 + i] = uint8_t(len >> (8 * i));
  e.u32(uint32_t(::crc32(0, e.out.data() + start, uInt(e.out.size() - start))));
  return e.out;
}

}  // namespace

std::vector<uint8_t> encode_journal_header(const JournalHeader& h) {
  JournalEncoder e;
  encode_header_into(e, h);
  return e.out;
}

JournalRecords decode_journal(const std::vector<uint8_t>& bytes) {
  JournalRecords out;
  if (bytes.size() < sizeof kJournalMagic || std::memcmp(bytes.data(), kJournalMagic, sizeof kJournalMagic) != 0)
    return out;
  for (size_t at = sizeof kJournalMagic; bytes.size() - at >= 16;) {
    JournalDecoder head{bytes.data() + at, bytes.size() - at};
    uint32_t tag = head.u32();
    uint64_t len = head.u64();
    if (len > bytes.size() - at - 16) break;  // cut short
    uint32_t crc = JournalDecoder{bytes.data() + at + 12 + len, 4}.u32();
    if (crc != uint32_t(::crc32(0, bytes.data() + at, uInt(12 + len)))) break;
    JournalDecoder d{bytes.data() + at + 12, size_t(len)};
    at += 16 + len;
    if (tag == kTagHeader) {
      if (out.header) break;
      out.header = decode_header(d);
      if (!out.header) break;
    } else if (!out.header) {
      break;  // nothing counts before the header
    } else if (tag == kTagResets) {
      std::vector<pid_t> pids;
      for (uint64_t i = 0, k = d.count(4); i < k && !d.bad; ++i) pids.push_back(pid_t(d.u32()));
      if (d.bad) break;
      out.resets_done = std::move(pids);
    } else if (tag == kTagRenaming) {
      JournalRound r;
      r.round = d.u32();
      r.paths = decode_strings(d);
      // The staged files' inodes (none in an older covkit's journal).
      if (!d.bad && d.at < d.n)
        for (uint64_t i = 0, k = d.count(8); i < k && !d.bad; ++i) r.inodes.push_back(d.u64());
      if (d.bad || (!r.inodes.empty() && r.inodes.size() != r.paths.size())) break;
      out.renaming = std::move(r);
    } else if (tag == kTagCommitting) {
      std::vector<std::pair<std::string, std::string>> files;
      for (uint64_t i = 0, k = d.count(16); i < k && !d.bad; ++i) {
        std::string path = d.str();
        files.emplace_back(std::move(path), d.str());
      }
      if (d.bad) break;
      out.committing.push_back(std::move(files));
    } else {
      break;
    }
  }
  return out;
}

Expected<std::string> journal_directory(bool create) {
  std::string base = state_base();
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  if (!create) {
    std::string dir = base + "/live";
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) return journal_error(errno, dir);
    if (auto r = own_directory(dir); !r) return r.error();
    return dir;
  }
  if (auto r = make_parents_of(base); !r) return r.error();
  if (auto r = own_directory(base); !r) return r.error();
  std::string dir = base + "/live";
  if (auto r = own_directory(dir); !r) return r.error();
  return dir;
}

std::string new_journal_id() {
  std::random_device rd;
  uint64_t v = (uint64_t(rd()) << 32) | rd();
  return fmt::format("{:016x}", v);
}

std::string current_boot_id() {
  auto text = read_proc_file("/proc/sys/kernel/random/boot_id");
  if (!text) return "";
  std::string id = *text;
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

Expected<Journal> Journal::open(const std::string& id) {
  auto dir = journal_directory();
  if (!dir) return dir.error();
  std::string path = fmt::format("{}/{}{}", *dir, id, kJournalSuffix);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return journal_error(errno, path);
  Journal j(fd, path, id);
  if (::flock(fd, LOCK_EX) != 0) {
    Error e = journal_error(errno, path);
    j.remove();
    return e;
  }
  return j;
}

Expected<void> Journal::write_header(const JournalHeader& header) {
  std::vector<uint8_t> bytes = header_file_bytes(header);
  if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0) return journal_error(errno, path_);
  if (auto w = write_all(fd_, bytes); !w) {
    clear();
    return Error(fmt::format("{}: {}", path_, w.error().message));
  }
  written_ = true;
  return {};
}

void Journal::clear() {
  if (fd_ >= 0) (void)::ftruncate(fd_, 0);
  written_ = false;
}

Expected<Journal> Journal::create(const JournalHeader& header) {
  auto j = open(header.id);
  if (!j) return j.error();
  if (auto w = j->write_header(header); !w) {
    j->remove();
    return w.error();
  }
  return j;
}

Journal::Journal(Journal&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)), id_(std::move(o.id_)), written_(o.written_) {}

Journal::~Journal() {
  if (fd_ < 0) return;
  if (!written_) ::unlink(path_.c_str());  // nothing in it: a command that gave up before its stop
  ::close(fd_);  // the lock goes with it
}

Expected<void> Journal::append(uint32_t tag, const std::vector<uint8_t>& payload) {
  if (fd_ < 0) return Error("the journal is closed");
  if (::lseek(fd_, 0, SEEK_END) < 0) return journal_error(errno, path_);
  if (auto w = write_all(fd_, record(tag, payload)); !w) return Error(fmt::format("{}: {}", path_, w.error().message));
  return {};
}

Expected<void> Journal::resets_done(const std::vector<pid_t>& pids) {
  JournalEncoder e;
  e.u64(pids.size());
  for (pid_t p : pids) e.u32(uint32_t(p));
  return append(kTagResets, e.out);
}

Expected<void> Journal::renaming(const JournalRound& round) {
  JournalEncoder e;
  e.u32(round.round);
  auto list = encode_strings(round.paths);
  e.out.insert(e.out.end(), list.begin(), list.end());
  e.u64(round.inodes.size());
  for (uint64_t inode : round.inodes) e.u64(inode);
  return append(kTagRenaming, e.out);
}

Expected<void> Journal::committing(const std::vector<std::pair<std::string, std::string>>& path_md5) {
  JournalEncoder e;
  e.u64(path_md5.size());
  for (const auto& [path, md5] : path_md5) {
    e.str(path);
    e.str(md5);
  }
  return append(kTagCommitting, e.out);
}

void Journal::remove() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while locked: a waiting covkit then sees it gone
  ::close(fd_);
  fd_ = -1;
}

LeftJournal::LeftJournal(LeftJournal&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)), records_(std::move(o.records_)) {}

LeftJournal::~LeftJournal() {
  if (fd_ >= 0) ::close(fd_);
}

Journal LeftJournal::resume() && {
  std::string id = records_.header ? records_.header->id : std::string();
  return Journal(std::exchange(fd_, -1), path_, std::move(id), true);
}

void LeftJournal::remove() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

std::vector<LeftJournal> left_journals(const std::string& directory, std::vector<std::string>* problems) {
  std::vector<LeftJournal> out;
  std::vector<std::string> names;
  if (DIR* d = ::opendir(directory.c_str())) {
    while (dirent* ent = ::readdir(d)) {
      std::string_view name(ent->d_name);
      if (name.size() > std::strlen(kJournalSuffix) && name.ends_with(kJournalSuffix)) names.emplace_back(name);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    std::string path = directory + "/" + name;
    int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) continue;  // gone meanwhile
    // Locked: its covkit is at work on it.
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      continue;
    }
    struct stat st {};
    // Removed by another covkit that finished it while this one waited.
    if (::fstat(fd, &st) != 0 || st.st_nlink == 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
      ::close(fd);
      continue;
    }
    auto bytes = read_fd(fd);
    if (!bytes) {
      if (problems) problems->push_back(fmt::format("{}: {}", path, bytes.error().message));
      ::close(fd);
      continue;
    }
    out.push_back(LeftJournal(fd, path, decode_journal(*bytes)));
  }
  return out;
}

}  // namespace covkit::live
