// The look-ahead interpreter's reads in place (src/runtime/sample/
// in_place_reads.c) against the kernel: reads of unmapped memory, of a
// PROT_NONE page, of a non-canonical address and of a file mapping past
// the file's end fail instead of killing the process; a mapped read
// returns the bytes there; the program's own SIGSEGV/SIGBUS dispositions
// are exactly as it set them after each trap, its own faults reach its own
// handler, and where a stand-in handler is not safe (a second thread over
// the program's handler, the signals blocked, no room on the stack, a
// device mapped) reads are refused and nothing is changed.
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

extern "C" {
#include "sample_runtime.h"
}

// What in_place_reads.c uses of the rest of the runtime.
extern "C" {
struct cks_config cks_cfg;
int cks_warnings;
void cks_warn_once(int *flag, const char *text) {
  (void)text;
  if (!*flag) cks_warnings++;
  *flag = 1;
}
}

namespace {

sigjmp_buf recovered;
volatile sig_atomic_t program_faults;

void program_handler(int) {
  program_faults = program_faults + 1;
  siglongjmp(recovered, 1);
}

struct ThreadState {
  ThreadState() : t(static_cast<cks_thread *>(calloc(1, sizeof(cks_thread)))) {
    pthread_attr_t attr;
    void *addr;
    size_t size;
    EXPECT_EQ(pthread_getattr_np(pthread_self(), &attr), 0);
    EXPECT_EQ(pthread_attr_getstack(&attr, &addr, &size), 0);
    pthread_attr_destroy(&attr);
    t->stack_lo = reinterpret_cast<uintptr_t>(addr);
    t->stack_hi = t->stack_lo + size;
    sigemptyset(&mask);
    t->la_mask = &mask;
  }
  ~ThreadState() { free(t); }
  cks_thread *t;
  sigset_t mask;
};

struct sigaction disposition(int sig) {
  struct sigaction a;
  memset(&a, 0, sizeof a);
  EXPECT_EQ(sigaction(sig, nullptr, &a), 0);
  return a;
}

void set_disposition(int sig, void (*handler)(int), int flags) {
  struct sigaction a;
  memset(&a, 0, sizeof a);
  a.sa_handler = handler;
  a.sa_flags = flags;
  sigemptyset(&a.sa_mask);
  sigaddset(&a.sa_mask, SIGUSR2);  // a mask of its own, to be found again as it was
  ASSERT_EQ(sigaction(sig, &a, nullptr), 0);
}

// The trap's handler runs with every signal blocked (handlers.c): as it
// does, SIGSEGV and SIGBUS blocked around a trap here, unblocked as its
// return (sigreturn) would.
void set_trap_mask(int how) {
  sigset_t both;
  sigemptyset(&both);
  sigaddset(&both, SIGSEGV);
  sigaddset(&both, SIGBUS);
  ASSERT_EQ(pthread_sigmask(how, &both, nullptr), 0);
}
bool blocked(int sig) {
  sigset_t now;
  EXPECT_EQ(pthread_sigmask(SIG_BLOCK, nullptr, &now), 0);
  return sigismember(&now, sig);
}

// bit for bit as the kernel holds it (flags, restorer and mask included)
bool same_disposition(const struct sigaction &a, const struct sigaction &b) {
  return a.sa_handler == b.sa_handler && a.sa_flags == b.sa_flags && a.sa_restorer == b.sa_restorer &&
         memcmp(&a.sa_mask, &b.sa_mask, 8) == 0;
}

// The reads a trap makes: mapped bytes come back, every kind of unreadable
// address fails, and the process lives.
void check_reads() {
  static const char text[] = "bytes in place, 8+";
  char out[sizeof text] = {};
  EXPECT_EQ(cks_read_in_place(out, reinterpret_cast<uintptr_t>(text), sizeof text), 1);
  EXPECT_STREQ(out, text);
  uint64_t word = 0x0123456789abcdefull, got = 0;
  EXPECT_EQ(cks_read_in_place(&got, reinterpret_cast<uintptr_t>(&word), 8), 1);
  EXPECT_EQ(got, word);

  long page = sysconf(_SC_PAGESIZE);
  void *gone = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(gone, MAP_FAILED);
  ASSERT_EQ(munmap(gone, page), 0);
  EXPECT_EQ(cks_read_in_place(&got, reinterpret_cast<uintptr_t>(gone), 8), 0) << "unmapped";
  EXPECT_EQ(cks_read_in_place(&got, reinterpret_cast<uintptr_t>(gone) + 3, 4), 0) << "unmapped, bytes";

  void *none = mmap(nullptr, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(none, MAP_FAILED);
  EXPECT_EQ(cks_read_in_place(&got, reinterpret_cast<uintptr_t>(none), 8), 0) << "PROT_NONE";
  munmap(none, page);

  EXPECT_EQ(cks_read_in_place(&got, 0x8000000000000000ull, 8), 0) << "non-canonical";
  EXPECT_EQ(cks_read_in_place(&got, 0, 1), 0) << "address 0";

  // a file mapping past the file's end: SIGBUS
  char path[] = "/tmp/covkit-in-place-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  ASSERT_EQ(ftruncate(fd, page), 0);
  auto *file = static_cast<unsigned char *>(mmap(nullptr, 2 * page, PROT_READ, MAP_SHARED, fd, 0));
  ASSERT_NE(file, MAP_FAILED);
  EXPECT_EQ(cks_read_in_place(&got, reinterpret_cast<uintptr_t>(file), 8), 1) << "within the file";
  EXPECT_EQ(cks_read_in_place(&got, reinterpret_cast<uintptr_t>(file) + page, 8), 0) << "past its end (SIGBUS)";
  munmap(file, 2 * page);
  close(fd);
}

class InPlace : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cks_cfg.branch_mode = 1;
    cks_cfg.look_ahead = 1;
    cks_in_place_init();
  }
  // the default dispositions at each start (a sanitizer's runtime sets its own)
  void SetUp() override { TearDown(); }
  void TearDown() override {
    set_disposition(SIGSEGV, SIG_DFL, 0);
    set_disposition(SIGBUS, SIG_DFL, 0);
    cks_in_place_forked();  // one thread again
  }
};

