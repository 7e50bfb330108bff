/*
 * idhash.h — the chain of an integer id in a hash of nbuckets chains (a
 * power of two): conn.c's index of users, game.c's of live games.  Ids are
 * small and sequential; the multiplication (Fibonacci hashing) spreads
 * them over the high bits, which the shift keeps.
 */
#ifndef KRIEG_IDHASH_H
#define KRIEG_IDHASH_H

#include <stddef.h>
#include <stdint.h>

static inline size_t idhash(int64_t id, size_t nbuckets)
{
	uint64_t h = (uint64_t)id * UINT64_C(0x9E3779B97F4A7C15);

	return (size_t)(h >> 32) & (nbuckets - 1);
}

#endif
