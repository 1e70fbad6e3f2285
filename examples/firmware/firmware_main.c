/* The firmware's board code (not instrumented): runs the application, then
 * dumps its coverage through a fake UART that prints on stdout. On a real
 * target, uart_put would write the characters to the UART's data register.
 * The application's own log lines and the console's "[fw] " prefix show
 * that `covkit live unpack` picks the ':gcov:' lines out of a console log. */
#include <unistd.h>

#include "app.h"
#include "gcov_stream.h"

/* GNU ld provides these for a section whose name is a C identifier: the
 * objects are compiled with -fprofile-info-section=gcov_info. */
extern const struct gcov_info *const __start_gcov_info[];
extern const struct gcov_info *const __stop_gcov_info[];

static void uart_write(const char *text, unsigned length)
{
  while (length > 0) {
    ssize_t n = write(1, text, length);
    if (n <= 0)
      return;
    text += n;
    length -= (unsigned)n;
  }
}

/* The binary stream as it is, for a channel that carries bytes
 * (semihosting, a RAM buffer read out by the debugger). */
static void raw_write(const void *data, unsigned length, void *arg)
{
  (void)arg;
  uart_write(data, length);
}

/* What a console adds: a prefix before every line the firmware prints. */
static void uart_put(const char *text, unsigned length, void *arg)
{
  (void)arg;
  uart_write("[fw] ", 5);
  uart_write(text, length);
}

/* firmware INPUT [raw]: with "raw", only the binary stream on stdout. */
int main(int argc, char **argv)
{
  const int raw = argc > 2 && argv[2][0] == 'r';
  if (!raw)
    uart_write("[fw] booting\r\n", 14);
  int status = app_run(argc > 1 ? argv[1] : "");
  if (raw) {
    struct covkit_gcov_sink sink = {raw_write, 0, 0, 0, 0};
    covkit_gcov_dump(__start_gcov_info, __stop_gcov_info, &sink);
    return status;
  }
  uart_write("[fw] application done, dumping coverage\r\n", 41);
  covkit_gcov_dump_hex(__start_gcov_info, __stop_gcov_info, uart_put, 0);
  return status;
}
