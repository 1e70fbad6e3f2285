/* A statically linked glibc program: its own code and glibc's (string
 * functions with AVX-512 variants chosen by the CPU, __strlen_evex among
 * them) in one image, planted whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  char buf[256];
  size_t total = 0;
  for (int i = 0; i < argc; ++i) total += strlen(argv[i]);
  snprintf(buf, sizeof buf, "%d args, %zu bytes", argc, total);
  if (strstr(buf, "args") == NULL) return 1;
  puts(buf);
  return 0;
}
