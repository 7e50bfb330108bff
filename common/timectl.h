/*
 * timectl.h — reading a time control as a player writes it: the one
 * parser the terminal client (krieg's seek, challenge and pair) and
 * krieg-bot (--time) share, so that they read the same forms and refuse
 * the same ones, and refuse what the server would (server/clock.h ties
 * its limits to these with _Static_assert).
 *
 * It owns the written forms and the limits below; not the wire's "time"
 * object (each client builds its own from struct timectl) nor the clock
 * itself (server/clock.h).  Pure: no I/O, no globals, no locale — numbers
 * are read by hand, not with strtod(), which stops at the point where the
 * locale's decimal mark is a comma, and reads "0x10" and "1e1".
 *
 * The forms:
 *   "5+2"       minutes + seconds of increment
 *   "0.5+0"     a fractional base (half a minute)
 *   "1:40+0.5"  minutes:seconds[.fff] (seconds two digits at least and
 *               under 60), as krieg's words_time writes a base that is no
 *               exact decimal of minutes; an increment's fraction
 *   "5"         minutes, no increment
 *   "3d"        correspondence: days a move
 *   "untimed", "none"
 * Decimals are digits with at most one point, digits on both sides of it,
 * and no sign, exponent or blank; a value that is no whole number of
 * milliseconds is refused, not rounded.
 */
#ifndef KRIEG_TIMECTL_H
#define KRIEG_TIMECTL_H

#include <stdbool.h>

#define TIMECTL_BASE_MIN_MS 1000LL                   /* a second */
#define TIMECTL_BASE_MAX_MS (24LL * 60 * 60 * 1000)  /* a day: "1440" */
#define TIMECTL_INC_MAX_MS (10LL * 60 * 1000)        /* ten minutes: "+600" */
#define TIMECTL_DAYS_MIN 1
#define TIMECTL_DAYS_MAX 60

enum timectl_kind {
	TIMECTL_UNTIMED = 0,   /* "untimed", "none": base_ms, inc_ms and days 0 */
	TIMECTL_FISCHER,       /* base + increment: days 0 */
	TIMECTL_DAYS,          /* correspondence: base_ms and inc_ms 0 */
};

struct timectl {
	enum timectl_kind kind;
	long long base_ms;     /* TIMECTL_BASE_MIN_MS .. TIMECTL_BASE_MAX_MS */
	long long inc_ms;      /* 0 .. TIMECTL_INC_MAX_MS */
	int days;              /* TIMECTL_DAYS_MIN .. TIMECTL_DAYS_MAX */
};

/* s, one of the forms above within the limits, into *out: true; false
 * (and *out untouched) if it is not one.  s is a whole word: nothing may
 * follow the form. */
bool timectl_parse(const char *s, struct timectl *out);

#endif
