/* A process that looks clang-instrumented and is not: its profile sections
 * are what HOSTILE_* makes them (built with gcc; no profile runtime). */
#include <stdio.h>
#include <unistd.h>

__attribute__((used)) unsigned long long __llvm_profile_raw_version = 8;
__attribute__((section("__llvm_prf_cnts"), used)) unsigned long long prf_cnts[4];
__attribute__((section("__llvm_prf_names"), used)) const char prf_names[8] = "\x01\x00m";
#ifdef HOSTILE_ODD_DATA
/* 50 bytes: no whole number of 48-byte records. */
__attribute__((section("__llvm_prf_data"), used)) char prf_data[50];
#else
/* One record whose 1000 counters lie far past the 32 bytes of counters. */
struct record { unsigned long long name, hash, counters, function, values; unsigned num, sites; };
__attribute__((section("__llvm_prf_data"), used)) struct record prf_data[1] = {{0, 0, 0, 0, 0, 1000, 0}};
#endif

int main(void) {
  puts("ready");
  fflush(stdout);
  pause();
  return 0;
}
