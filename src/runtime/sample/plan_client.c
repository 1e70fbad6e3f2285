/* Breakpoint mode's plan: where to plant in one loaded object, asked of
 * covkit's plan server (the protocol is in sample_contract.h). The runtime
 * runs no analysis of its own: disassembly and dominators stay in covkit,
 * which also caches the answer per build-id. Never called from a handler. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sample_runtime.h"

static int write_all(int fd, const void *buf, size_t size) {
  const char *p = buf;
  while (size) {
    ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    p += n;
    size -= (size_t)n;
  }
  return 1;
}

static int read_all(int fd, void *buf, size_t size) {
  char *p = buf;
  while (size) {
    ssize_t n = read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    p += n;
    size -= (size_t)n;
  }
  return 1;
}

static int connect_server(void) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, cks_cfg.plan_socket, strlen(cks_cfg.plan_socket));
  int r;
  do r = connect(fd, (struct sockaddr *)&addr, sizeof addr);
  while (r < 0 && errno == EINTR);
  if (r < 0) {
    close(fd);
    return -1;
  }
  /* out of the way of programs that expect their first descriptors free */
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 500);
  if (high >= 0) {
    close(fd);
    fd = high;
  }
  return fd;
}

static void warn_about(const char *path, const char *what) {
  char text[CKS_PLAN_MAX_TEXT + 32] = "no breakpoints planted: ";
  size_t n = strlen(text);
  size_t m = strnlen(what, sizeof text - 1 - n);
  memcpy(text + n, what, m);
  text[n + m] = 0;
  cks_warn_about(path, text);
}

/* A connection that failed mid-answer is spent: closed, and the object
 * left unplanted with a warning saying why. Returns 0 for the caller. */
static int give_up(int *conn, const char *path, const char *what) {
  close(*conn);
  *conn = -1;
  warn_about(path, what);
  return 0;
}

/* The plan's `size` bytes of ULEB128 gaps after vaddrs[0], read in chunks
 * and decoded into vaddrs[1..count): exactly count - 1 gaps, each >= 1,
 * ascending without wrapping. */
static int read_gaps(int fd, uint64_t size, struct cks_plan *plan) {
  unsigned char chunk[16384];
  uint64_t n = 1, gap = 0, address = plan->vaddrs[0];
  unsigned shift = 0;
  while (size) {
    size_t want = size < sizeof chunk ? (size_t)size : sizeof chunk;
    if (!read_all(fd, chunk, want)) return 0;
    size -= want;
    for (size_t i = 0; i < want; ++i) {
      if (shift > 63 || (shift == 63 && (chunk[i] & 0x7e)) || n >= plan->count) return 0;
      gap |= (uint64_t)(chunk[i] & 0x7f) << shift;
      shift += 7;
      if (chunk[i] & 0x80) continue;
      if (gap == 0 || gap > ~address) return 0;
      address += gap;
      plan->vaddrs[n++] = address;
      gap = 0;
      shift = 0;
    }
  }
  return n == plan->count && shift == 0;
}

CKS_FN void cks_plan_free(struct cks_plan *plan) {
  if (plan->vaddrs) munmap(plan->vaddrs, plan->mapped);
  memset(plan, 0, sizeof *plan);
}

CKS_FN int cks_plan_request(int *conn, const char *path, const unsigned char *build_id, uint32_t build_id_size,
                            struct cks_plan *out) {
  memset(out, 0, sizeof *out);
  if (*conn < 0) *conn = connect_server();
  if (*conn < 0) {
    warn_about(path, "covkit's plan server cannot be reached (covkit sample record ended?)");
    return 0;
  }
  uint32_t path_size = (uint32_t)strnlen(path, CKS_PLAN_MAX_PATH - 1) + 1;
  uint32_t head[4] = {CKS_PLAN_MAGIC, path_size, build_id_size, 0};
  uint64_t count = 0;
  if (!write_all(*conn, head, sizeof head) || !write_all(*conn, path, path_size - 1) || !write_all(*conn, "", 1) ||
      !write_all(*conn, build_id, build_id_size) || !read_all(*conn, &count, sizeof count)) {
    return give_up(conn, path, "covkit's plan server did not answer");
  }
  if (count == CKS_PLAN_REFUSED) {
    uint32_t size = 0;
    char text[CKS_PLAN_MAX_TEXT + 1];
    if (!read_all(*conn, &size, sizeof size) || size > CKS_PLAN_MAX_TEXT || !read_all(*conn, text, size)) {
      return give_up(conn, path, "covkit's plan server sent a broken answer");
    }
    text[size] = 0;
    warn_about(path, text);
    return 0;
  }
  if (count > CKS_PLAN_MAX_SITES) {
    return give_up(conn, path, "covkit's plan server sent a broken answer");
  }
  if (count == 0) return 1;
  uint64_t head2[2]; /* bytes of gaps, the first address */
  if (!read_all(*conn, head2, sizeof head2) || head2[0] > (count - 1) * CKS_ULEB_MAX)
    return give_up(conn, path, "covkit's plan server sent a broken answer");
  size_t bytes = (size_t)count * 8;
  size_t mapped = (bytes + 4095) & ~(size_t)4095;
  void *p = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  /* The answer is still on its way: the connection is spent either way. */
  if (p == MAP_FAILED) return give_up(conn, path, "no memory for its plan");
  out->vaddrs = p;
  out->count = count;
  out->mapped = mapped;
  out->vaddrs[0] = head2[1];
  if (!read_gaps(*conn, head2[0], out)) {
    cks_plan_free(out);
    return give_up(conn, path, "covkit's plan server sent a broken answer");
  }
  return 1;
}
