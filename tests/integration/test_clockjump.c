/*
 * test_clockjump.c — the wall clock stepping under kriegd, an hour
 * forward and an hour back, with a timed game in flight (issue 13's
 * "clock jump" fault).  The daemon runs with faketime.c preloaded
 * (LD_PRELOAD, no root): its wall-clock reads get the offset the test
 * writes to a file; its monotonic clock is left alone, as a real step
 * leaves it.
 *
 * What must hold (monotonic time rules clocks):
 *   - each player's clock, as the daemon reads it, runs by the real time
 *     that passed across a step, never by the step; the other clock
 *     stands; nobody's flag falls;
 *   - the abandonment grace and the chat rate window run on monotonic
 *     time: a step neither fires the grace nor reopens the window (the
 *     deadline a player is shown, opponent_away's "until", is wall time,
 *     so it moves with the step: that is how the test knows the shim
 *     took);
 *   - a kill -9 while the mover thinks across a step, the daemon started
 *     again on the stepped clock: the restart charges the thinking up to
 *     the last heartbeat's lease, neither the step nor nothing.  Stepped
 *     back, the new start reads a wall clock earlier than the lease was
 *     written: the whole lease stands (recover.c, resume_clocks); stepped
 *     forward, the downtime is charged to nobody, as ever.  (Before
 *     recover_clock_ms, the step back refunded the thinking and the step
 *     forward flagged the mover.)
 *   - the game plays on to its end, and kd_stop replays every record.
 * The spectator delay (spectator_delay) counts plies, not time: no clock
 * to step.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "harness.h"
#include "harness_game.h"

#define FAST_CONFIG "rate_limit = 100000\nrate_burst = 100000\n"
#define HOUR_S 3600LL
#define GRACE_MS 60000LL       /* the default abandon_grace */
#define LEASE_MS 1500LL        /* RECOVER_ALIVE_LEASE_MS */

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long long wall_ms(void)   /* the real one: the test is not preloaded */
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The shim: $KRIEG_FAKETIME_SO, else the build tree's, beside this
 * binary ($(BUILD)/tests/integration/ -> $(BUILD)/lib/). */
static void shim_path(char *out, size_t len)
{
	const char *e = getenv("KRIEG_FAKETIME_SO");
	if (e != NULL && *e != '\0') {
		snprintf(out, len, "%s", e);
	} else {
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		ck_assert_msg(n > 0, "cannot read /proc/self/exe");
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		ck_assert_ptr_nonnull(slash);
		*slash = '\0';
		int k = snprintf(out, len, "%s/../../lib/krieg-faketime.so", exe);
		ck_assert_msg(k > 0 && (size_t)k < len, "path too long");
	}
	ck_assert_msg(access(out, R_OK) == 0, "the faketime shim %s is missing (make builds it)", out);
}

/* The daemon's wall clock, offset by `seconds` from now on.  A new file
 * each time (rename), so the shim sees it change; it looks every 2 ms. */
