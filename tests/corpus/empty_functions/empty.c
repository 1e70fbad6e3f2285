void c_empty(void) {}
