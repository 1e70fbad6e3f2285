static int value;

__attribute__((constructor)) static void init_value(void)
{
	value = 42;
}

__attribute__((constructor, used)) static void never_matters(void) { value += 0; }

int helper_value(void) { return value; }
