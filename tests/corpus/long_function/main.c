#include <stdio.h>

/* one very long function with many blocks */
static int long_function(int a, int b)
{
	int r = 0;
	if (a > 0) r += 0; else r -= b;
	for (int i1 = 0; i1 < (b & 3); i1++)
		r ^= i1 * 1;
	switch ((a + 2) % 3) {
	case 0: r += 1; break;
	case 1: r += 2; /* fall through */
	default: r += 3;
	}
	while (r > 1030) r /= 2;
	r = (r && a) ? r + 4 : (b || r) ? r - 1 : 4;

	if (a > 5) r += 5; else r -= b;
	for (int i6 = 0; i6 < (b & 3); i6++)
		r ^= i6 * 6;
	switch ((a + 7) % 3) {
	case 0: r += 1; break;
	case 1: r += 2; /* fall through */
	default: r += 3;
	}
	while (r > 1080) r /= 2;
	r = (r && a) ? r + 9 : (b || r) ? r - 1 : 9;

	if (a > 10) r += 10; else r -= b;
	for (int i11 = 0; i11 < (b & 3); i11++)
		r ^= i11 * 11;
	switch ((a + 12) % 3) {
	case 0: r += 1; break;
	case 1: r += 2; /* fall through */
	default: r += 3;
	}
	while (r > 1130) r /= 2;
	r = (r && a) ? r + 14 : (b || r) ? r - 1 : 14;

	if (a > 15) r += 15; else r -= b;
	for (int i16 = 0; i16 < (b & 3); i16++)
		r ^= i16 * 16;
	switch ((a + 17) % 3) {
	case 0: r += 1; break;
	case 1: r += 2; /* fall through */
	default: r += 3;
	}
	while (r > 1180) r /= 2;
	r = (r && a) ? r + 19 : (b || r) ? r - 1 : 19;

	if (a > 20) r += 20; else r -= b;
	for (int i21 = 0; i21 < (b & 3); i21++)
		r ^= i21 * 21;
	switch ((a + 22) % 3) {
	case 0: r += 1; break;
	case 1: r += 2; /* fall through */
	default: r += 3;
	}
	while (r > 1230) r /= 2;
	r = (r && a) ? r + 24 : (b || r) ? r - 1 : 24;

	if (a > 25) r += 25; else r -= b;
	for (int i26 = 0; i26 < (b & 3); i26++)
		r ^= i26 * 26;
	switch ((a + 27) % 3) {
	case 0: r += 1; break;
	case 1: r += 2; /* fall through */
	default: r += 3;
	}
	while (r > 1280) r /= 2;
	r = (r && a) ? r + 29 : (b || r) ? r - 1 : 29;

	if (a > 30) r += 30; else r -= b;
	for (int i31 = 0; i31 < (b & 3); i31++)
		r ^= i31 * 31;
	switch ((a + 32) % 3) {
	case 0: r += 1; break;
	case 1: r += 2; /* fall through */
	default: r += 3;
	}
	while (r > 1330) r /= 2;
	r = (r && a) ? r + 34 : (b || r) ? r - 1 : 34;

	if (a > 35) r += 35; else r -= b;
	for (int i36 = 0; i36 < (b & 3); i36++)
		r ^= i36 * 36;
	switch ((a + 37) % 3) {
	case 0: r += 1; break;
	case 1: r += 2; /* fall through */
	default: r += 3;
	}
	while (r > 1380) r /= 2;
	r = (r && a) ? r + 39 : (b || r) ? r - 1 : 39;

	if (a > 40) r += 40; else r -= b;
	for (int i41 = 0; i41 < (b & 3); i41++)
		r ^= i41 * 41;
	switch ((a + 42) % 3) {
	case 0: r += 1; break;
	case 1: r += 2; /* fall through */
	default: r += 3;
	}
	while (r > 1430) r /= 2;
	r = (r && a) ? r + 44 : (b || r) ? r - 1 : 44;

	if (a > 45) r += 45; else r -= b;
	for (int i46 = 0; i46 < (b & 3); i46++)
		r ^= i46 * 46;
	switch ((a + 47) % 3) {
	case 0: r += 1; break;
	case 1: r += 2; /* fall through */
	default: r += 3;
	}
	while (r > 1480) r /= 2;
	r = (r && a) ? r + 49 : (b || r) ? r - 1 : 49;

	if (a > 50) r += 50; else r -= b;
	for (int i51 = 0; i51 < (b & 3); i51++)
		r ^= i51 * 51;
	switch ((a + 52) % 3) {
	case 0: r += 1; break;
	case 1: r += 2; /* fall through */
	default: r += 3;
	}
	while (r > 1530) r /= 2;
	r = (r && a) ? r + 54 : (b || r) ? r - 1 : 54;

	if (a > 55) r += 55; else r -= b;
	for (int i56 = 0; i56 < (b & 3); i56++)
		r ^= i56 * 56;
	switch ((a + 57) % 3) {
	case 0: r += 1; break;
	case 1: r += 2; /* fall through */
	default: r += 3;
	}
	while (r > 1580) r /= 2;
	r = (r && a) ? r + 59 : (b || r) ? r - 1 : 59;

	return r;
}

int main(int argc, char **argv)
{
	(void)argv;
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += long_function(i * argc * 7, i + argc);
	printf("%d\n", s);
	return 0;
}
