/* A shared library loaded with dlopen, instrumented too. */
void plug_inner(void) {}
int plug_entry(int n) {
  for (int i = 0; i < n; i++) plug_inner();
  return n;
}
