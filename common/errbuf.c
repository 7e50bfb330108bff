/*
 * errbuf.c — failf() (errbuf.h).
 */
#include "errbuf.h"

#include <stdarg.h>
#include <stdio.h>

#include "text.h"

int failf(char *err, size_t errlen, const char *fmt, ...)
{
	if (err != NULL && errlen > 0) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
		/* cut to the buffer: between characters, where a quoted word
		 * cut inside one shows a stray byte (a review; fuzz_client) */
		if (n >= 0 && (size_t)n >= errlen)
			err[text_whole_len(err, errlen - 1)] = '\0';
	}
	return -1;
}
