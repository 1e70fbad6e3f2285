/* Frames on other stacks under the -pg hooks: a ucontext coroutine that
 * yields from inside calls (its frames are left open while main's run and
 * return later: the runtime must still find their return addresses) and
 * a handler on a sigaltstack that siglongjmps out. Prints "done".
 * Usage: coroutines */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>
static ucontext_t main_ctx, co_ctx;
static sigjmp_buf jb;
__attribute__((noinline)) void yield_back(void) { swapcontext(&co_ctx, &main_ctx); }
__attribute__((noinline)) void co_body(void) { for (int i = 0; i < 3; i++) yield_back(); }
__attribute__((noinline)) void resume(void) { swapcontext(&main_ctx, &co_ctx); }
__attribute__((noinline)) void in_handler(void) { siglongjmp(jb, 1); }
void handler(int s) { (void)s; in_handler(); }
int main(void) {
  static char stack[1 << 16];
  getcontext(&co_ctx);
  co_ctx.uc_stack.ss_sp = stack;
  co_ctx.uc_stack.ss_size = sizeof stack;
  co_ctx.uc_link = &main_ctx;
  makecontext(&co_ctx, co_body, 0);
  for (int i = 0; i < 4; i++) resume();
  static char alt[1 << 16];
  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
  sigaltstack(&ss, NULL);
  struct sigaction sa = {.sa_handler = handler, .sa_flags = SA_ONSTACK};
  sigaction(SIGUSR1, &sa, NULL);
  for (int i = 0; i < 3; i++)
    if (sigsetjmp(jb, 1) == 0) raise(SIGUSR1);
  puts("done");
  return 0;
}
