/* Threads blocked in the calls a server blocks in, each counting how often
   its call came back without the event it waits for (which never comes):
   what a dump's stop does to them (scenario blocking_calls).

   Each thread loops on one call that waits forever (or for 1000 s). A
   return is counted by its errno (EINTR, or 0 for an early return without
   an error). Commands on stdin, one per line:
     s   one line per call: "NAME returns EINTR-count", then "end"
     b   start a thread that waits in epoll_wait, woken every 2 ms by a
         child process (a stop of this one does not stop it), calling
         tick() each time: a sleeper that does wake     B  stop it
     c   how often tick() ran so far (before this command's own tick)
     q   exit(0)
   The process prints "ready" once every thread has entered its call. Only
   tick() is instrumented (the counters covkit reads); the waiting is not. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/futex.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/prctl.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void tick(void);  /* instrumented, in blocking_tick.c */

enum { kMaxCalls = 40 };

struct call {
  const char* name;
  int (*wait)(void);  /* blocks; returns -1 with errno, or >= 0 */
  atomic_int returns, eintr, entered;
};

static int pipe_fds[2], sock_fds[2], timeo_fds[2], listen_fd, epoll_fd, event_fd, signal_fd, timer_fd;
static int sem_id, msg_id, lock_fd, inotify_fd;
static mqd_t mq;
static aio_context_t aio;
static pid_t sleeper_child;
static atomic_int quitting;
static atomic_long tick_calls;
static atomic_int busy_on;
static int busy_fd;
static pthread_t busy_thread;
static pid_t busy_poker;

static void counted_tick(void) {
  atomic_fetch_add(&tick_calls, 1);
  tick();
}

static void* busy_waiter(void* arg) {
  (void)arg;
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN};
  epoll_ctl(ep, EPOLL_CTL_ADD, busy_fd, &ev);
  while (atomic_load(&busy_on)) {
    if (epoll_wait(ep, &ev, 1, 100) > 0) {
      uint64_t v;
      if (read(busy_fd, &v, sizeof v) == sizeof v) counted_tick();
    }
  }
  close(ep);
  return NULL;
}

static void poke_forever(void) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  for (;;) {
    uint64_t one = 1;
    if (write(busy_fd, &one, sizeof one) != sizeof one) _exit(1);
    usleep(2000);
  }
}
static uint32_t futex_word;

