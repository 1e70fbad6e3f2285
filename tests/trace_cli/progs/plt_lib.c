/* An instrumented shared library linked (not dlopen'd) into plt_main. With
 * clang -fPIC, the hooks of lib_fn get its address through the GOT: the
 * executable's canonical PLT entry when a -no-pie plt_main takes &lib_fn. */
void lib_fn(void) {}
void lib_caller(void) { lib_fn(); }
