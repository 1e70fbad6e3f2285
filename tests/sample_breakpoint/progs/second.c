/* The program exec'd: g1 and g2 run, g3 does not. */
__attribute__((noinline)) int g1(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int g2(int x) { __asm__ volatile(""); return x + 2; }
__attribute__((noinline)) int g3(int x) { __asm__ volatile(""); return x + 3; }

int main(int argc, char** argv) {
  (void)argv;
  int s = g1(argc) + g2(argc);
  if (argc > 100) s += g3(argc);
  return s > 0 ? 5 : 6;
}
