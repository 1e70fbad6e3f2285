/* The look-ahead interpreter's loads, read in place. process_vm_readv, a
 * copy that fails where a read would fault, costs ~3 us in the handler on
 * this VM (the kernel pins the page, on caches the program evicted): ~8
 * of them a vector were a third of its cost. Here a load is one
 * instruction at a known address (cks_read_or_fault), and a fault there
 * becomes a failed read: a SIGSEGV/SIGBUS handler moves the instruction
 * pointer to the function's failure exit, as the kernel's own copies from
 * user memory do with their exception table.
 *
 * That handler is installed only for the trap that needs it (at its first
 * read off the loaded objects and the stack), and put back at the trap's
 * end, only in a process of one thread (no pthread_create since the start
 * or the last fork): then nothing of the program runs while it is in (the
 * trap's handler is the only code running, every signal blocked), no
 * other thread can fault, change a disposition or fork meanwhile, and the
 * program never meets it in sigaction(). With more threads the reads are
 * copies: another thread's fault (a JVM's null checks, a GC's guard page,
 * a crash reporter) must reach the program's disposition, which a stand-in
 * swapped in and out around it could only race.
 * The stand-in is swapped with the program's disposition while SIGSEGV and
 * SIGBUS are still blocked (the trap's handler blocks every signal); they
 * are unblocked only while the stand-in is in, and blocked again before it
 * goes. A SIGSEGV or SIGBUS that is not the fault of a read
 * (a kill(), an asynchronous machine-check SIGBUS) is kept and queued again
 * with its own siginfo once the program's dispositions are back, pending
 * until the trap's handler returns: the program receives it as it would
 * have, after the trap, never nested in it; the trap's other reads are
 * copies.
 *
 * Reads stay copies where an in-place read could do what a copy cannot:
 * - SIGSEGV or SIGBUS blocked where the thread was interrupted (a fault
 *   would kill it);
 * - the handler not on the thread's own stack with room for a second
 *   signal frame (the program's small alternate stack, a coroutine's);
 * - a process that has mapped anything but a regular file: a device's
 *   memory (VM_IO, VM_PFNMAP), which process_vm_readv refuses, may have
 *   registers that reading changes. mmap is wrapped here, and the
 *   mappings present at the start are read once from /proc/self/maps;
 *   a program that maps a device with a raw system call is not seen.
 * A read in place meets a guard region (MADV_GUARD_INSTALL), a
 * userfaultfd region in SIGBUS mode, a mapping another thread removed, a
 * file mapping past its end, as a fault: the read fails, and the
 * interpreter stops there as it did on a copy that failed. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "sample_runtime.h"

#ifndef SYSFS_MAGIC
#define SYSFS_MAGIC 0x62656572
#endif

/* int cks_read_or_fault(void *out, uint64_t addr, uint32_t size): 1 read,
 * 0 the read faulted. Two instructions may fault: the 8-byte load and the
 * byte copy; the fault handler sends either to the failure exit. */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl cks_read_or_fault\n"
        ".hidden cks_read_or_fault\n"
        ".type cks_read_or_fault, @function\n"
        "cks_read_or_fault:\n"
        "  mov %edx, %ecx\n"
        "  cmp $8, %edx\n"
        "  jne 1f\n"
        "cks_read_load8:\n"
        "  mov (%rsi), %rax\n"
        "  mov %rax, (%rdi)\n"
        "  mov $1, %eax\n"
        "  ret\n"
        "1:\n"
        "cks_read_bytes:\n"
        "  rep movsb\n"
        "  mov $1, %eax\n"
        "  ret\n"
        "cks_read_failed:\n"
        "  xor %eax, %eax\n"
        "  ret\n"
        ".size cks_read_or_fault, .-cks_read_or_fault\n");
int cks_read_or_fault(void *out, uint64_t addr, uint32_t size) __attribute__((visibility("hidden")));
/* The dispositions are read and set as the kernel holds them (the
 * system call, not sigaction(), which would add its own restorer and
 * SA_RESTORER to a default disposition put back): the program finds them
 * bit for bit as it left them. The stand-in's return is this restorer. */
__asm__(".text\n"
        ".p2align 4\n"
        "cks_in_place_restorer:\n"
        "  mov $15, %eax\n" /* rt_sigreturn */
        "  syscall\n");
extern const char cks_in_place_restorer[] __attribute__((visibility("hidden")));
extern const char cks_read_load8[] __attribute__((visibility("hidden")));
extern const char cks_read_bytes[] __attribute__((visibility("hidden")));
extern const char cks_read_failed[] __attribute__((visibility("hidden")));

/* The stack room the handler needs below it for a second signal frame
 * (~3 KiB with the AVX-512 state) and the fault handler's own. */
#define FAULT_FRAME_ROOM (64u * 1024u)

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
static mmap_fn real_mmap, real_mmap64;
static int usable;      /* atomic: branch mode with the interpreter: reads in place may be tried */
static int threads_seen; /* atomic: pthread_create since the start or the last fork */
/* While a trap's reads are in place (one thread only): the program's
 * dispositions, and whether a signal not a read's ended the reads in
 * place for the rest of the trap. */
