/*
 * mstime.c — time in milliseconds (mstime.h).
 */
#include "mstime.h"

#include <time.h>

static int64_t ms_of(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t mstime_mono(void)
{
	return ms_of(CLOCK_MONOTONIC);
}

int64_t mstime_wall(void)
{
	return ms_of(CLOCK_REALTIME);
}

struct timeval mstime_timeval(int64_t ms)
{
	struct timeval tv;
	if (ms < 0)
		ms = 0;
	tv.tv_sec = (time_t)(ms / 1000);
	tv.tv_usec = (suseconds_t)((ms % 1000) * 1000);
	return tv;
}
