/*
 * trim.h — the memory kriegd has freed, given back to the system.
 *
 * glibc's malloc keeps freed pages in its arenas and gives back only the
 * top of a heap, and only past a threshold.  Under kriegd's churn (games
 * and connections made and dropped all day, the live heap swinging by
 * several MiB within a minute) the resident size then tracks the highest
 * the heap has reached more than what is in use: in the 10-minute soaks
 * RSS crept up by about 1.5 MiB while the live heap, recorded by
 * heaptrack, stayed flat (BENCHMARKS.md, "Soak").  A daemon that runs for
 * months should not keep its busiest minute's pages.  So the loop calls
 * malloc_trim(0) every TRIM_INTERVAL_MS, which also releases whole free
 * pages inside a heap (madvise), in every arena: 0.3-0.6 ms a trim at 200
 * live games (BENCHMARKS.md, "2026-12-02, sixth"), so once every 10 s
 * costs the loop nothing it would notice.  Elsewhere than glibc it does
 * nothing.
 *
 * The trim is also why free() need not give memory back itself.  By
 * default glibc's free() returns a heap's top once more than 128 KiB of it
 * is free, and the next allocation faults the pages in again: at 200
 * connections every turn's TLS read buffers (OpenSSL's, released after
 * each read, and the bufferevents') did that, about 17,000 page faults a
 * second, a quarter of kriegd's CPU a try (BENCHMARKS.md, "2026-12-06").
 * So trim_new() lets a heap keep up to TRIM_TOP_KEEP free at its top
 * between trims, and takes blocks under TRIM_MMAP_MIN from the heaps, as
 * glibc's own sliding threshold (which setting the first turns off) would
 * after freeing one such block.
 *
 * Owns one persistent timer on the daemon's event base.
 */
#ifndef KRIEG_TRIM_H
#define KRIEG_TRIM_H

#include <stdint.h>

struct event_base;
struct trim;

#define TRIM_INTERVAL_MS 10000
#define TRIM_TOP_KEEP    (8 * 1024 * 1024)   /* bytes: M_TRIM_THRESHOLD */
#define TRIM_MMAP_MIN    (4 * 1024 * 1024)   /* bytes: M_MMAP_THRESHOLD */

/* A timer every interval_ms (> 0) on base; NULL when it cannot be made.
 * Also sets the process's allocator as said above (once is enough; again
 * is harmless). */
struct trim *trim_new(struct event_base *base, int64_t interval_ms);
void trim_free(struct trim *t);

/* One trim now (what the timer does): 1 when the allocator gave memory
 * back, 0 when it had nothing to give or is not glibc's. */
int trim_once(struct trim *t);

/* How many trims have run (each logs its duration at log_level=debug). */
uint64_t trim_runs(const struct trim *t);

#endif
