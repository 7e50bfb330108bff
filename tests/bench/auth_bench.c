/*
 * auth_bench.c — how long one password hash takes at each scrypt cost, to
 * choose KDF_LN_DEFAULT (server/kdf.h) and AUTH_WORKERS (server/auth.h).
 * Unit tests may not time things; this is where the number comes from.
 *
 *   make bench          (builds build/release/bench/auth_bench and runs it)
 *   build/release/bench/auth_bench [runs]
 *
 * Measured on the shared 2-core build machine (OpenSSL 3.0.x, r=8, p=1,
 * best of 3):
 *   ln=12   4 MiB    10 ms
 *   ln=14  16 MiB    47 ms
 *   ln=15  32 MiB   108 ms   <- default: 2 workers hash ~18 logins/s
 *   ln=16  64 MiB   209 ms
 * Over the wire (tests/integration/test_accounts.c's daemon), a login
 * answers in ~110 ms for a wrong password and for an unknown user alike.
 * A login costs one hash whether or not the user exists.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kdf.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 5;
	char enc[KDF_ENCODED_MAX];
	const char *pw = "correct horse battery staple";

	if (runs < 1)
		runs = 1;
	for (int ln = 12; ln <= 16; ln++) {
		double best = 1e18, sum = 0;
		for (int i = 0; i < runs; i++) {
			double t0 = now_ms();
			if (kdf_hash(pw, strlen(pw), ln, enc, sizeof enc) != 0) {
				fprintf(stderr, "kdf_hash failed at ln=%d\n", ln);
				return 1;
			}
			double t = now_ms() - t0;
			sum += t;
			if (t < best)
				best = t;
		}
		double t0 = now_ms();
		int ok = kdf_verify(pw, strlen(pw), enc);
		double tv = now_ms() - t0;
		printf("ln=%d N=%-6d mem=%3d MiB  hash: best %7.1f ms  mean %7.1f ms  verify %7.1f ms%s\n",
		       ln, 1 << ln, (128 * KDF_R << ln) >> 20, best, sum / runs, tv,
		       ok == 1 ? "" : "  VERIFY FAILED");
	}
	return 0;
}
