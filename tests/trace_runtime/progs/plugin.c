/* A shared library loaded with dlopen, instrumented too. */
/* Not empty: GCC drops the calls of an empty function (no side effect),
 * which -pg builds (unlike -finstrument-functions ones) would show. */
void plug_inner(void) { __asm__ __volatile__(""); }
int plug_entry(int n) {
  for (int i = 0; i < n; i++) plug_inner();
  return n;
}
