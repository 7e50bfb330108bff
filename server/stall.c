/*
 * stall.c — the loop's own standstills; see stall.h.
 */
#include "stall.h"

#include <inttypes.h>
#include <stdlib.h>

#include <event2/event.h>

#include "log.h"
#include "mstime.h"
#include "xmalloc.h"

struct stall {
	struct event *beat;
	int64_t last;                /* mstime_mono() of the last look */
	void (*fn)(void *arg, int64_t ms);
	void *arg;
};

int64_t stall_check(struct stall *s)
{
	if (s == NULL)
		return 0;
	int64_t now = mstime_mono(), gap = now - s->last;
	s->last = now;
	if (gap <= STALL_BEAT_MS + STALL_SLACK_MS)
		return 0;
	int64_t ms = gap - STALL_BEAT_MS;
	log_warnx("the loop stood %" PRId64 " ms (stopped or blocked): the graces and idle "
	          "times running then are moved by it", ms);
	s->fn(s->arg, ms);
	return ms;
}

bool stall_moved(struct stall *s, struct event *ev)
{
	return stall_check(s) > 0 && evtimer_pending(ev, NULL);
}

static void beat_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	stall_check(arg);
}

struct stall *stall_new(struct event_base *base, void (*fn)(void *arg, int64_t ms), void *arg)
{
	struct stall *s = xcalloc(1, sizeof *s);
	s->fn = fn;
	s->arg = arg;
	s->last = mstime_mono();
	struct timeval tv = mstime_timeval(STALL_BEAT_MS);
	if ((s->beat = event_new(base, -1, EV_PERSIST, beat_cb, s)) == NULL || event_add(s->beat, &tv) != 0) {
		stall_free(s);
		return NULL;
	}
	return s;
}

void stall_free(struct stall *s)
{
	if (s == NULL)
		return;
	if (s->beat != NULL)
		event_free(s->beat);
	free(s);
}
