/* Jump-table shape: computed goto (`goto *table[op]`), as an interpreter's
 * dispatch loop (Lua's lvm.c): a static table of label addresses indexed
 * by an opcode masked to 3 bits (the bound is the mask), the dispatch
 * duplicated at the end of every handler. In a PIE the table holds
 * relocations (the file has zeros there). */
#include <stdio.h>
#include <stdlib.h>

static long run(const unsigned char *code, long acc) {
  static const void *const table[8] = {&&op_halt, &&op_inc, &&op_dec, &&op_dbl,
                                       &&op_neg,  &&op_sq,  &&op_nop, &&op_mod};
  const unsigned char *pc = code;
#define DISPATCH() goto *table[*pc++ & 7]
  DISPATCH();
op_inc:
  acc += 1;
  DISPATCH();
op_dec:
  acc -= 3;
  DISPATCH();
op_dbl:
  acc *= 2;
  DISPATCH();
op_neg:
  acc = -acc;
  DISPATCH();
op_sq:
  acc = acc * acc % 1000003;
  DISPATCH();
op_nop:
  DISPATCH();
op_mod:
  acc %= 977;
  DISPATCH();
op_halt:
  return acc;
}

int main(int argc, char **argv) {
  /* Which opcodes run depends on the argument: op_nop and op_mod only
   * with "all". */
  int all = argc > 1 && argv[1][0] == 'a';
  unsigned char prog[32];
  int n = 0;
  for (int i = 0; i < 5; ++i) {
    prog[n++] = 1;
    prog[n++] = 3;
    prog[n++] = 2;
    prog[n++] = 4;
    prog[n++] = 5;
    if (all) {
      prog[n++] = 6;
      prog[n++] = 7;
    }
  }
  prog[n] = 0;
  printf("%ld\n", run(prog, argc));
  return 0;
}
