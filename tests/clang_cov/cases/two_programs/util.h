int classify(int n);
int sum_to(int n);
