/*
 * xmalloc.h — allocation that cannot fail, and the one way arrays grow.
 *
 * Running out of memory is fatal everywhere in krieg (STYLE.md, after
 * tmux's xmalloc.c): these wrappers abort() instead of returning NULL, so
 * no caller carries an error path that is never taken.  common/ does no
 * I/O, so they print nothing; a daemon's core dump or the exit status says
 * what happened.
 */
#ifndef KRIEG_XMALLOC_H
#define KRIEG_XMALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
/* realloc(p, n * size) with the multiplication checked for overflow. */
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);

/*
 * Make room for `need` elements of `size` bytes in the array p whose
 * capacity is *cap: doubles the capacity (starting at `min`) until it is
 * at least need, and returns the (possibly moved) array.  The idiom:
 *
 *	v = xgrow(v, &cap, n + 1, sizeof *v, 64);
 *	v[n++] = x;
 */
void *xgrow(void *p, size_t *cap, size_t need, size_t size, size_t min);

#endif
