/* The statement marker at a join (Lua's lapi.c:346, lua_arith): the last
 * statement of an `else` whose block did not run has, at the join after
 * it, two rows of no length (two location views) before the next line's
 * code; running the join must not cover it, with or without inference. */
#include <stdio.h>
#include <stdlib.h>

#define api_check(e) ((void)0)
#define incr_top(L) {L->top++; api_check(L->top <= L->stack + 16);}
typedef struct { long v; int tt; } TValue;
typedef struct { TValue *top; TValue stack[16]; } State;

__attribute__((noinline)) void arith(State *L, int op, TValue *a, TValue *b, TValue *res) {
  res->v = op == 0 ? a->v + b->v : op == 1 ? a->v - b->v : -a->v;
  res->tt = a->tt | b->tt;
}

__attribute__((noinline)) void lua_arith(State *L, int op) {
  if (op != 12 && op != 13)
    (void)0;  /* all other operations expect two operands */
  else {  /* for unary operations, add fake 2nd operand */
    *L->top = *(L->top - 1);
    incr_top(L);
  }
  /* first operand at top - 2, second at top - 1; result go to top - 2 */
  arith(L, op, L->top - 2, L->top - 1, L->top - 2);
  L->top--;  /* remove second operand */
}

int main(int argc, char **argv) {
  State s;
  s.top = s.stack;
  for (int i = 0; i < 4; ++i) { s.top->v = i + argc; s.top->tt = 3; s.top++; }
  int unary = argc > 1 && argv[1][0] == 'u';
  lua_arith(&s, unary ? 12 : 0);
  lua_arith(&s, 1);
  printf("%ld %d\n", (s.top - 1)->v, (int)(s.top - s.stack));
  return 0;
}
