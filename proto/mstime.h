/*
 * mstime.h — time in milliseconds, the unit of every clock in krieg
 * (game clocks, timeouts, stored times).  Shared by the daemon, the
 * clients and the tests; the rules core never reads a clock.
 */
#ifndef KRIEG_MSTIME_H
#define KRIEG_MSTIME_H

#include <stdint.h>
#include <sys/time.h>

/* Monotonic: for durations and deadlines (never jumps with the wall clock). */
int64_t mstime_mono(void);
/* Wall clock, ms since the epoch: for what is stored or shown (log lines,
 * record dates, expiries of days that outlive a restart), never for a
 * duration or deadline measured while running: a wall-clock step would
 * move it.  The restart's charge compares stored times, on the daemon's
 * recover_clock_ms() (server/recover.h), wall time that does not step. */
int64_t mstime_wall(void);
/* ms as a struct timeval (libevent timers); negative counts as 0. */
struct timeval mstime_timeval(int64_t ms);

#endif
