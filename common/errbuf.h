/*
 * errbuf.h — the one way a function reports a message to its caller's
 * buffer.  Callers pass (char *err, size_t errlen); a failing function
 * writes a short message there and returns -1, in one statement:
 *
 *	return failf(err, errlen, "rank %d has %d squares", rank + 1, n);
 *
 * err may be NULL (or errlen 0) when the caller wants no message.
 */
#ifndef KRIEG_ERRBUF_H
#define KRIEG_ERRBUF_H

#include <stddef.h>

__attribute__((format(printf, 3, 4)))
int failf(char *err, size_t errlen, const char *fmt, ...);

#endif
