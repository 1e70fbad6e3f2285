/* A shared library: linked at start-up (libbp_lib.so) or dlopen'ed
   (built again as bp_plugin.so). */
__attribute__((noinline)) int lib_used(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int lib_unused(int x) { __asm__ volatile(""); return x + 2; }
