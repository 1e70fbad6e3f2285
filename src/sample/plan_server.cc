#include "sample/plan_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "runtime/sample/sample_contract.h"
#include "live/process_owner.h"
#include "util/foreign_data.h"

namespace covkit::sample {

namespace {

// Who sent what is read: the kernel's credentials of each sender (the
// connection has SO_PASSCRED, and a stream never joins bytes of two
// senders in one read). kNobodyYet until a byte came; kMixed when bytes
// of two users other than covkit's make up one request.
constexpr uid_t kNobodyYet = uid_t(-1), kMixed = uid_t(-2);

struct Sender {
  uid_t uid = kNobodyYet;
  gid_t gid = gid_t(-1);
  pid_t pid = 0;
};

bool read_exact(int fd, void* buf, size_t size, Sender& sender) {
  auto* p = static_cast<char*>(buf);
  while (size) {
    iovec iov{p, size};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n = ::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    ucred cred{0, kMixed, gid_t(-1)};  // no credentials: trusted no more than a stranger
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len >= CMSG_LEN(sizeof(ucred)))
        std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
    if (sender.uid == kNobodyYet || sender.uid == ::geteuid()) sender = {cred.uid, cred.gid, cred.pid};
    else if ((cred.uid != sender.uid || cred.gid != sender.gid) && cred.uid != ::geteuid()) sender.uid = kMixed;
    p += n;
    size -= size_t(n);
  }
  return true;
}

// The rights of the process that asked: the user and group its messages
// carry, and of the groups its /proc status lists (a process that dropped
// its groups has none) those its user has in the group database, so that
// a pid taken by another process since the request gives no group the
// user could not have anyway.
util::DataOwner asker_identity(const Sender& sender) {
  util::DataOwner asker{sender.uid, sender.gid, {}};
  const std::optional<util::DataOwner> process = live::process_owner(sender.pid);
  if (!process || process->uid != sender.uid) return asker;
  const util::DataOwner listed = util::file_owner(sender.uid);
  for (gid_t g : process->groups)
    if (std::find(listed.groups.begin(), listed.groups.end(), g) != listed.groups.end()) asker.groups.push_back(g);
  return asker;
}

bool write_exact(int fd, const void* buf, size_t size) {
  const auto* p = static_cast<const char*>(buf);
  while (size) {
    ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= size_t(n);
  }
  return true;
}

std::string hex(const std::vector<uint8_t>& bytes) {
  std::string out;
  for (uint8_t b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

// One answer of the protocol: the sites (ascending, unique) or a refusal.
struct Answer {
  std::vector<uint64_t> sites;
  std::string gaps;     // sites[1..] as ULEB128 gaps, the answer's wire form
  std::string refused;  // non-empty: why there are none
};

}  // namespace

struct PlanServer::State {
  BreakpointProvider provider;
  std::string dir, path;
  int listener = -1;
  int wake[2] = {-1, -1};
  std::thread thread;
  std::map<std::tuple<uid_t, gid_t, std::vector<gid_t>, std::string, std::string>, Answer> answers;

  // The analysis of `path` for a process of another user than covkit's:
  // with that process's rights (asker_identity). The path is the program's
  // to choose, and a program that dropped root's rights (or never had them)
  // may not have covkit, as root, analyse a file it could not read itself:
  // the sites would tell it the binary's code.
  Expected<std::vector<uint64_t>> analysed(const util::DataOwner& asker, const std::string& path,
                                           const std::string& build_id) {
    if (asker.uid == ::geteuid()) return provider(ModuleIdentity{path, build_id, {}});
    if (asker.uid == kMixed) return Error("a request of two users, or of none the system named");
    util::ScopedFsIdentity as(asker);
    if (!as.switched() && ::geteuid() == 0) return Error("cannot take the rights of the process asking");
    return provider(ModuleIdentity{path, build_id, {}});
  }

  const Answer& answer(const Sender& sender, const std::string& path, const std::string& build_id) {
    // Read once: the key and the analysis are the same rights. Answers are
    // kept per rights (user, group and groups), so a process of the same
    // user with other groups asks anew.
    const bool covkits = sender.uid == ::geteuid() || sender.uid == kMixed;
    const util::DataOwner asker = covkits ? util::DataOwner{sender.uid, 0, {}} : asker_identity(sender);
    auto key = std::make_tuple(asker.uid, asker.gid, asker.groups, build_id.empty() ? path : std::string(), build_id);
    auto it = answers.find(key);
    if (it != answers.end()) return it->second;
    Answer a;
    Expected<std::vector<uint64_t>> sites = Error("");
    try {  // an exception here would end covkit from its server thread
      sites = analysed(asker, path, build_id);
    } catch (const std::exception& e) {
      sites = Error(fmt::format("the analysis failed: {}", e.what()));
    }
    if (!sites) {
      a.refused = sites.error().message.substr(0, CKS_PLAN_MAX_TEXT);
    } else {
      a.sites = std::move(*sites);
      std::sort(a.sites.begin(), a.sites.end());
      a.sites.erase(std::unique(a.sites.begin(), a.sites.end()), a.sites.end());
      if (a.sites.size() > size_t(CKS_PLAN_MAX_SITES)) a.sites.resize(CKS_PLAN_MAX_SITES);
      for (size_t i = 1; i < a.sites.size(); ++i) {
        unsigned char gap[CKS_ULEB_MAX];
        a.gaps.append(reinterpret_cast<const char*>(gap), cks_put_uleb128(gap, a.sites[i] - a.sites[i - 1]));
      }
    }
    return answers.emplace(std::move(key), std::move(a)).first->second;
  }

  // Requests until the runtime closes the connection (or sends nonsense).
  void serve_connection(int fd) {
    timeval timeout{10, 0};  // a stopped or dead client never blocks the others for long
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    for (;;) {
      uint32_t head[4];
      Sender sender;
      if (!read_exact(fd, head, sizeof head, sender)) return;
      if (head[0] != CKS_PLAN_MAGIC || head[1] == 0 || head[1] > CKS_PLAN_MAX_PATH || head[2] > CKS_MAX_BUILD_ID)
        return;
      std::string path(head[1], '\0');
      std::vector<uint8_t> id(head[2]);
      if (!read_exact(fd, path.data(), path.size(), sender) || !read_exact(fd, id.data(), id.size(), sender)) return;
      path.resize(std::strlen(path.c_str()));
      const Answer& a = answer(sender, path, hex(id));
      if (!a.refused.empty()) {
        uint64_t refused = CKS_PLAN_REFUSED;
        uint32_t size = uint32_t(a.refused.size());
        if (!write_exact(fd, &refused, 8) || !write_exact(fd, &size, 4) || !write_exact(fd, a.refused.data(), size))
          return;
        continue;
      }
      const uint64_t head_out[3] = {a.sites.size(), a.gaps.size(), a.sites.empty() ? 0 : a.sites[0]};
      if (!write_exact(fd, head_out, a.sites.empty() ? 8 : sizeof head_out) || !write_exact(fd, a.gaps.data(), a.gaps.size()))
        return;
    }
  }

  void serve() {
    for (;;) {
      pollfd fds[2] = {{listener, POLLIN, 0}, {wake[0], POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents) return;
      if (!(fds[0].revents & POLLIN)) continue;
      int conn = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (conn < 0) continue;
      serve_connection(conn);
      ::close(conn);
    }
  }
};

PlanServer::PlanServer(std::unique_ptr<State> state) : state_(std::move(state)) {}

PlanServer::~PlanServer() {
  if (state_->wake[1] >= 0) {
    char c = 0;
    (void)!::write(state_->wake[1], &c, 1);
  }
  if (state_->thread.joinable()) state_->thread.join();
  for (int fd : {state_->wake[0], state_->wake[1], state_->listener})
    if (fd >= 0) ::close(fd);
  std::error_code ec;
  std::filesystem::remove_all(state_->dir, ec);
}

const std::string& PlanServer::socket_path() const { return state_->path; }

Expected<std::unique_ptr<PlanServer>> PlanServer::start(BreakpointProvider provider) {
  auto state = std::make_unique<State>();
  state->provider = std::move(provider);
  // A short path in a directory only the user can enter (sun_path holds 108
  // bytes; TMPDIR may be long, /tmp is not).
  std::string tmpl = "/tmp/covkit-plan-XXXXXX";
  if (!::mkdtemp(tmpl.data())) return Error(fmt::format("cannot create the plan server's directory in /tmp: {}", std::strerror(errno)));
  state->dir = tmpl;
  std::unique_ptr<PlanServer> server(new PlanServer(std::move(state)));
  State& s = *server->state_;
  s.path = s.dir + "/plan.sock";
  s.listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  // Each request's sender is known from its first byte (serve_connection):
  // set here too, so that bytes sent before the connection is accepted
  // carry the sender's credentials.
  const int on = 1;
  if (s.listener >= 0) ::setsockopt(s.listener, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, s.path.c_str(), s.path.size());
  if (s.listener < 0 || ::bind(s.listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(s.listener, 64) != 0 || ::pipe2(s.wake, O_CLOEXEC) != 0)
    return Error(fmt::format("{}: cannot listen for the runtime: {}", s.path, std::strerror(errno)));
  s.thread = std::thread([&s] { s.serve(); });
  return server;
}

}  // namespace covkit::sample