static int do_epoll_wait(void) {
  struct epoll_event ev;
  return epoll_wait(epoll_fd, &ev, 1, -1);
}
static int do_epoll_wait_timeout(void) {
  struct epoll_event ev;
  return epoll_wait(epoll_fd, &ev, 1, 1000000);
}
static int do_epoll_pwait(void) {
  struct epoll_event ev;
  sigset_t none;
  sigemptyset(&none);
  return epoll_pwait(epoll_fd, &ev, 1, -1, &none);
}
static int do_epoll_pwait2(void) {
  struct epoll_event ev;
  return (int)syscall(SYS_epoll_pwait2, epoll_fd, &ev, 1, NULL, NULL, 8);
}
static int do_poll(void) {
  struct pollfd p = {pipe_fds[0], POLLIN, 0};
  return poll(&p, 1, -1);
}
static int do_poll_timeout(void) {
  struct pollfd p = {pipe_fds[0], POLLIN, 0};
  return poll(&p, 1, 1000000);
}
static int do_ppoll(void) {
  struct pollfd p = {pipe_fds[0], POLLIN, 0};
  return ppoll(&p, 1, NULL, NULL);
}
static int do_select(void) {
  fd_set r;
  FD_ZERO(&r);
  FD_SET(pipe_fds[0], &r);
  return select(pipe_fds[0] + 1, &r, NULL, NULL, NULL);
}
static int do_select_timeout(void) {
  fd_set r;
  FD_ZERO(&r);
  FD_SET(pipe_fds[0], &r);
  struct timeval tv = {1000, 0};
  return select(pipe_fds[0] + 1, &r, NULL, NULL, &tv);
}
static int do_pselect(void) {
  fd_set r;
  FD_ZERO(&r);
  FD_SET(pipe_fds[0], &r);
  return pselect(pipe_fds[0] + 1, &r, NULL, NULL, NULL, NULL);
}
static int do_nanosleep(void) {
  struct timespec t = {1000, 0};
  return nanosleep(&t, NULL);
}
static int do_clock_nanosleep(void) {
  struct timespec t = {1000, 0};
  int r = clock_nanosleep(CLOCK_MONOTONIC, 0, &t, NULL);
  if (r) {
    errno = r;
    return -1;
  }
  return 0;
}
static int do_read_pipe(void) {
  char c;
  return (int)read(pipe_fds[0], &c, 1);
}
static int do_read_socket(void) {
  char c;
  return (int)read(sock_fds[0], &c, 1);
}
static int do_recv_timeout(void) {
  char c;
  return (int)recv(timeo_fds[0], &c, 1, 0);
}
static int do_accept(void) { return accept(listen_fd, NULL, NULL); }
static int do_futex(void) { return (int)syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0); }
static int do_futex_timeout(void) {
  struct timespec t = {1000, 0};
  return (int)syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, &t, NULL, 0);
}
static int do_mutex(void) {
  /* A mutex held forever by the main thread: glibc's wait is a futex wait
     it repeats itself, so only a return would show. */
  static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  static atomic_int held;
  if (!atomic_exchange(&held, 1)) pthread_mutex_lock(&m);
  return pthread_mutex_lock(&m);
}
static int do_sigtimedwait(void) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR1);
  struct timespec t = {1000, 0};
  return sigtimedwait(&s, NULL, &t);
}
static int do_sigwaitinfo(void) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR2);
  return sigwaitinfo(&s, NULL);
}
static int do_sigwait(void) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGWINCH);
  int sig;
  int r = sigwait(&s, &sig);
  if (r) {
    errno = r;
    return -1;
  }
  return 0;
}
static int do_pause(void) { return pause(); }
static int do_sigsuspend(void) {
  sigset_t s;
  sigfillset(&s);
  sigdelset(&s, SIGTERM);
  return sigsuspend(&s);
}
static int do_semop(void) {
  struct sembuf op = {0, -1, 0};
  return semop(sem_id, &op, 1);
}
static int do_semtimedop(void) {
  struct sembuf op = {0, -1, 0};
  struct timespec t = {1000, 0};
  return semtimedop(sem_id, &op, 1, &t);
}
static int do_msgrcv(void) {
  struct {
    long type;
    char text[8];
  } m;
  return (int)msgrcv(msg_id, &m, sizeof m.text, 0, 0);
}
static int do_waitpid(void) { return waitpid(sleeper_child, NULL, 0); }
static int do_flock(void) {
  int fd = open("/proc/self/exe", O_RDONLY);
  int r = flock(fd, LOCK_EX);
  int e = errno;
  close(fd);
  errno = e;
  return r;
}
static int do_fcntl_lock(void) {
  struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
  return fcntl(lock_fd, F_OFD_SETLKW, &l);
}
static int do_eventfd(void) {
  uint64_t v;
  return (int)read(event_fd, &v, sizeof v);
}
static int do_signalfd(void) {
  struct signalfd_siginfo si;
  return (int)read(signal_fd, &si, sizeof si);
}
static int do_inotify(void) {
  char buf[4096];
  return (int)read(inotify_fd, buf, sizeof buf);
}
static int do_mq_receive(void) {
  char buf[64];
  return (int)mq_receive(mq, buf, sizeof buf, NULL);
}
static int do_io_getevents(void) {
  struct io_event e;
  return (int)syscall(SYS_io_getevents, aio, 1, 1, &e, NULL);
}
static int do_timerfd(void) {
  uint64_t v;
  return (int)read(timer_fd, &v, sizeof v);
}

static struct call calls[] = {
    {"epoll_wait", do_epoll_wait},
    {"epoll_wait(timeout)", do_epoll_wait_timeout},
    {"epoll_pwait", do_epoll_pwait},
    {"epoll_pwait2", do_epoll_pwait2},
    {"poll", do_poll},
    {"poll(timeout)", do_poll_timeout},
    {"ppoll", do_ppoll},
    {"select", do_select},
    {"select(timeout)", do_select_timeout},
    {"pselect", do_pselect},
    {"nanosleep", do_nanosleep},
    {"clock_nanosleep", do_clock_nanosleep},
    {"read(pipe)", do_read_pipe},
    {"read(socket)", do_read_socket},
    {"recv(SO_RCVTIMEO)", do_recv_timeout},
    {"accept", do_accept},
    {"futex", do_futex},
    {"futex(timeout)", do_futex_timeout},
    {"pthread_mutex_lock", do_mutex},
    {"sigtimedwait", do_sigtimedwait},
    {"sigwaitinfo", do_sigwaitinfo},
    {"sigwait", do_sigwait},
    {"pause", do_pause},
    {"sigsuspend", do_sigsuspend},
    {"semop", do_semop},
    {"semtimedop", do_semtimedop},
    {"msgrcv", do_msgrcv},
    {"waitpid", do_waitpid},
    {"flock", do_flock},
    {"fcntl(F_OFD_SETLKW)", do_fcntl_lock},
    {"read(eventfd)", do_eventfd},
    {"read(signalfd)", do_signalfd},
    {"read(timerfd)", do_timerfd},
    {"read(inotify)", do_inotify},
    {"mq_receive", do_mq_receive},
    {"io_getevents", do_io_getevents},
};
enum { kCalls = sizeof calls / sizeof calls[0] };

