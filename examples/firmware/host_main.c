/* The oracle: the same application built for the host with plain
 * --coverage, so that libgcov writes its .gcda files at exit. */
#include "app.h"

int main(int argc, char **argv)
{
  return app_run(argc > 1 ? argv[1] : "");
}