struct kernel_action { /* x86-64's struct sigaction of rt_sigaction(2) */
  uint64_t handler, flags, restorer, mask;
};
#define K_SA_RESTORER 0x04000000u
static struct kernel_action program[2]; /* SIGSEGV, SIGBUS */
static int given_back;               /* atomic */
static int device_seen; /* atomic: a mapping of something else than a regular file */
static int warned_device;

static int kernel_sigaction(int sig, const struct kernel_action *act, struct kernel_action *old) {
  return syscall(SYS_rt_sigaction, sig, act, old, sizeof act->mask) == 0;
}

/* The read in progress: a fault there is the read's (one thread). */
static uintptr_t reading_from, reading_to;
/* A SIGSEGV/SIGBUS sent while the stand-in was in, queued again as it came
 * at the trap's end (a standard signal is pending once at most). */
static siginfo_t sent[2];
static int sent_set[2];

static void on_fault(int sig, siginfo_t *si, void *ctx) {
  greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
  const char *at = (const char *)(uintptr_t)g[REG_RIP];
  const uintptr_t addr = (uintptr_t)si->si_addr;
  const int slot = sig == SIGSEGV ? 0 : 1;
  /* The kernel's own fault (si_code > 0, not a machine-check notice) at one
   * of the read's two instructions, on the bytes being read (reported at 0
   * for a non-canonical address). */
  const int kernel_fault = si->si_code > 0 && !(sig == SIGBUS && si->si_code == BUS_MCEERR_AO);
  if (kernel_fault && (at == cks_read_load8 || at == cks_read_bytes) &&
      ((addr >= reading_from && addr < reading_to) || addr == 0)) {
    g[REG_RIP] = (greg_t)(uintptr_t)cks_read_failed;
    return;
  }
  __atomic_store_n(&given_back, 1, __ATOMIC_RELEASE); /* the trap's other reads are copies */
  if (!kernel_fault) {
    /* Sent: kept for the program, queued again once its dispositions are
     * back and the trap's handler is about to return. The stand-in stays
     * in meanwhile (a read already past its check is still caught). */
    sent[slot] = *si;
    sent_set[slot] = 1;
    return;
  }
  /* A fault of other code: the program's dispositions back, and the
   * instruction faults again under them when it runs again. */
  kernel_sigaction(SIGSEGV, &program[0], NULL);
  kernel_sigaction(SIGBUS, &program[1], NULL);
}

static int is_ours(const struct kernel_action *a) { return a->handler == (uint64_t)(uintptr_t)on_fault; }

/* A mapping of the file `fd`: anything but a regular file outside sysfs
 * (a device, a PCI resource file, an anonymous inode of a driver) ends
 * reads in place in this process. */
static void note_mapped(int fd) {
  if (__atomic_load_n(&device_seen, __ATOMIC_RELAXED)) return;
  int saved = errno;
  struct stat st;
  struct statfs fs;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || fstatfs(fd, &fs) != 0 || fs.f_type == SYSFS_MAGIC)
    __atomic_store_n(&device_seen, 1, __ATOMIC_RELAXED);
  errno = saved;
}

/* The next mmap (libc's, or a sanitizer's in front of it), resolved in
 * this object's constructor: before it the system call itself, since a dlsym here could
 * recurse through an allocator that maps its memory with mmap. */
static void *next_mmap(mmap_fn real, void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  void *p = real ? real(addr, len, prot, flags, fd, off) : (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
  if (p != MAP_FAILED && !(flags & MAP_ANONYMOUS) && fd >= 0 && __atomic_load_n(&usable, __ATOMIC_RELAXED))
    note_mapped(fd);
  return p;
}

CKS_API void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  return next_mmap(__atomic_load_n(&real_mmap, __ATOMIC_ACQUIRE), addr, len, prot, flags, fd, off);
}

CKS_API void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  mmap_fn real = __atomic_load_n(&real_mmap64, __ATOMIC_ACQUIRE);
  return next_mmap(real ? real : __atomic_load_n(&real_mmap, __ATOMIC_ACQUIRE), addr, len, prot, flags, fd, off);
}

/* The mappings made before the runtime started (another preloaded
 * object's constructor): one whose path is under /dev or /sys, or that
 * is a driver's anonymous inode, ends reads in place. */
static int device_mapping(const char *line, void *arg) {
  (void)arg;
  /* address perms offset dev inode path */
  const char *p = line;
  for (int field = 0; field < 5 && *p; field++) {
    while (*p && *p != ' ') p++;
    while (*p == ' ') p++;
  }
  int device = !strncmp(p, "/dev/", 5) || !strncmp(p, "/sys/", 5) || !strncmp(p, "anon_inode:", 11);
  /* shared anonymous memory and POSIX shared memory: ordinary pages */
  if (!strncmp(p, "/dev/zero", 9) || !strncmp(p, "/dev/shm/", 9)) device = 0;
  if (device) __atomic_store_n(&device_seen, 1, __ATOMIC_RELAXED);
  return 0;
}