TEST_F(InPlace, DefaultDispositionsReadAndComeBack) {
  ThreadState s;
  struct sigaction before_segv = disposition(SIGSEGV), before_bus = disposition(SIGBUS);
  set_trap_mask(SIG_BLOCK);
  ASSERT_EQ(cks_in_place_begin(s.t), 1);
  EXPECT_FALSE(blocked(SIGSEGV)) << "unblocked while the reads are in place";
  check_reads();
  cks_in_place_end(s.t);
  EXPECT_TRUE(blocked(SIGSEGV) && blocked(SIGBUS)) << "blocked again before the trap goes on";
  set_trap_mask(SIG_UNBLOCK);
  EXPECT_TRUE(same_disposition(disposition(SIGSEGV), before_segv));
  EXPECT_TRUE(same_disposition(disposition(SIGBUS), before_bus));
  EXPECT_EQ(disposition(SIGSEGV).sa_handler, SIG_DFL);
}

TEST_F(InPlace, TheProgramsHandlerOneThread) {
  set_disposition(SIGSEGV, program_handler, SA_NODEFER | SA_RESTART);
  set_disposition(SIGBUS, program_handler, SA_NODEFER);
  struct sigaction before_segv = disposition(SIGSEGV), before_bus = disposition(SIGBUS);
  ThreadState s;
  int faults = program_faults;
  set_trap_mask(SIG_BLOCK);
  ASSERT_EQ(cks_in_place_begin(s.t), 1);
  check_reads();
  EXPECT_EQ(program_faults, faults) << "the interpreter's faults reached the program";
  cks_in_place_end(s.t);
  set_trap_mask(SIG_UNBLOCK);
  EXPECT_EQ(program_faults, faults) << "a fault of a read was queued for the program";
  EXPECT_TRUE(same_disposition(disposition(SIGSEGV), before_segv));
  EXPECT_TRUE(same_disposition(disposition(SIGBUS), before_bus));
  // the program's own fault reaches its own handler after the trap
  long page = sysconf(_SC_PAGESIZE);
  auto *none = static_cast<volatile unsigned char *>(
      mmap(nullptr, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(none, MAP_FAILED);
  int before = program_faults;
  if (sigsetjmp(recovered, 1) == 0) (void)none[0];
  EXPECT_EQ(program_faults, before + 1);
  munmap(const_cast<unsigned char *>(none), page);
}

// A stand-in found in already (a trap that did not reach its end) keeps
// the program's disposition it saved, and the next end puts that back: the
// stand-in is never left in for good.
TEST_F(InPlace, AStandInLeftInIsPutBackByTheNextEnd) {
  set_disposition(SIGSEGV, program_handler, SA_NODEFER);
  struct sigaction before = disposition(SIGSEGV);
  ThreadState s;
  set_trap_mask(SIG_BLOCK);
  ASSERT_EQ(cks_in_place_begin(s.t), 1);
  set_trap_mask(SIG_BLOCK);  // a trap that ended without cks_in_place_end
  ASSERT_EQ(cks_in_place_begin(s.t), 1);
  check_reads();
  cks_in_place_end(s.t);
  set_trap_mask(SIG_UNBLOCK);
  EXPECT_TRUE(same_disposition(disposition(SIGSEGV), before));
}

// A SIGSEGV sent while the reads are in place (a kill(), a sigqueue()) is
// not taken for a read's fault: it reaches the program's handler after the
// trap, never nested in it, with the siginfo it was sent with; the trap's
// other reads are copies.
volatile sig_atomic_t sent_value, sent_code;
void program_info_handler(int, siginfo_t *si, void *) {
  sent_value = si->si_value.sival_int;
  sent_code = si->si_code;
  program_faults = program_faults + 1;
  siglongjmp(recovered, 1);
}

TEST_F(InPlace, ASignalSentMeanwhileReachesTheProgramAfterTheTrap) {
  struct sigaction a;
  memset(&a, 0, sizeof a);
  a.sa_sigaction = program_info_handler;
  a.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&a.sa_mask);
  ASSERT_EQ(sigaction(SIGSEGV, &a, nullptr), 0);
  struct sigaction before = disposition(SIGSEGV);
  ThreadState s;
  const int faults = program_faults;
  sent_value = 0;
  sent_code = 0;
  if (sigsetjmp(recovered, 1) == 0) {
    set_trap_mask(SIG_BLOCK);
    ASSERT_EQ(cks_in_place_begin(s.t), 1);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = SIGSEGV;
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    si.si_value.sival_int = 42;
    ASSERT_EQ(syscall(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid), SIGSEGV, &si), 0);
    EXPECT_EQ(program_faults, faults) << "the program's handler ran within the trap";
    uint64_t word = 7, got = 0;
    EXPECT_EQ(cks_read_in_place(&got, reinterpret_cast<uintptr_t>(&word), 8), -1) << "reads go on in place";
    cks_in_place_end(s.t);
    EXPECT_EQ(program_faults, faults) << "the program's handler ran within the trap";
    EXPECT_TRUE(same_disposition(disposition(SIGSEGV), before));
    set_trap_mask(SIG_UNBLOCK);  // the trap returns: the signal is delivered
    ADD_FAILURE() << "the program's handler did not run after the trap";
  }
  EXPECT_EQ(program_faults, faults + 1);
  EXPECT_EQ(sent_value, 42) << "the siginfo it was sent with";
  EXPECT_EQ(sent_code, SI_QUEUE);
  EXPECT_TRUE(same_disposition(disposition(SIGSEGV), before));
}

