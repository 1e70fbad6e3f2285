#include <stdio.h>

enum { OP_PUSH, OP_ADD, OP_MUL, OP_DUP, OP_JNZ, OP_DEC, OP_PRINT, OP_HALT };

static long run(const int *code)
{
	static void *dispatch[] = { &&do_push, &&do_add, &&do_mul, &&do_dup,
				    &&do_jnz, &&do_dec, &&do_print, &&do_halt };
	long stack[32];
	int sp = 0, pc = 0;
#define NEXT goto *dispatch[code[pc++]]
	NEXT;
do_push:  stack[sp++] = code[pc++]; NEXT;
do_add:   sp--; stack[sp - 1] += stack[sp]; NEXT;
do_mul:   sp--; stack[sp - 1] *= stack[sp]; NEXT;
do_dup:   stack[sp] = stack[sp - 1]; sp++; NEXT;
do_jnz:   { int t = code[pc++]; if (stack[sp - 1]) pc = t; } NEXT;
do_dec:   stack[sp - 1]--; NEXT;
do_print: printf("%ld\n", stack[sp - 1]); NEXT;
do_halt:
#undef NEXT
	return sp ? stack[sp - 1] : 0;
}

static int pick(int i)
{
	void *t = i ? &&one : &&zero;
	goto *t;
zero:	return 10;
one:	return 20;
}

int main(int argc, char **argv)
{
	/* counts down from N, printing each value */
	int prog1[] = { OP_PUSH, 3 + argc, OP_PRINT, OP_DEC, OP_JNZ, 2, OP_HALT };
	int prog2[] = { OP_PUSH, 6, OP_PUSH, 7, OP_MUL, OP_DUP, OP_ADD, OP_PRINT, OP_HALT };
	(void)argv;
	return (int)(run(prog1) + run(prog2) + pick(argc > 1) + pick(0)) & 0 ;
}
