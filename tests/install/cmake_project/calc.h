int collatz_steps(int n);
int never_called(int n);
