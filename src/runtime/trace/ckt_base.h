/* libcovkit-trace: attributes and limits shared by every file of the runtime.
 * The runtime runs inside the traced program: C11, no allocation on the hot
 * path, nothing of it instrumented (every function carries CKT_FN). */
#ifndef CKT_BASE_H
#define CKT_BASE_H

#include <stddef.h>
#include <stdint.h>

#define CKT_FN __attribute__((no_instrument_function))
#define CKT_INLINE static inline __attribute__((always_inline, no_instrument_function))
#define CKT_COLD __attribute__((noinline, cold, no_instrument_function))
#define CKT_API __attribute__((visibility("default"), no_instrument_function))
#define CKT_LIKELY(x) __builtin_expect(!!(x), 1)
#define CKT_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define CKT_PATH_MAX 4096

/* Compiler barrier: orders stores against a signal handler of the same thread. */
#define CKT_BARRIER() __asm__ __volatile__("" ::: "memory")

#endif
