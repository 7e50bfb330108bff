/*
 * recover.c — replay a stored record through the referee and check it
 * against the stored announcements (see recover.h).
 *
 * Why check at all, when the referee is deterministic: the record on disk
 * may not be what the server wrote (a restored old backup under a newer
 * binary whose rules changed, a hand edit, a disk error SQLite did not
 * catch).  The announcements are what the players were actually told, so
 * a game is resumed only if replaying its tries tells them exactly that
 * again; otherwise the players would be carrying on from a board that is
 * not the one they were playing.
 */
#include "recover.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "announce.h"
#include "clock.h"
#include "log.h"
#include "mstime.h"
#include "referee.h"
#include "ruleset.h"
#include "xmalloc.h"

#define RECOVER_REASON_MAX 256

/* ---- the stored announcements ---------------------------------------- */

struct stored_ev {
	int seq;
	struct event e;
};

struct evstore {
	struct stored_ev *v;
	size_t n, cap;
};

static int collect_ev(int seq, const struct event *e, void *arg)
{
	struct evstore *s = arg;

	s->v = xgrow(s->v, &s->cap, s->n + 1, sizeof *s->v, 256);
	s->v[s->n].seq = seq;
	s->v[s->n].e = *e;
	s->n++;
	return 0;
}

static const char *ev_name(int type)
{
	const char *n = event_type_name(type);
	return n != NULL ? n : "?";
}

/* The first stored field in which a and b differ, or NULL if none does;
 * both values, as text, go to va and vb.  The SAN is not stored (it
 * follows from the move), so not compared. */
static const char *event_diff(const struct event *a, const struct event *b, char *va, char *vb,
                              size_t len)
{
#define DIFF_INT(field, name)                                              \
	if ((a->field) != (b->field)) {                                    \
		snprintf(va, len, "%lld", (long long)(a->field));          \
		snprintf(vb, len, "%lld", (long long)(b->field));          \
		return name;                                               \
	}
	if (a->type != b->type) {
		snprintf(va, len, "%s", ev_name(a->type));
		snprintf(vb, len, "%s", ev_name(b->type));
		return "type";
	}
	DIFF_INT(audience, "audience")
	DIFF_INT(by, "by")
	DIFF_INT(square, "square")
	DIFF_INT(move, "move")
	DIFF_INT(what, "what")
	DIFF_INT(en_passant, "en_passant")
	if (a->checks[0] != b->checks[0] || a->checks[1] != b->checks[1]) {
		snprintf(va, len, "%d,%d", (int)a->checks[0], (int)a->checks[1]);
		snprintf(vb, len, "%d,%d", (int)b->checks[0], (int)b->checks[1]);
		return "checks";
	}
	DIFF_INT(count, "count")
	DIFF_INT(answer, "answer")
	DIFF_INT(result, "result")
	DIFF_INT(reason, "reason")
	DIFF_INT(ply, "ply")
	DIFF_INT(squares, "squares")
#undef DIFF_INT
	return NULL;
}

static const char *nz(const char *s)
{
	return s != NULL ? s : "?";
}

/* ---- the replay ---------------------------------------------------------- */

struct replay {
	struct referee *ref;
	struct evstore stored;
	size_t next;                 /* first stored event not yet matched */
	struct evlist out;
	struct recover_result *res;
	size_t cap, hcap, scap;
	int prev_seq;
	int bad;
	char *err;
	size_t errlen;
};

