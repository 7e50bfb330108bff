/*
 * stall.h — the loop's own standstills: kriegd stopped (SIGSTOP), its
 * loop blocked.  (A suspended machine's time is none of it: the monotonic
 * clock, libevent's and ours, does not count it, so no deadline ran
 * through it; only a wall-clock `until` said before it is late by it.)
 *
 * Time in which the daemon could not hear anyone is charged to nobody.
 * The clocks have their own rule for it, the lease (recover.h); this is
 * for the timers that end something because someone was silent: an
 * absent player's grace (a player who came back during the stop waited
 * unread in the listen queue while the grace ran out: the service probe
 * lost a game by abandonment 3 s into an 8 s grace) and a connection's
 * idle time and handshake (a line sent during the stop was unread when
 * the connection was closed as silent).
 *
 * A beat every STALL_BEAT_MS; a gap between two looks at the time longer
 * than STALL_BEAT_MS + STALL_SLACK_MS is a standstill of the gap less one
 * beat (what a beat may take is charged as before).  The owner's callback
 * then moves those deadlines by it.  When the daemon runs again every
 * timer due during the stop fires in the same pass, in the order of their
 * deadlines, the beat not first among them: so each such timer first
 * calls stall_check, which notices the standstill if none has yet.
 *
 * Owns one persistent timer on the daemon's event base.
 */
#ifndef KRIEG_STALL_H
#define KRIEG_STALL_H

#include <stdbool.h>
#include <stdint.h>

struct event_base;
struct stall;

#define STALL_BEAT_MS  1000
#define STALL_SLACK_MS 1000

/* fn(arg, ms) is called with each standstill noticed (ms > 0).  NULL when
 * the timer cannot be made. */
struct stall *stall_new(struct event_base *base, void (*fn)(void *arg, int64_t ms), void *arg);
void stall_free(struct stall *s);

/* A standstill since the last look, if any: fn is called with it first.
 * Returns its length in ms, 0 if none (also for s NULL: no loop). */
int64_t stall_check(struct stall *s);

/* For a timer's callback that ends something (an idle connection, a
 * grace): was a standstill noticed now, and the timer ev moved by it (fn
 * re-armed it)?  Then the callback has nothing to end yet. */
struct event;
bool stall_moved(struct stall *s, struct event *ev);

#endif
