/* Calls f1..f5, never f6: the recorder must see exactly f1..f5 and main of
   these six. Exits 3 to check that the status comes through. */
#define F(n) __attribute__((noinline)) int f##n(int x) { __asm__ volatile(""); return x + n; }
F(1) F(2) F(3) F(4) F(5) F(6)

int main(int argc, char** argv) {
  (void)argv;
  int s = f1(argc) + f2(argc) + f3(argc) + f4(argc) + f5(argc);
  if (argc > 100) s += f6(argc);
  return s > 0 ? 3 : 4;
}
