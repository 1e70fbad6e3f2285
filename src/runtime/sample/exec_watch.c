/* Programs this one is about to become that cannot load the runtime: a
 * statically linked program ignores LD_PRELOAD, so whatever it runs would
 * be missing from the recording without a word (a shell script that starts
 * static programs recorded nothing at all). The exec functions look at the
 * file first and leave a warning in this image's file; then they exec as
 * asked. Only the ELF header and program headers are read, into the stack
 * (a vfork child runs here too), bounded; anything that is not a readable
 * 64-bit ELF regular file is left to the kernel.
 *
 * Not seen: libc's own internal execs (system and popen start /bin/sh
 * through an internal call; the shell's own exec of the command is seen,
 * as the shell loads the runtime) and raw execve system calls. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sample_runtime.h"

enum { kMaxPhdrs = 64 };

/* 1 when fd holds a 64-bit ELF executable with no PT_INTERP among its first
 * kMaxPhdrs program headers (and no more than that many). */
static int static_elf(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  Elf64_Ehdr eh;
  if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh) return 0;
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) return 0;
  if ((eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || eh.e_phentsize != sizeof(Elf64_Phdr)) return 0;
  if (eh.e_phnum == 0 || eh.e_phnum > kMaxPhdrs || eh.e_phoff > (uint64_t)st.st_size) return 0;
  Elf64_Phdr ph[kMaxPhdrs];
  const size_t bytes = (size_t)eh.e_phnum * sizeof ph[0];
  if (pread(fd, ph, bytes, (off_t)eh.e_phoff) != (ssize_t)bytes) return 0;
  int loads = 0;
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    if (ph[i].p_type == PT_INTERP) return 0;
    loads += ph[i].p_type == PT_LOAD;
  }
  return loads > 0; /* a shared library without an interpreter maps nothing runnable here */
}

static void check_path(const char *path) {
  if (!path || !(__atomic_load_n(&cks_active, __ATOMIC_ACQUIRE) || __atomic_load_n(&cks_bp_active, __ATOMIC_ACQUIRE)))
    return;
  int saved = errno;
  /* Looked at without opening first: opening a FIFO would show its writer
   * a reader, a device's open would run its driver. */
  struct stat st;
  int fd = -1;
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd >= 0) {
    if (static_elf(fd))
      cks_warn_about(path, cks_cfg.breakpoint_mode
                               ? "a statically linked program, which cannot load covkit's runtime: not recorded "
                                 "(--breakpoint-handler ptrace records it)"
                               : "a statically linked program, which cannot load covkit's runtime: not recorded "
                                 "(--source perf records it)");
    close(fd);
  }
  errno = saved;
}

/* execvp's search, for the check only: the first executable regular file
 * named `file` in PATH (the kernel and libc decide what really runs). */
static void check_search(const char *file) {
  if (!file || !*file) return;
  if (strchr(file, '/')) {
    check_path(file);
    return;
  }
  const char *dirs = getenv("PATH");
  if (!dirs) dirs = "/bin:/usr/bin";
  const size_t flen = strnlen(file, NAME_MAX + 1);
  if (flen > NAME_MAX) return;
  char buf[PATH_MAX];
  for (const char *p = dirs;; ) {
    const char *end = strchrnul(p, ':');
    const size_t dlen = (size_t)(end - p);
    if (dlen + 1 + flen < sizeof buf) {
      size_t n = 0;
      if (dlen) {
        memcpy(buf, p, dlen);
        n = dlen;
        buf[n++] = '/';
      }
      memcpy(buf + n, file, flen + 1);
      struct stat st;
      int saved = errno;
      const int found = stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0;
      errno = saved;
      if (found) {
        check_path(buf);
        return;
      }
    }
    if (!*end) return;
    p = end + 1;
  }
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                        char *const[], char *const[]);

/* Resolved at load, so a vfork child never enters the dynamic linker here. */
static execve_fn real_execve, real_execvpe;
static execv_fn real_execv, real_execvp;
static spawn_fn real_posix_spawn, real_posix_spawnp;

__attribute__((constructor)) static void exec_watch_resolve(void) {
  real_execve = (execve_fn)dlsym(RTLD_NEXT, "execve");
  real_execvpe = (execve_fn)dlsym(RTLD_NEXT, "execvpe");
  real_execv = (execv_fn)dlsym(RTLD_NEXT, "execv");
  real_execvp = (execv_fn)dlsym(RTLD_NEXT, "execvp");
  real_posix_spawn = (spawn_fn)dlsym(RTLD_NEXT, "posix_spawn");
  real_posix_spawnp = (spawn_fn)dlsym(RTLD_NEXT, "posix_spawnp");
}

#define NEED(fn, failed)                                     \
  if (!fn) exec_watch_resolve();                             \
  if (!fn) {                                                 \
    failed;                                                  \
  }

CKS_API int execve(const char *path, char *const argv[], char *const envp[]) {
  NEED(real_execve, errno = ENOSYS; return -1);
  check_path(path);
  return real_execve(path, argv, envp);
}

CKS_API int execv(const char *path, char *const argv[]) {
  NEED(real_execv, errno = ENOSYS; return -1);
  check_path(path);
  return real_execv(path, argv);
}

CKS_API int execvp(const char *file, char *const argv[]) {
  NEED(real_execvp, errno = ENOSYS; return -1);
  check_search(file);
  return real_execvp(file, argv);
}

CKS_API int execvpe(const char *file, char *const argv[], char *const envp[]) {
  NEED(real_execvpe, errno = ENOSYS; return -1);
  check_search(file);
  return real_execvpe(file, argv, envp);
}

CKS_API int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  NEED(real_posix_spawn, return ENOSYS);
  check_path(path);
  return real_posix_spawn(pid, path, actions, attr, argv, envp);
}

CKS_API int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                         const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
  NEED(real_posix_spawnp, return ENOSYS);
  check_search(file);
  return real_posix_spawnp(pid, file, actions, attr, argv, envp);
}

/* The list forms: their arguments gathered on the stack (as libc does), then
 * the vector forms above. */
#define GATHER(first, ap, argv, extra)                      \
  size_t n_ = 1;                                            \
  va_start(ap, first);                                      \
  while (va_arg(ap, const char *)) ++n_;                    \
  va_end(ap);                                               \
  char *argv[n_ + 1];                                       \
  argv[0] = (char *)(first);                                \
  va_start(ap, first);                                      \
  for (size_t i_ = 1; i_ <= n_; ++i_) argv[i_] = va_arg(ap, char *); \
  extra;                                                    \
  va_end(ap)

CKS_API int execl(const char *path, const char *arg, ...) {
  va_list ap;
  GATHER(arg, ap, argv, (void)0);
  return execv(path, argv);
}

CKS_API int execlp(const char *file, const char *arg, ...) {
  va_list ap;
  GATHER(arg, ap, argv, (void)0);
  return execvp(file, argv);
}

CKS_API int execle(const char *path, const char *arg, ...) {
  va_list ap;
  char *const *envp;
  GATHER(arg, ap, argv, envp = va_arg(ap, char *const *));
  return execve(path, argv, envp);
}
