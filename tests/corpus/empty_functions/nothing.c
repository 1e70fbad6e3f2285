/* a translation unit with no functions at all */
int global_data = 3;
static const char *names[] = { "a", "b" };
const char **get_names_ptr = names;