static void scan_maps(void) {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    __atomic_store_n(&device_seen, 1, __ATOMIC_RELAXED);
    return;
  }
  if (cks_for_each_line(fd, device_mapping, NULL) < 0) __atomic_store_n(&device_seen, 1, __ATOMIC_RELAXED);
  close(fd);
}

/* in every mode, inert or not: the wrapper is there in all of them */
__attribute__((constructor)) static void resolve_mmap(void) {
  __atomic_store_n(&real_mmap64, (mmap_fn)dlsym(RTLD_NEXT, "mmap64"), __ATOMIC_RELEASE);
  __atomic_store_n(&real_mmap, (mmap_fn)dlsym(RTLD_NEXT, "mmap"), __ATOMIC_RELEASE);
}

CKS_FN void cks_in_place_init(void) {
  if (!cks_cfg.branch_mode || !cks_cfg.look_ahead) return;
  /* mappings from here on are noted by the wrapper, those before by the scan */
  __atomic_store_n(&usable, 1, __ATOMIC_RELAXED);
  scan_maps();
}

CKS_FN void cks_in_place_thread_created(void) { __atomic_store_n(&threads_seen, 1, __ATOMIC_RELAXED); }
CKS_FN void cks_in_place_forked(void) { __atomic_store_n(&threads_seen, 0, __ATOMIC_RELAXED); }

/* The fault handler in place of the program's disposition for `sig`
 * (`slot` in program[]), swapped in one call (SIGSEGV and SIGBUS are
 * blocked: nothing meets it half done): 1 done, 0 not. Found in already
 * (a trap that did not reach its end), program[slot] still holds the
 * program's: kept, and the stand-in goes on (its end puts the program's
 * back, where returning 0 would have left the stand-in in for good). */
static int stand_in(int sig, int slot, const struct kernel_action *ours) {
  struct kernel_action old;
  if (!kernel_sigaction(sig, ours, &old)) return 0;
  if (!is_ours(&old)) program[slot] = old;
  return 1;
}

static void set_blocked(int how) {
  uint64_t both = (1ull << (SIGSEGV - 1)) | (1ull << (SIGBUS - 1));
  syscall(SYS_rt_sigprocmask, how, &both, NULL, sizeof both);
}

CKS_FN int cks_in_place_begin(struct cks_thread *t) {
  if (!__atomic_load_n(&usable, __ATOMIC_RELAXED)) return 0;
  if (__atomic_load_n(&threads_seen, __ATOMIC_RELAXED)) return 0;
  if (__atomic_load_n(&device_seen, __ATOMIC_RELAXED)) {
    cks_warn_once(&warned_device, "the program mapped a device or another special file: the look-ahead "
                                  "interpreter copies memory with process_vm_readv from then on");
    return 0;
  }
  if (!t->la_mask || sigismember(t->la_mask, SIGSEGV) || sigismember(t->la_mask, SIGBUS)) return 0;
  char here;
  uintptr_t sp = (uintptr_t)&here;
  if (sp < t->stack_lo + FAULT_FRAME_ROOM || sp >= t->stack_hi) return 0;
  /* every signal waits while it runs */
  const struct kernel_action ours = {(uint64_t)(uintptr_t)on_fault, SA_SIGINFO | K_SA_RESTORER,
                                     (uint64_t)(uintptr_t)cks_in_place_restorer, ~(uint64_t)0};
  int saved = errno, ok = 0;
  __atomic_store_n(&given_back, 0, __ATOMIC_RELEASE);
  /* SIGSEGV and SIGBUS are blocked here (the trap's handler blocks every
   * signal): nothing can meet a disposition half swapped. */
  if (stand_in(SIGSEGV, 0, &ours)) {
    ok = stand_in(SIGBUS, 1, &ours);
    if (!ok) kernel_sigaction(SIGSEGV, &program[0], NULL);
  }
  if (ok) set_blocked(SIG_UNBLOCK);
  errno = saved;
  return ok;
}

CKS_FN int cks_read_in_place(void *out, uint64_t addr, uint32_t size) {
  if (__atomic_load_n(&given_back, __ATOMIC_ACQUIRE)) return -1;
  reading_from = (uintptr_t)addr;
  reading_to = (uintptr_t)addr + size;
  return cks_read_or_fault(out, addr, size);
}

CKS_FN void cks_in_place_end(struct cks_thread *t) {
  (void)t;
  int saved = errno;
  set_blocked(SIG_BLOCK); /* what is sent now waits for the program's dispositions */
  kernel_sigaction(SIGBUS, &program[1], NULL);
  kernel_sigaction(SIGSEGV, &program[0], NULL);
  for (int slot = 0; slot < 2; slot++)
    if (sent_set[slot]) {
      sent_set[slot] = 0;
      /* pending until the trap's handler returns: then delivered as sent */
      syscall(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid), slot == 0 ? SIGSEGV : SIGBUS, &sent[slot]);
    }
  errno = saved;
}
