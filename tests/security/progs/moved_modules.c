/* A process whose modules' paths can be made to lead to FIFOs (run by the
 * attacker).
 *
 *   moved_modules DIR N ELF
 *
 * Maps N copies of ELF executable, each from DIR/aI/lib.so, and makes a
 * FIFO at DIR/bI/lib.so. /proc/PID/maps shows the mappings at DIR/aI; once
 * a root tool has read them there, the attacker moves DIR/aI away and DIR/bI
 * in its place (tests/security/run_attacks.py does it while covkit is
 * stopped at the point it opens a module), so that the tool's open of the
 * path it read meets a FIFO, which without O_NONBLOCK waits for a writer
 * for ever. Says "ready" once all is in place and ends at a line on stdin
 * (or its end). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int copy_file(const char *from, const char *to) {
  int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0755);
  if (in < 0 || out < 0) return -1;
  char buf[65536];
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n) return -1;
  close(in);
  close(out);
  return n < 0 ? -1 : 0;
}

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  char a[4096], b[4096], lib[4200];
  for (int i = 0; i < atoi(argv[2]); ++i) {
    snprintf(a, sizeof a, "%s/a%d", argv[1], i);
    snprintf(b, sizeof b, "%s/b%d", argv[1], i);
    if (mkdir(a, 0755) != 0 || mkdir(b, 0755) != 0) return 3;
    snprintf(lib, sizeof lib, "%s/lib.so", a);
    if (copy_file(argv[3], lib) != 0) return 4;
    int fd = open(lib, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) return 5;
    if (mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) return 6;
    close(fd);
    snprintf(lib, sizeof lib, "%s/lib.so", b);
    if (mkfifo(lib, 0644) != 0) return 7;
  }
  printf("ready\n");
  fflush(stdout);
  char line[64];
  return fgets(line, sizeof line, stdin) ? 0 : 0;
}
