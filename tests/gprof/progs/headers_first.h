/* Included first by headers.c: its functions come first in the unit, so
   the DWARF 5 line table's file 1 is this header and their rows need no
   DW_LNS_set_file (BFD names such rows after the unit's own file). */
static unsigned mix(unsigned x) { return x * 2654435761u ^ (x >> 13); }

static unsigned scramble(unsigned x, int rounds) {
  for (int i = 0; i < rounds; i++) x = mix(x + (unsigned)i);
  return x;
}
