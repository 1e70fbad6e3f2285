/* Closes every descriptor but 0-2 (as daemons do), the runtime's among
   them, then calls f1..f3: their int3s must still be put back (through the
   mapping when the shared text's descriptor is gone). Exits 3. */
#include <unistd.h>

#define F(n) __attribute__((noinline)) int f##n(int x) { __asm__ volatile(""); return x + n; }
F(1) F(2) F(3)

int main(int argc, char** argv) {
  (void)argv;
  for (int fd = 3; fd < 4096; ++fd) close(fd);
  return f1(argc) + f2(argc) + f3(argc) > 0 ? 3 : 4;
}
