/* Included second by headers.c: its rows follow a DW_LNS_set_file, which
   BFD and libdw name alike. */
static unsigned fold(unsigned x, unsigned y) { return (x << 5) + (x >> 2) + y; }
