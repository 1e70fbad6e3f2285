int main(int argc, char **argv) { (void)argv; return argc > 5 ? 1 : 0; }
