/* A program run by root under `covkit sample record --mode breakpoint`
 * that drops root's rights (to user 65534) and then, on the plan server
 * connection it opened while still root, asks covkit to analyse argv[1]
 * (a binary only root may read). Prints "sites N" or "refused TEXT".
 * With argv[2] "keep" it keeps root's rights (the control); with argv[2]
 * "gid=N" it takes group N instead of 65534 (user 65534's own group, which
 * the group database still gives it). */
#define _GNU_SOURCE
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int io(int fd, void *buf, size_t size, int out) {
  char *p = buf;
  while (size) {
    ssize_t n = out ? write(fd, p, size) : read(fd, p, size);
    if (n <= 0) return 0;
    p += n;
    size -= (size_t)n;
  }
  return 1;
}

int main(int argc, char **argv) {
  const char *sock = getenv("COVKIT_SAMPLE_PLAN_SOCKET");
  if (argc < 2 || !sock) {
    puts("no plan socket");
    return 2;
  }
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, sock, sizeof addr.sun_path - 1);
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    perror("connect");
    return 2;
  }
  const int keep = argc > 2 && strcmp(argv[2], "keep") == 0;
  const gid_t gid = argc > 2 && strncmp(argv[2], "gid=", 4) == 0 ? (gid_t)strtoul(argv[2] + 4, NULL, 10) : 65534;
  if (!keep && (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(65534, 65534, 65534) != 0)) {
    perror("dropping root's rights");
    return 2;
  }
  uint32_t path_size = (uint32_t)strlen(argv[1]) + 1;
  uint32_t head[4] = {0x4e4c504bu, path_size, 0, 0};
  uint64_t count = 0;
  if (!io(fd, head, sizeof head, 1) || !io(fd, argv[1], path_size, 1) || !io(fd, &count, sizeof count, 0)) {
    puts("no answer");
    return 2;
  }
  if (count == UINT64_MAX) {
    uint32_t size = 0;
    char text[4096] = {0};
    if (!io(fd, &size, sizeof size, 0) || size >= sizeof text || !io(fd, text, size, 0)) return 2;
    printf("refused %s\n", text);
  } else {
    printf("sites %llu\n", (unsigned long long)count);
  }
  return 0;
}
