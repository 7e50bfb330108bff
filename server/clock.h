/*
 * clock.h — a game's chess clock as pure logic.  Every function takes the
 * current time ("now", ms on any monotonic-enough scale) as an argument,
 * so the unit tests inject time instead of sleeping; game.c feeds it the
 * event loop's clock and arms a libevent timer at clock_deadline().
 *
 * Modes:
 *   CLOCK_UNTIMED        nothing runs, nobody flags.
 *   CLOCK_FISCHER        base + increment: a side's time runs while it is to
 *                        move; each move played adds the increment.
 *   CLOCK_CORRESPONDENCE days per move: each move refills the mover's
 *                        allowance to the full `days`.
 * The side to move's clock keeps running through refused tries: only a
 * move actually played (clock_moved) stops it.
 * An umpire may pause the clock (clock_pause): nobody is charged and
 * nobody flags until clock_unpause starts the side to move again; time
 * may be added to either side at any point (clock_add).
 */
#ifndef KRIEG_CLOCK_H
#define KRIEG_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "timectl.h"

#define CLOCK_DAY_MS (24LL * 60 * 60 * 1000)
#define CLOCK_BASE_MAX_MS (24LL * 60 * 60 * 1000)   /* one day of base time */
/* A second at least: a game of 1 ms (taken before) was lost on time before
 * White's first try could arrive. */
#define CLOCK_BASE_MIN_MS 1000LL
#define CLOCK_INC_MAX_MS (10LL * 60 * 1000)         /* ten minutes of increment */
#define CLOCK_DAYS_MAX 60
/* What the clients' time-control parser (common/timectl.h) refuses, the
 * server refuses too, and what it accepts the server takes. */
_Static_assert(CLOCK_BASE_MIN_MS == TIMECTL_BASE_MIN_MS, "timectl.h's least base is the server's");
_Static_assert(CLOCK_BASE_MAX_MS == TIMECTL_BASE_MAX_MS, "timectl.h's greatest base is the server's");
_Static_assert(CLOCK_INC_MAX_MS == TIMECTL_INC_MAX_MS, "timectl.h's greatest increment is the server's");
_Static_assert(CLOCK_DAYS_MAX == TIMECTL_DAYS_MAX, "timectl.h's most days are the server's");
_Static_assert(TIMECTL_DAYS_MIN == 1, "the server takes 1 day a move at least (lobby.c)");

enum clock_mode { CLOCK_UNTIMED = 0, CLOCK_FISCHER = 1, CLOCK_CORRESPONDENCE = 2 };

struct clock {
	enum clock_mode mode;
	int64_t base_ms, inc_ms, days;
	int64_t remain[2];      /* ms left at the moment `since` (running side) or now (other) */
	int running;            /* colour whose clock runs, or -1 */
	int64_t since;          /* when `running` last started */
	bool paused;            /* an umpire stopped it (running is -1 meanwhile) */
};

/* Mode follows from the arguments: days > 0 correspondence, base > 0
 * Fischer, else untimed.  The clock starts stopped. */
void clock_init(struct clock *c, int64_t base_ms, int64_t inc_ms, int64_t days);

bool clock_timed(const struct clock *c);
/* Would a clock of these terms run (clock_init's rule: correspondence or
 * Fischer)?  For a game known by its terms alone (a stored row). */
bool clock_terms_timed(int64_t base_ms, int64_t days);

/* Start `color`'s clock at now (the game began, or a recovered game resumes). */
void clock_start(struct clock *c, int color, int64_t now);

/* `running`'s move was played at now: charge the time it took, credit the
 * increment (or refill the correspondence allowance) and start the other
 * side.  No effect when untimed or stopped. */
void clock_moved(struct clock *c, int64_t now);

/* Stop (the game ended): charge the running side up to now. */
void clock_stop(struct clock *c, int64_t now);

/* Time left for color at now, never below 0 (untimed: -1). */
int64_t clock_remaining(const struct clock *c, int color, int64_t now);

/* The colour whose time has run out at now, or -1. */
int clock_flagged(const struct clock *c, int64_t now);

/* ms from now until the running side flags (0 if it already has), or -1
 * if nothing can flag. */
int64_t clock_deadline(const struct clock *c, int64_t now);

/* An umpire's pause: charge the running side up to now and stop; no
 * effect when paused already.  clock_unpause starts `color` (the side to
 * move) at now and ends the pause; no effect when not paused. */
void clock_pause(struct clock *c, int64_t now);
void clock_unpause(struct clock *c, int color, int64_t now);
bool clock_paused(const struct clock *c);
/* The running side's time starts ms later than it did: ms it is not
 * charged (a try's answer that took that long to go out: game.c). */
void clock_defer(struct clock *c, int64_t ms);

/* Give color ms more (an umpire's added time).  No effect when untimed. */
void clock_add(struct clock *c, int color, int64_t ms);

/* Set both readings (recovery from a stored action), stopped. */
void clock_set(struct clock *c, int64_t white_ms, int64_t black_ms);

#endif
