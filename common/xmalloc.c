/*
 * xmalloc.c — allocation that cannot fail (xmalloc.h).
 */
#include "xmalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (p == NULL)
		abort();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (p == NULL)
		abort();
	return p;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		abort();
	size_t bytes = n * size;
	void *q = realloc(p, bytes != 0 ? bytes : 1);
	if (q == NULL)
		abort();
	return q;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = xmalloc(n);
	memcpy(p, s, n);
	return p;
}

void *xgrow(void *p, size_t *cap, size_t need, size_t size, size_t min)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : (min ? min : 1);
	while (c < need) {
		if (c > SIZE_MAX / 2)
			abort();
		c *= 2;
	}
	p = xreallocarray(p, c, size);
	*cap = c;
	return p;
}
