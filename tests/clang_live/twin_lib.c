/* One of two libraries of the same file name (twins.c): TWIN tells them
   apart in their counts. */
int twin(int n) {
  if (n % 2 == 0) return n * TWIN;
  return n + TWIN;
}