static int replay_action(const struct store_action *a, void *arg)
{
	struct replay *rp = arg;

	if (a->seq != rp->prev_seq + 1) {
		snprintf(rp->err, rp->errlen, "seq %d follows seq %d (an action is missing)", a->seq,
		         rp->prev_seq);
		rp->bad = 1;
		return 1;
	}
	rp->prev_seq = a->seq;
	if (!a->ok)
		return 0;
	/* Announcements stored under an earlier seq that no action produced. */
	if (rp->next < rp->stored.n && rp->stored.v[rp->next].seq < a->seq) {
		snprintf(rp->err, rp->errlen, "seq %d: stored announcements without an action",
		         rp->stored.v[rp->next].seq);
		rp->bad = 1;
		return 1;
	}
	evlist_clear(&rp->out);
	int plies = referee_plies(rp->ref);
	struct action act;
	int st = action_parse(&act, a->kind, a->color, a->text);
	if (st == REF_OK)
		st = referee_apply(rp->ref, &act, &rp->out);
	if (st != REF_OK) {
		snprintf(rp->err, rp->errlen, "seq %d: the referee refuses the stored %s (%s)", a->seq,
		         a->kind, referee_status_name(st));
		rp->bad = 1;
		return 1;
	}
	size_t i;
	for (i = 0; i < rp->out.n; i++) {
		size_t k = rp->next + i;
		if (k >= rp->stored.n || rp->stored.v[k].seq != a->seq) {
			snprintf(rp->err, rp->errlen, "seq %d: the replay announces %zu events, the record "
			         "holds %zu", a->seq, rp->out.n, i);
			rp->bad = 1;
			return 1;
		}
		char vs[32], vr[32];
		const char *field = event_diff(&rp->stored.v[k].e, &rp->out.v[i], vs, vr, sizeof vs);
		if (field != NULL) {
			snprintf(rp->err, rp->errlen, "seq %d: event %zu (%s) differs in %s (stored %s, "
			         "replay %s)", a->seq, i + 1, ev_name(rp->stored.v[k].e.type), field, vs, vr);
			rp->bad = 1;
			return 1;
		}
	}
	rp->next += i;
	if (rp->next < rp->stored.n && rp->stored.v[rp->next].seq == a->seq) {
		snprintf(rp->err, rp->errlen, "seq %d: the record holds more events than the replay's %zu",
		         a->seq, rp->out.n);
		rp->bad = 1;
		return 1;
	}

	struct recover_result *res = rp->res;
	res->acts = xgrow(res->acts, &rp->cap, res->nacts + 1, sizeof *res->acts, 64);
	res->heard = xgrow(res->heard, &rp->hcap, res->nacts + 1, sizeof *res->heard, 64);
	/* The start is both players' (games_start), whatever it announced. */
	unsigned heard = act.kind == ACTION_BEGIN ? AUD_PUBLIC : announce_heard(&act, &rp->out);
	res->heard[res->nacts] =
	    (unsigned char)(heard | ruleset_told_later(referee_ruleset(rp->ref), &rp->out));
	res->seq = xgrow(res->seq, &rp->scap, res->nacts + 1, sizeof *res->seq, 64);
	res->seq[res->nacts] = a->seq;
	res->acts[res->nacts++] = act;
	res->last_seq = a->seq;
	announce_heard_at(res->heard_seq, heard, a->seq);
	res->clock_ms[WHITE] = a->clock_white_ms;
	res->clock_ms[BLACK] = a->clock_black_ms;
	res->last_at_ms = a->at_ms;
	action_record_next(&res->rec, &act, plies, referee_plies(rp->ref));
	return 0;
}

/* An empty result: no clock readings, no offer, pause or adjournment. */
static void result_clear(struct recover_result *r)
{
	memset(r, 0, sizeof *r);
	r->clock_ms[0] = r->clock_ms[1] = -1;
	action_record_init(&r->rec);
}

void recover_result_free(struct recover_result *r)
{
	if (r == NULL)
		return;
	referee_free(r->ref);
	free(r->acts);
	free(r->heard);
	free(r->seq);
	result_clear(r);
}

int recover_verify(struct store *st, const struct store_game *g, struct recover_result *out,
                   char *err, size_t errlen)
{
	struct replay rp;
	char rerr[128];
	int rc;

	result_clear(out);
	memset(&rp, 0, sizeof rp);
	rp.res = out;
	rp.err = err;
	rp.errlen = errlen;
	err[0] = '\0';

	const struct ruleset *rs = ruleset_find(g->rules);
	if (rs == NULL) {
		snprintf(err, errlen, "unknown rule set \"%s\"", g->rules);
		return RECOVER_MISMATCH;
	}
	rp.ref = referee_new(rs, g->fen[0] ? g->fen : NULL, rerr, sizeof rerr);
	if (rp.ref == NULL) {
		snprintf(err, errlen, "bad start position: %s", rerr);
		return RECOVER_MISMATCH;
	}
	if (store_game_event_list(st, g->id, collect_ev, &rp.stored) != STORE_OK) {
		snprintf(err, errlen, "reading the announcements: %s", store_error(st));
		rc = RECOVER_STORE;
		goto fail;
	}
	evlist_init(&rp.out);
	int srs = store_game_actions(st, g->id, replay_action, &rp);
	evlist_free(&rp.out);
	if (srs != STORE_OK) {
		snprintf(err, errlen, "reading the actions: %s", store_error(st));
		rc = RECOVER_STORE;
		goto fail;
	}
	rc = RECOVER_MISMATCH;
	if (rp.bad)
		goto fail;
	if (out->nacts == 0) {
		snprintf(err, errlen, "the record holds no action");
		goto fail;
	}
	if (rp.next < rp.stored.n) {
		snprintf(err, errlen, "seq %d: stored announcements after the last action",
		         rp.stored.v[rp.next].seq);
		goto fail;
	}
	/* The game row must agree with where the record ends. */
	bool row_over = g->result != RESULT_NONE || g->reason != REASON_NONE;
	if (referee_over(rp.ref) != row_over ||
	    (row_over && ((int)referee_result(rp.ref) != g->result ||
	                  (int)referee_reason(rp.ref) != g->reason))) {
		snprintf(err, errlen, "the game row says %s/%s, the record ends %s/%s",
		         nz(game_result_name(g->result)), row_over ? nz(game_reason_name(g->reason)) : "live",
		         nz(game_result_name(referee_result(rp.ref))),
		         referee_over(rp.ref) ? nz(game_reason_name(referee_reason(rp.ref))) : "live");
		goto fail;
	}
	free(rp.stored.v);
	out->ref = rp.ref;
	return RECOVER_OK;
fail:
	free(rp.stored.v);
	referee_free(rp.ref);
	free(out->acts);
	free(out->heard);
	free(out->seq);
	result_clear(out);
	return rc;
}

