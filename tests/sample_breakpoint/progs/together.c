/* Two processes of one recording at once. `together first READY GO` (its
   breakpoints planted before main) writes a byte to the FIFO READY, then
   waits for one on the FIFO GO before it calls early() and late();
   `together second GO`, started once the first is ready, calls early() and
   then writes that byte. With the recording's text shared, early() was put
   back in the second process, so the first no longer traps on it: its
   first byte is an int3 before (exit 8 if not) and not after (exit 7 if
   still). Exits 0. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) int early(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int late(int x) { __asm__ volatile(""); return x + 2; }

int main(int argc, char** argv) {
  char byte = 'x';
  if (argc == 4 && strcmp(argv[1], "first") == 0) {
    const volatile unsigned char* code = (const volatile unsigned char*)(void*)early;
    if (*code != 0xcc) return 8;
    int ready = open(argv[2], O_WRONLY);
    if (ready < 0 || write(ready, &byte, 1) != 1) return 2;
    close(ready);
    int go = open(argv[3], O_RDONLY);
    if (go < 0 || read(go, &byte, 1) != 1) return 2;
    if (*code == 0xcc) return 7;
    return early(1) + late(1) == 5 ? 0 : 1;
  }
  if (argc == 3 && strcmp(argv[1], "second") == 0) {
    int r = early(1);
    int go = open(argv[2], O_WRONLY);
    if (go < 0 || write(go, &byte, 1) != 1) return 2;
    return r == 2 ? 0 : 1;
  }
  return 2;
}