TEST_F(InPlace, RefusedWhereAStandInIsNotSafe) {
  ThreadState s;
  // another thread, over the program's own handler or the default: its
  // faults must meet the program's disposition, which a stand-in would race
  set_disposition(SIGSEGV, program_handler, SA_NODEFER);
  struct sigaction before = disposition(SIGSEGV);
  cks_in_place_thread_created();
  EXPECT_EQ(cks_in_place_begin(s.t), 0);
  EXPECT_TRUE(same_disposition(disposition(SIGSEGV), before));
  set_disposition(SIGSEGV, SIG_DFL, 0);
  EXPECT_EQ(cks_in_place_begin(s.t), 0);
  EXPECT_EQ(disposition(SIGSEGV).sa_handler, SIG_DFL);
  cks_in_place_forked();
  set_disposition(SIGBUS, SIG_DFL, 0);
  // the signals blocked where the thread was
  sigaddset(&s.mask, SIGSEGV);
  EXPECT_EQ(cks_in_place_begin(s.t), 0);
  sigemptyset(&s.mask);
  sigaddset(&s.mask, SIGBUS);
  EXPECT_EQ(cks_in_place_begin(s.t), 0);
  sigemptyset(&s.mask);
  // no room for a second signal frame: the handler is not on the thread's stack
  uintptr_t lo = s.t->stack_lo;
  s.t->stack_lo = s.t->stack_hi - 1024;
  EXPECT_EQ(cks_in_place_begin(s.t), 0);
  s.t->stack_lo = lo;
  EXPECT_EQ(disposition(SIGSEGV).sa_handler, SIG_DFL);
  EXPECT_EQ(disposition(SIGBUS).sa_handler, SIG_DFL);
}

// A device mapped ends reads in place for the rest of the process (in a
// child: the other tests' process keeps them).
TEST_F(InPlace, DeviceMappedEndsThem) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ThreadState s;
    int code = 0;
    if (cks_in_place_begin(s.t) != 1) code |= 1;
    cks_in_place_end(s.t);
    int fd = open("/dev/zero", O_RDONLY);
    void *p = fd >= 0 ? mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    if (p == MAP_FAILED) code |= 2;
    int warnings = cks_warnings;
    if (cks_in_place_begin(s.t) != 0) code |= 4;
    if (cks_warnings != warnings + 1) code |= 8;
    if (disposition(SIGSEGV).sa_handler != SIG_DFL) code |= 16;
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "bits: 1 refused before, 2 no mapping, 4 read in place after, "
                                       "8 not said, 16 disposition changed";
}

}  // namespace
