/* before_crash() runs, then a write through a null pointer kills the
   program with SIGSEGV; after_crash() never runs. */
__attribute__((noinline)) int before_crash(void) { __asm__ volatile(""); return 0; }
__attribute__((noinline)) int after_crash(void) { __asm__ volatile(""); return 1; }

int main(int argc, char** argv) {
  (void)argv;
  volatile int* p = (int*)(long)before_crash();
  *p = argc;
  return after_crash();
}