static void* waiter(void* arg) {
  struct call* c = arg;
  for (;;) {
    atomic_store(&c->entered, 1);
    errno = 0;
    int r = c->wait();
    int e = errno;
    atomic_fetch_add(&c->returns, 1);
    if (r < 0 && e == EINTR) atomic_fetch_add(&c->eintr, 1);
    if (r < 0 && e != EINTR && !atomic_load(&quitting)) {
      fprintf(stderr, "%s: %s\n", c->name, strerror(e));
      usleep(100000); /* a broken call must not spin */
    }
  }
  return NULL;
}

static void on_term(int sig) { (void)sig; }

static void setup(void) {
  if (pipe(pipe_fds) || socketpair(AF_UNIX, SOCK_STREAM, 0, sock_fds) ||
      socketpair(AF_UNIX, SOCK_STREAM, 0, timeo_fds)) {
    perror("setup");
    exit(1);
  }
  struct timeval tv = {1000, 0};
  setsockopt(timeo_fds[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  listen_fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (bind(listen_fd, (struct sockaddr*)&a, sizeof a) || listen(listen_fd, 1)) {
    perror("listen");
    exit(1);
  }
  epoll_fd = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN};
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, pipe_fds[0], &ev);
  event_fd = eventfd(0, 0);
  timer_fd = timerfd_create(CLOCK_MONOTONIC, 0);
  struct itimerspec its = {.it_value = {1000, 0}};
  timerfd_settime(timer_fd, 0, &its, NULL);
  /* Signals the waits wait for, blocked in every thread (inherited). */
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR1);
  sigaddset(&s, SIGUSR2);
  sigaddset(&s, SIGWINCH);
  sigaddset(&s, SIGPWR);
  pthread_sigmask(SIG_BLOCK, &s, NULL);
  sigemptyset(&s);
  sigaddset(&s, SIGPWR);
  signal_fd = signalfd(-1, &s, 0);
  signal(SIGTERM, on_term);
  sem_id = semget(IPC_PRIVATE, 1, 0600);
  msg_id = msgget(IPC_PRIVATE, 0600);
  char lock_name[] = "/tmp/covkit-blocking-lock-XXXXXX";
  lock_fd = mkstemp(lock_name);
  unlink(lock_name);
  /* The lock the waits want, held by another open file description. */
  int holder = open("/proc/self/exe", O_RDONLY);
  flock(holder, LOCK_EX);
  struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", lock_fd);
  int second = open(path, O_RDWR);
  fcntl(second, F_OFD_SETLK, &l);
  inotify_fd = inotify_init();
  inotify_add_watch(inotify_fd, "/proc/self/exe", IN_DELETE_SELF);
  char mq_name[64];
  snprintf(mq_name, sizeof mq_name, "/covkit-blocking-%d", (int)getpid());
  struct mq_attr ma = {.mq_maxmsg = 1, .mq_msgsize = 64};
  mq = mq_open(mq_name, O_RDONLY | O_CREAT | O_EXCL, 0600, &ma);
  mq_unlink(mq_name);
  if (syscall(SYS_io_setup, 1, &aio)) perror("io_setup");
  sleeper_child = fork();
  if (sleeper_child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* gone with the test, whatever happens */
    for (;;) pause();
  }
}

static void cleanup(void) {
  atomic_store(&quitting, 1);
  kill(sleeper_child, SIGKILL);
  semctl(sem_id, 0, IPC_RMID);
  msgctl(msg_id, IPC_RMID, NULL);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  setup();
  for (int i = 0; i < kCalls; i++) {
    pthread_t t;
    pthread_create(&t, NULL, waiter, &calls[i]);
  }
  for (int i = 0; i < kCalls; i++)
    while (!atomic_load(&calls[i].entered)) usleep(1000);
  busy_fd = eventfd(0, 0);
  counted_tick();
  printf("ready\n");
  char line[64];
  while (fgets(line, sizeof line, stdin)) {
    if (line[0] == 'q') break;
    if (line[0] == 's') {
      for (int i = 0; i < kCalls; i++)
        printf("%s %d %d\n", calls[i].name, atomic_load(&calls[i].returns), atomic_load(&calls[i].eintr));
      printf("end\n");
    }
    if (line[0] == 'b') {
      atomic_store(&busy_on, 1);
      pthread_create(&busy_thread, NULL, busy_waiter, NULL);
      busy_poker = fork();
      if (busy_poker == 0) poke_forever();
      printf("ok\n");
    }
    if (line[0] == 'B') {
      kill(busy_poker, SIGKILL);
      waitpid(busy_poker, NULL, 0);
      atomic_store(&busy_on, 0);
      pthread_join(busy_thread, NULL);
      printf("ok\n");
    }
    if (line[0] == 'c') printf("%ld\n", atomic_load(&tick_calls));
    counted_tick();
  }
  cleanup();
  exit(0);
}
