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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "referee.h"
#include "ruleset.h"

#define RECOVER_REASON_MAX 256

/* ---- applying one action ----------------------------------------------- */

int recover_apply(struct referee *r, const struct store_action *a, struct evlist *out)
{
	const char *k = a->kind;

	if (strcmp(k, "begin") == 0)
		return referee_begin(r, out);
	if (strcmp(k, "try") == 0)
		return referee_attempt(r, a->color, a->text, out);
	if (strcmp(k, "any") == 0)
		return referee_any(r, a->color, out);
	if (strcmp(k, "draw") == 0) {
		if (strcmp(a->text, "offer") != 0 && strcmp(a->text, "decline") != 0)
			return REF_E_BAD_ARGUMENT;
		return referee_over(r) ? REF_E_GAME_OVER : REF_OK;
	}
	if (strcmp(k, "end") == 0) {
		int reason = game_reason_parse(a->text);
		if (reason <= REASON_NONE)
			return REF_E_BAD_ARGUMENT;
		return referee_end(r, (enum game_reason)reason, a->color, out);
	}
	if (strcmp(k, "list") == 0 || strcmp(k, "quiet") == 0) {
		/* Items are single words joined by one space (game.c's list_text). */
		char buf[sizeof a->text];
		const char *items[REFEREE_LIST_MAX];
		size_t n = 0;
		char *save = NULL;

		snprintf(buf, sizeof buf, "%s", a->text);
		for (char *tok = strtok_r(buf, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save)) {
			if (n == REFEREE_LIST_MAX)
				return REF_E_TOO_MANY;
			items[n++] = tok;
		}
		return k[0] == 'l' ? referee_attempt_list(r, a->color, items, n, out)
		                   : referee_quiet(r, a->color, items, n, out);
	}
	return REF_E_BAD_ARGUMENT;
}

int recover_draw_offer(int offer, const struct store_action *a, int plies_before,
                       int plies_after)
{
	if (strcmp(a->kind, "draw") == 0)
		return strcmp(a->text, "offer") == 0 ? a->color : -1;
	if (plies_after > plies_before && offer >= 0 && a->color != offer)
		return -1;
	return offer;
}

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

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->v = realloc(s->v, s->cap * sizeof *s->v);
		if (s->v == NULL)
			abort();
	}
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
	size_t cap;
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
	int st = recover_apply(rp->ref, a, &rp->out);
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
	if (res->nacts == rp->cap) {
		rp->cap = rp->cap ? rp->cap * 2 : 64;
		res->acts = realloc(res->acts, rp->cap * sizeof *res->acts);
		if (res->acts == NULL)
			abort();
	}
	res->acts[res->nacts++] = *a;
	res->last_seq = a->seq;
	res->clock_ms[WHITE] = a->clock_white_ms;
	res->clock_ms[BLACK] = a->clock_black_ms;
	res->last_at_ms = a->at_ms;
	res->draw_offer = recover_draw_offer(res->draw_offer, a, plies, referee_plies(rp->ref));
	return 0;
}

void recover_result_free(struct recover_result *r)
{
	if (r == NULL)
		return;
	referee_free(r->ref);
	free(r->acts);
	memset(r, 0, sizeof *r);
	r->clock_ms[0] = r->clock_ms[1] = -1;
	r->draw_offer = -1;
}

int recover_verify(struct store *st, const struct store_game *g, struct recover_result *out,
                   char *err, size_t errlen)
{
	struct replay rp;
	char rerr[128];
	int rc;

	memset(out, 0, sizeof *out);
	out->clock_ms[0] = out->clock_ms[1] = -1;
	out->draw_offer = -1;
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
	memset(out, 0, sizeof *out);
	out->clock_ms[0] = out->clock_ms[1] = -1;
	out->draw_offer = -1;
	return rc;
}

int recover_game(struct store *st, const struct store_game *g, struct recover_result *out)
{
	char reason[RECOVER_REASON_MAX];

	memset(out, 0, sizeof *out);
	out->clock_ms[0] = out->clock_ms[1] = -1;
	out->draw_offer = -1;
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
