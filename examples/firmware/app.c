#include "app.h"

/* Parses commands such as "s12 s40 r s7 x": s<n> feeds a sample to the
 * filter, r resets the sum, anything else is counted as an error. */
static int parse_number(const char **p)
{
  int n = 0;
  while (**p >= '0' && **p <= '9')
    n = n * 10 + (*(*p)++ - '0');
  return n;
}

int app_run(const char *input)
{
  int sum = 0, errors = 0;
  for (const char *p = input; *p;) {
    switch (*p++) {
    case 's':
      sum += sensor_filter(parse_number(&p));
      break;
    case 'r':
      sum = 0;
      break;
    case ' ':
      break;
    default:
      errors++;
    }
  }
  return errors > 0 ? 2 : sum > 100;
}
