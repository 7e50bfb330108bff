/*
 * clock.c — see clock.h.  Pure: no I/O, no timers, time comes in as an
 * argument.
 */
#include "clock.h"

void clock_init(struct clock *c, int64_t base_ms, int64_t inc_ms, int64_t days)
{
	c->base_ms = base_ms > 0 ? base_ms : 0;
	c->inc_ms = inc_ms > 0 ? inc_ms : 0;
	c->days = days > 0 ? days : 0;
	if (c->days > 0) {
		c->mode = CLOCK_CORRESPONDENCE;
		c->remain[0] = c->remain[1] = c->days * CLOCK_DAY_MS;
		c->inc_ms = 0;
	} else if (c->base_ms > 0) {
		c->mode = CLOCK_FISCHER;
		c->remain[0] = c->remain[1] = c->base_ms;
	} else {
		c->mode = CLOCK_UNTIMED;
		c->remain[0] = c->remain[1] = -1;
		c->inc_ms = 0;
	}
	c->running = -1;
	c->since = 0;
	c->paused = false;
}

bool clock_timed(const struct clock *c)
{
	return c->mode != CLOCK_UNTIMED;
}

bool clock_terms_timed(int64_t base_ms, int64_t days)
{
	return days > 0 || base_ms > 0;
}

void clock_start(struct clock *c, int color, int64_t now)
{
	if (!clock_timed(c) || (color != 0 && color != 1))
		return;
	c->running = color;
	c->since = now;
}

/* Fold the running side's elapsed time into remain[]. */
static void charge(struct clock *c, int64_t now)
{
	if (c->running < 0)
		return;
	int64_t spent = now > c->since ? now - c->since : 0;
	c->remain[c->running] -= spent;
	if (c->remain[c->running] < 0)
		c->remain[c->running] = 0;
	c->since = now;
}

void clock_moved(struct clock *c, int64_t now)
{
	if (!clock_timed(c) || c->running < 0)
		return;
	charge(c, now);
	int mover = c->running;
	if (c->mode == CLOCK_FISCHER)
		c->remain[mover] += c->inc_ms;
	else
		c->remain[mover] = c->days * CLOCK_DAY_MS;
	c->running = !mover;
	c->since = now;
}

void clock_stop(struct clock *c, int64_t now)
{
	charge(c, now);
	c->running = -1;
}

int64_t clock_remaining(const struct clock *c, int color, int64_t now)
{
	if (!clock_timed(c) || (color != 0 && color != 1))
		return -1;
	int64_t r = c->remain[color];
	if (c->running == color && now > c->since)
		r -= now - c->since;
	return r > 0 ? r : 0;
}

int clock_flagged(const struct clock *c, int64_t now)
{
	if (!clock_timed(c) || c->running < 0)
		return -1;
	return clock_remaining(c, c->running, now) <= 0 ? c->running : -1;
}

int64_t clock_deadline(const struct clock *c, int64_t now)
{
	if (!clock_timed(c) || c->running < 0)
		return -1;
	return clock_remaining(c, c->running, now);
}

void clock_set(struct clock *c, int64_t white_ms, int64_t black_ms)
{
	if (!clock_timed(c))
		return;
	c->remain[0] = white_ms > 0 ? white_ms : 0;
	c->remain[1] = black_ms > 0 ? black_ms : 0;
	c->running = -1;
}

void clock_pause(struct clock *c, int64_t now)
{
	if (c->paused)
		return;
	charge(c, now);
	c->running = -1;
	c->paused = true;
}

void clock_unpause(struct clock *c, int color, int64_t now)
{
	if (!c->paused)
		return;
	c->paused = false;
	clock_start(c, color, now);
}

bool clock_paused(const struct clock *c)
{
	return c->paused;
}

void clock_defer(struct clock *c, int64_t ms)
{
	if (clock_timed(c) && c->running >= 0 && ms > 0)
		c->since += ms;
}

void clock_add(struct clock *c, int color, int64_t ms)
{
	if (!clock_timed(c) || (color != 0 && color != 1) || ms <= 0)
		return;
	c->remain[color] += ms;
}