static void set_step(const char *path, long long seconds)
{
	char tmp[PATH_MAX];
	int k = snprintf(tmp, sizeof tmp, "%s.new", path);
	ck_assert(k > 0 && (size_t)k < sizeof tmp);
	FILE *f = fopen(tmp, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%lld\n", seconds);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(rename(tmp, path), 0);
	kt_sleep_ms(20);
}

/* Both clocks as the daemon reads them (the `game` answer), and the
 * test's monotonic time just before and after: the reading was taken
 * in between. */
struct reading {
	long long clk[2];
	long long lo, hi;
};

static struct reading read_clocks(struct kc *c, json_int_t g)
{
	struct reading r;
	r.lo = mono_ms();
	json_t *res = kc_ok(c, kc_req(c, "game", "{s:I}", "game", g));
	r.hi = mono_ms();
	json_t *clk = json_object_get(res, "clock");
	ck_assert_msg(json_is_object(clk), "the game's answer has no clock: over, %s by %s?",
	              json_string_value(json_object_get(res, "result")),
	              json_string_value(json_object_get(res, "reason")));
	r.clk[WHITE] = json_integer_value(json_object_get(clk, "white"));
	r.clk[BLACK] = json_integer_value(json_object_get(clk, "black"));
	return r;
}

/* Between readings a and b, the mover's clock ran by the real time that
 * passed (within the readings' brackets, and a few ms of rounding), the
 * other's stood still. */
static void check_ran(const char *what, struct reading a, struct reading b, int mover)
{
	long long ran = a.clk[mover] - b.clk[mover];
	long long min = b.lo - a.hi - 5, max = b.hi - a.lo + 5;
	ck_assert_msg(ran >= min && ran <= max,
	              "%s: %s's clock ran %lld ms while %lld..%lld ms passed", what,
	              mover == WHITE ? "white" : "black", ran, min, max);
	ck_assert_msg(b.clk[!mover] == a.clk[!mover], "%s: the waiting clock moved: %lld then %lld",
	              what, a.clk[!mover], b.clk[!mover]);
	ck_assert_msg(b.clk[mover] > 0, "%s: flag", what);
}

/* A reading across a step made while `mover` thinks. */
static void step_while_thinking(const char *what, const char *file, long long step_s,
                                struct kc *c, json_int_t g, int mover)
{
	struct reading a = read_clocks(c, g);
	set_step(file, step_s);
	kt_sleep_ms(600);
	struct reading b = read_clocks(c, g);
	check_ran(what, a, b, mover);
}

static void move(struct kp *p, json_int_t g, const char *mv)
{
	kc_ok(p->c, kc_req(p->c, "move", "{s:I, s:s}", "game", g, "move", mv));
}

/* p leaves and comes back: the opponent o is told, with the grace's
 * deadline on the daemon's wall clock (so: stepped by step_s), and the
 * game is not abandoned. */
static void away_and_back(struct kd *d, struct kp *p, struct kp *o, long long step_s)
{
	kc_close(p->c);
	long long lo = wall_ms();
	json_t *e = kc_event(o->c, "opponent_away");
	long long hi = wall_ms();
	long long until = json_integer_value(json_object_get(e, "until"));
	long long want = step_s * 1000 + GRACE_MS;
	ck_assert_msg(until >= lo + want - 2000 && until <= hi + want + 2000,
	              "opponent_away until %lld, not the daemon's stepped clock (%+lld s) + grace: "
	              "is the shim preloaded?", until, step_s);
	/* Regression (the time probe): what a client counts down from is
	 * `left`, the grace on the monotonic clock, whatever the wall clock
	 * on either side says (a client's own clock minutes off had the
	 * countdown said against it). */
	long long left = json_integer_value(json_object_get(e, "left"));
	ck_assert_msg(left > GRACE_MS - 2000 && left <= GRACE_MS, "opponent_away left %lld, not the grace "
	              "(%lld ms) with the wall clock stepped %+lld s", left, GRACE_MS, step_s);
	kp_resume(d, p);
	kc_event(o->c, "opponent_back");
}

/* Neither player has seen the game end, by a flag, abandonment or else. */
static void still_live(struct kp *w, struct kp *b, json_int_t g)
{
	json_t *r = kc_ok(w->c, kc_req(w->c, "game", "{s:I}", "game", g));
	ck_assert_msg(json_is_true(json_object_get(r, "live")), "the game is over");
	ck_assert(!kc_saw(w->c, "game_over"));
	ck_assert(!kc_saw(b->c, "game_over"));
}

/*
 * The mover thinks think_ms, the wall clock is stepped to step_s meanwhile
 * (after a heartbeat on the old one, before several on the new), kill -9,
 * restart.  Charged: the thinking up to the last heartbeat's lease: at
 * most `short_ms` short of the real thinking, at most the lease long.
 */
static void crash_across_step(struct kd *d, struct kp *w, struct kp *b, json_int_t g, int mover,
                              const char *file, long long step_s, int think_ms, int short_ms)
{
	struct reading a = read_clocks(w->c, g);
	kt_sleep_ms(think_ms / 3);
	set_step(file, step_s);
	kt_sleep_ms(think_ms - think_ms / 3);
	kc_close(w->c);
	kc_close(b->c);
	long long killed = mono_ms();
	kd_crash_restart(d);
	kp_resume(d, w);
	kp_resume(d, b);
	struct reading c = read_clocks(w->c, g);
	long long thought = killed - a.hi;   /* at least this, up to the kill */
	long long charged = a.clk[mover] - c.clk[mover];
	ck_assert_msg(charged >= thought - short_ms,
	              "step %+lld s: %s's %lld ms of thinking before the kill were refunded (charged "
	              "%lld)", step_s, mover == WHITE ? "white" : "black", thought, charged);
	/* Everything since the reading (downtime included), plus the lease. */
	ck_assert_msg(charged <= c.hi - a.lo + LEASE_MS,
	              "step %+lld s: %s charged %lld ms in %lld ms", step_s,
	              mover == WHITE ? "white" : "black", charged, c.hi - a.lo);
	ck_assert_int_eq(c.clk[!mover], a.clk[!mover]);
	still_live(w, b, g);
}

START_TEST(wall_clock_steps)
{
	char so[PATH_MAX], file[PATH_MAX], asan[512];
	shim_path(so, sizeof so);
	const char *tmpdir = getenv("TMPDIR");
	snprintf(file, sizeof file, "%s/krieg-faketime-%ld", tmpdir && *tmpdir ? tmpdir : "/tmp",
	         (long)getpid());
	set_step(file, 0);
	/* Inherited by the daemon only (this process is not re-executed).  An
	 * ASan daemon refuses a preloaded library ahead of its runtime unless
	 * told; the harness's own default (quarantine) is kept. */
	ck_assert_int_eq(setenv("KRIEG_FAKETIME_FILE", file, 1), 0);
	ck_assert_int_eq(setenv("LD_PRELOAD", so, 1), 0);
	const char *ao = getenv("ASAN_OPTIONS");
	snprintf(asan, sizeof asan, "%s:verify_asan_link_order=0",
	         ao && *ao ? ao : "quarantine_size_mb=16");
	ck_assert_int_eq(setenv("ASAN_OPTIONS", asan, 1), 0);
	/* Under valgrind (make memcheck) heartbeats may come late. */
	int short_ms = kt_timeout_scale() > 1 ? 2000 : 1000;

	struct kd *d = kd_start(FAST_CONFIG);
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	json_int_t g = kg_new_timed_game(&w, &b, 300, 0);
	move(&w, g, "e2e4");
	move(&b, g, "e7e5");
	/* Black spends its chat window (5 lines in 10 s) before the step. */
	for (int i = 0; i < 5; i++)
		kc_ok(b.c, kc_req(b.c, "say", "{s:I, s:s}", "game", g, "text", "hello"));

	/* An hour forward. */
	step_while_thinking("+1 h, white to move", file, HOUR_S, w.c, g, WHITE);
	kc_error(b.c, kc_req(b.c, "say", "{s:I, s:s}", "game", g, "text", "again"), "rate_limited");
	away_and_back(d, &b, &w, HOUR_S);
	move(&w, g, "g1f3");
	step_while_thinking("+1 h, black to move", file, HOUR_S, w.c, g, BLACK);
	move(&b, g, "b8c6");
	still_live(&w, &b, g);

	/* An hour back (two hours from the last step). */
	step_while_thinking("-1 h, white to move", file, -HOUR_S, b.c, g, WHITE);
	away_and_back(d, &w, &b, -HOUR_S);
	move(&w, g, "f1c4");
	step_while_thinking("-1 h, black to move", file, -HOUR_S, w.c, g, BLACK);
	move(&b, g, "g8f6");
	still_live(&w, &b, g);

	/* kill -9 with Black thinking across a step back (its last action on
	 * the real clock), the daemon up again on the stepped-back clock. */
	set_step(file, 0);
	move(&w, g, "d2d3");
	crash_across_step(d, &w, &b, g, BLACK, file, -HOUR_S, 3000, short_ms);
	/* And White thinking across a step forward, from an hour back to an
	 * hour ahead: charged an hour (or two) it would be flagged. */
	move(&b, g, "f8c5");
	crash_across_step(d, &w, &b, g, WHITE, file, HOUR_S, 3000, short_ms);

	/* It plays on to the end, on the stepped clock. */
	move(&w, g, "c2c3");
	step_while_thinking("after restarts, black to move", file, HOUR_S, w.c, g, BLACK);
	move(&b, g, "d7d6");
	still_live(&w, &b, g);
	kc_ok(b.c, kc_req(b.c, "resign", "{s:I}", "game", g));
	json_t *e = kc_event(w.c, "game_over");
	ck_assert_str_eq(json_string_value(json_object_get(e, "result")), "1-0");
	ck_assert_str_eq(json_string_value(json_object_get(e, "reason")), "resignation");
	struct kc *c = kc_hello(d);
	kc_ok(c, kc_req(c, "ping", NULL));
	kc_close(c);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);   /* replays every record */
	unlink(file);
}
END_TEST

static Suite *clockjump_suite(void)
{
	Suite *s = suite_create("clockjump");
	TCase *tc = tcase_create("clockjump");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, wall_clock_steps);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(clockjump_suite)
