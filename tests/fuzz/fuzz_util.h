/*
 * fuzz_util.h — what every libFuzzer target here shares: the input as a
 * NUL-terminated copy (the parsers under test take C strings; an input
 * with a NUL in it is cut there, as a C caller would cut it), and an
 * abort with a message for a broken invariant (libFuzzer records the
 * input that did it).
 */
#ifndef KRIEG_FUZZ_UTIL_H
#define KRIEG_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#define FUZZ_ASSERT(cond, ...)                                                        \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: invariant broken: %s: ", __FILE__,    \
			        __LINE__, #cond);                                     \
			fprintf(stderr, __VA_ARGS__);                                 \
			fputc('\n', stderr);                                          \
			abort();                                                      \
		}                                                                     \
	} while (0)

#endif