int recover_game(struct store *st, const struct store_game *g, struct recover_result *out)
{
	char reason[RECOVER_REASON_MAX];

	result_clear(out);
	int f = store_game_flagged(st, g->id, reason, sizeof reason);
	if (f == STORE_OK) {
		log_warnx("game=%" PRId64 " flagged record (%s): not resumed", g->id, reason);
		return RECOVER_MISMATCH;
	}
	if (f != STORE_NOT_FOUND) {
		log_warnx("game=%" PRId64 " not resumed: %s", g->id, store_error(st));
		return RECOVER_STORE;
	}
	int rc = recover_verify(st, g, out, reason, sizeof reason);
	if (rc == RECOVER_STORE) {
		log_warnx("game=%" PRId64 " not resumed: %s", g->id, reason);
	} else if (rc == RECOVER_MISMATCH) {
		log_warnx("game=%" PRId64 " record check failed: %s; flagged, not resumed", g->id,
		          reason);
		if (store_game_flag(st, g->id, reason) != STORE_OK)
			log_warnx("game=%" PRId64 " could not be flagged: %s", g->id, store_error(st));
	}
	return rc;
}

/* ---- reading the actions alone ------------------------------------------- */

struct actions {
	struct action *v;
	size_t n, cap;
	int through;
	bool bad;
};

static int actions_cb(const struct store_action *sa, void *arg)
{
	struct actions *a = arg;
	if (sa->seq > a->through)
		return 1;
	if (!sa->ok)
		return 0;
	a->v = xgrow(a->v, &a->cap, a->n + 1, sizeof *a->v, 64);
	if (action_parse(&a->v[a->n], sa->kind, sa->color, sa->text) != REF_OK) {
		a->bad = true;
		return 1;
	}
	a->n++;
	return 0;
}

int recover_actions(struct store *st, int64_t game, struct action **v, size_t *n)
{
	return recover_actions_through(st, game, INT_MAX, v, n);
}

int recover_actions_through(struct store *st, int64_t game, int through, struct action **v,
                            size_t *n)
{
	struct actions a = { NULL, 0, 0, through, false };
	int rc = store_game_actions(st, game, actions_cb, &a) != STORE_OK ? RECOVER_STORE
	         : a.bad                                                  ? RECOVER_MISMATCH
	                                                                  : RECOVER_OK;
	if (rc != RECOVER_OK) {
		free(a.v);
		a.v = NULL;
		a.n = 0;
	}
	*v = a.v;
	*n = a.n;
	return rc;
}

/* ---- start-up -------------------------------------------------------------- */

int64_t recover_clock_ms(void)
{
	static bool anchored;
	static int64_t wall_less_mono;
	if (!anchored) {
		wall_less_mono = mstime_wall() - mstime_mono();
		anchored = true;
	}
	return mstime_mono() + wall_less_mono;
}

/* A restart's clock readings (RECOVER_RESUME_KIND after the record's last
 * action): where the next restart counts from. */
struct resume_point {
	int seq;
	int64_t ms[2];
	int64_t at_ms;
};

static int resume_point_cb(const struct store_umpire_action *u, void *arg)
{
	struct resume_point *rp = arg;
	long long w, b;
	if (u->umpire == 0 && u->seq == rp->seq && strcmp(u->kind, RECOVER_RESUME_KIND) == 0 &&
	    sscanf(u->text, "%lld %lld", &w, &b) == 2 && w >= 0 && b >= 0) {
		rp->ms[WHITE] = w;
		rp->ms[BLACK] = b;
		rp->at_ms = u->at_ms;
	}
	return 0;
}

