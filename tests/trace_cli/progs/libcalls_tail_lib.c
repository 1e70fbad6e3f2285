/* Built without instrumentation, -O2: tail_into ends by tail-calling a
 * function of the program (`jmp tail_back@plt`, bound to the executable's
 * definition), so tail_back returns through the slot of the library call
 * (libstdc++'s std::string constructor does the same with an
 * _M_construct<const char*> the program instantiated). */
void tail_back(int v);
void tail_into(int v) { tail_back(v + 1); }
