/* SSE, AVX2 and AVX-512 code paths, chosen at run time by what the CPU
 * has (as glibc's string functions are): the EVEX encodings of the
 * AVX-512 path are what an old decoder could not read (a breakpoint then
 * landed inside an instruction). */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096
static float a[N], b[N], c[N];

__attribute__((target("sse2"), noinline)) float dot_sse(void) {
  __m128 s = _mm_setzero_ps();
  for (int i = 0; i < N; i += 4) s = _mm_add_ps(s, _mm_mul_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
  float out[4];
  _mm_storeu_ps(out, s);
  return out[0] + out[1] + out[2] + out[3];
}

__attribute__((target("avx2,fma"), noinline)) float dot_avx2(void) {
  __m256 s = _mm256_setzero_ps();
  for (int i = 0; i < N; i += 8) s = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s);
  float out[8];
  _mm256_storeu_ps(out, s);
  float t = 0;
  for (int i = 0; i < 8; ++i) t += out[i];
  return t;
}

__attribute__((target("avx512f"), noinline)) float dot_avx512(void) {
  __m512 s = _mm512_setzero_ps();
  for (int i = 0; i < N; i += 16) s = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s);
  return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx512f"), noinline)) int count_equal_avx512(int v) {
  /* mask registers and compares into them: vpcmpeqd ... %k1 */
  int n = 0;
  __m512i needle = _mm512_set1_epi32(v);
  for (int i = 0; i < N; i += 16) {
    __mmask16 m = _mm512_cmpeq_epi32_mask(_mm512_cvttps_epi32(_mm512_loadu_ps(c + i)), needle);
    n += __builtin_popcount(m);
  }
  return n;
}

int main(int argc, char **argv) {
  for (int i = 0; i < N; ++i) {
    a[i] = (float)(i % 7);
    b[i] = (float)(i % 5) * 0.5f;
    c[i] = (float)(i % 9);
  }
  const char *want = argc > 1 ? argv[1] : "best";
  __builtin_cpu_init();
  float r;
  int eq = -1;
  if (strcmp(want, "best") == 0 && __builtin_cpu_supports("avx512f")) {
    r = dot_avx512();
    eq = count_equal_avx512(3);
  } else if (strcmp(want, "sse") != 0 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    r = dot_avx2();
  } else {
    r = dot_sse();
  }
  /* the same sum by every path (exact in float: small integers) */
  printf("%.1f %d\n", r, eq);
  return 0;
}
