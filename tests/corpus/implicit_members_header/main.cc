#include "shapes.h"

int main(int argc, char **) {
    Handler *h = new Collect;
    for (int i = 0; i < argc + 2; ++i) h->on(i);
    delete h;
    return 0;
}
