/* Closes every descriptor above stderr, as daemons do (the tracing
 * runtime's too), then opens FILE (it gets descriptor 3, the lowest free
 * one: printed) and makes N calls of mid, each calling leaf twice, enough
 * for several chunks of the stream; writes the sum into FILE and prints
 * "fd 3 sum S". Usage: close_fds FILE N */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) long leaf(long x) { return x * 3 + 1; }
__attribute__((noinline)) long mid(long x) { return leaf(x) + leaf(x + 1); }

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  long n = atol(argv[2]);
  if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
    for (int fd = 3; fd < 65536; fd++) close(fd);
  int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return 1;
  long s = 0;
  for (long i = 0; i < n; i++) s += mid(i);
  dprintf(fd, "sum %ld\n", s);
  close(fd);
  printf("fd %d sum %ld\n", fd, s);
  return 0;
}
