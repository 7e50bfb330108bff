/*
 * trim.c — see trim.h.
 */
#include "trim.h"

#include <stdlib.h>
#include <time.h>

#include <event2/event.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "log.h"
#include "mstime.h"
#include "xmalloc.h"

struct trim {
	struct event *timer;
	uint64_t runs;
};

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int trim_once(struct trim *t)
{
	int64_t start = now_us();
	int gave = 0;
#if defined(__GLIBC__)
	gave = malloc_trim(0);
#endif
	t->runs++;
	log_debug("trim gave=%d took_us=%lld", gave, (long long)(now_us() - start));
	return gave;
}

static void trim_cb(evutil_socket_t fd, short what, void *arg)
{
	trim_once(arg);
}

/* trim.h: what free() keeps for the next allocation between trims. */
static void trim_policy(void)
{
#if defined(__GLIBC__)
	if (mallopt(M_TRIM_THRESHOLD, TRIM_TOP_KEEP) != 1 || mallopt(M_MMAP_THRESHOLD, TRIM_MMAP_MIN) != 1)
		log_debug("trim: the allocator keeps its own thresholds (not glibc's malloc)");
#endif
}

struct trim *trim_new(struct event_base *base, int64_t interval_ms)
{
	struct trim *t = xcalloc(1, sizeof *t);
	trim_policy();
	struct timeval tv = mstime_timeval(interval_ms);
	if ((t->timer = event_new(base, -1, EV_PERSIST, trim_cb, t)) == NULL || event_add(t->timer, &tv) != 0) {
		trim_free(t);
		return NULL;
	}
	return t;
}

void trim_free(struct trim *t)
{
	if (t == NULL)
		return;
	if (t->timer != NULL)
		event_free(t->timer);
	free(t);
}

uint64_t trim_runs(const struct trim *t)
{
	return t->runs;
}