/* Bring rr's clocks to where they stand at this restart (recover.h). */
static bool resume_clocks(struct store *st, const struct store_game *g, struct recover_result *rr,
                          int64_t alive_ms, int64_t now)
{
	struct clock clk;
	if (rr->clock_ms[WHITE] < 0)
		return false;
	clock_init(&clk, g->base_ms, g->inc_ms, g->days);
	/* A lease reaching past this start (a quick restart) ends here.  A
	 * start earlier than the lease was written (its end less its length)
	 * is no quick restart: the wall clock was stepped back while the
	 * daemon was down, by an unknown amount.  The lease then stands, as
	 * after any restart later than it: the mover pays its thinking up to
	 * the lease (alive_ms and rp.at_ms are of one run: recover_clock_ms),
	 * and the unmeasurable downtime is charged to nobody. */
	if (alive_ms > now && now >= alive_ms - recover_lease_ms(recover_lease_kind(g->days)))
		alive_ms = now;
	struct resume_point rp = { rr->last_seq, { rr->clock_ms[WHITE], rr->clock_ms[BLACK] },
	                           rr->last_at_ms };
	/* An earlier restart since the last action: its readings and time. */
	if (store_umpire_actions(st, g->id, resume_point_cb, &rp) != STORE_OK)
		log_warnx("game=%" PRId64 " earlier restarts unreadable: %s", g->id, store_error(st));
	int mover = referee_side_to_move(rr->ref);
	int64_t thought = alive_ms - rp.at_ms;
	if (clock_timed(&clk) && thought > 0 && !rr->rec.paused && !rr->rec.adjourned) {
		rp.ms[mover] = rp.ms[mover] > thought ? rp.ms[mover] - thought : 0;
		log_info("game=%" PRId64 " %s charged %" PRId64 " ms thought before the restart", g->id,
		         mover == WHITE ? "white" : "black", thought);
	}
	rr->clock_ms[WHITE] = rp.ms[WHITE];
	rr->clock_ms[BLACK] = rp.ms[BLACK];
	if (!clock_timed(&clk))
		return false;
	/* The clocks run again from now: a later restart (before the next
	 * action) charges from here, not again across this downtime.  A
	 * server umpire action, outside the players' record. */
	struct store_umpire_action u = { 0 };
	u.game = g->id;
	u.seq = rr->last_seq;
	snprintf(u.kind, sizeof u.kind, "%s", RECOVER_RESUME_KIND);
	snprintf(u.text, sizeof u.text, "%" PRId64 " %" PRId64, rp.ms[WHITE], rp.ms[BLACK]);
	u.at_ms = recover_clock_ms();
	if (store_umpire_action(st, &u) != STORE_OK)
		log_warnx("game=%" PRId64 " restart not recorded: %s", g->id, store_error(st));
	return true;
}

struct start {
	struct store *st;
	const struct recover_ops *ops;
	void *arg;
	int64_t alive_ms[RECOVER_LEASES];
	int64_t now;       /* this start, on recover_clock_ms() */
	bool timed[RECOVER_LEASES];   /* a timed game resumed: its clock runs from now on */
};

static int start_cb(const struct store_game *g, void *arg)
{
	struct start *sp = arg;
	struct recover_result rr;
	char reason[RECOVER_REASON_MAX];

	int rc = recover_game(sp->st, g, &rr);
	if (rc == RECOVER_MISMATCH) {
		if (store_game_flagged(sp->st, g->id, reason, sizeof reason) != STORE_OK)
			snprintf(reason, sizeof reason, "the record failed its check");
		sp->ops->flagged(sp->arg, g, reason);
	}
	if (rc != RECOVER_OK)
		return 0;
	int kind = recover_lease_kind(g->days);
	if (resume_clocks(sp->st, g, &rr, sp->alive_ms[kind], sp->now))
		sp->timed[kind] = true;
	sp->ops->resume(sp->arg, g, &rr);
	recover_result_free(&rr);
	return 0;
}

int recover_games(struct store *st, const struct recover_ops *ops, void *arg)
{
	struct start sp = { .st = st, .ops = ops, .arg = arg, .now = recover_clock_ms() };
	for (int k = 0; k < RECOVER_LEASES; k++)
		if (store_state_get(st, recover_lease_key(k), &sp.alive_ms[k]) == STORE_ERROR)
			return -1;
	/* A database from before the days' lease: its last lease is the one. */
	if (sp.alive_ms[RECOVER_LEASE_DAYS] == 0)
		sp.alive_ms[RECOVER_LEASE_DAYS] = sp.alive_ms[RECOVER_LEASE_CLOCK];
	if (store_games_unfinished(st, start_cb, &sp) != STORE_OK)
		return -1;
	/* The resumed clocks run from now, before the first heartbeat: the
	 * first lease covers the readings shown until it (recover.h). */
	for (int k = 0; k < RECOVER_LEASES; k++)
		if (sp.timed[k] &&
		    store_state_set(st, recover_lease_key(k), recover_clock_ms() + recover_lease_ms(k)) !=
		            STORE_OK)
			log_warnx("alive lease not recorded: %s", store_error(st));
	return 0;
}
