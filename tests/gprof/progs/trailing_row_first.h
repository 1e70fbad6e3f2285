/* Included first (run_gprof.py sc_trailing_row): its static functions open
 * the unit's .text line sequence as file entry 1, before any set_file. */
__attribute__((noinline)) static int twice(int x)
{
  return 2 * x + (x >> 3);
}

__attribute__((noinline)) static int thrice(int x)
{
  return 3 * x - (x >> 2);
}
