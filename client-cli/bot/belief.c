/*
 * belief.c — the set of positions consistent with what the bot was told
 * (belief.h).  Every filter here predicts, for one candidate position,
 * what the umpire would have said, and keeps the candidate only if that is
 * what was said.  The predictions follow common/referee.c's rules of
 * announcement; tests/unit/test_belief.c replays whole games through the
 * real referee and checks the true position is never dropped.
 */
#include "belief.h"

#include <stdlib.h>
#include <string.h>

#include "bitboard.h"
#include "movegen.h"
#include "referee.h"
#include "xmalloc.h"

uint64_t belief_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rand_unit(uint64_t *s)
{
	return (double)(belief_rand(s) >> 11) / 9007199254740992.0;
}

static const struct heard heard_none = { .sq = -1 };

void belief_set_deadline(struct belief *bel, belief_clock_fn clock, void *ctx, int64_t deadline)
{
	bel->clock = clock;
	bel->clock_ctx = ctx;
	bel->deadline = deadline;
}

/* Has the deadline passed?  Without a clock, never (and nothing is read). */
static bool past_deadline(const struct belief *bel)
{
	return bel->clock && bel->clock(bel->clock_ctx) >= bel->deadline;
}

/* h[0..n) in random order, where a deadline may cut their expansion short
 * (belief.h): the parents it reaches are then a fair draw of them all. */
static void shuffle_for_deadline(struct belief *bel, struct belief_hyp *h, size_t n)
{
	if (!bel->clock || n <= BELIEF_EXPAND_MIN)
		return;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(belief_rand(&bel->rng) % (uint64_t)i);
		struct belief_hyp t = h[i - 1];
		h[i - 1] = h[j];
		h[j] = t;
	}
}

struct belief *belief_new(const struct ruleset *rs, const struct board *start, int color,
                          const struct belief_limits *lim, uint64_t seed)
{
	struct belief *bel = xcalloc(1, sizeof *bel);
	bel->rs = rs;
	bel->color = color;
	bel->lim = lim ? *lim : (struct belief_limits){ BELIEF_EXACT_MAX, BELIEF_PARTICLES, BELIEF_REJUV_DIV };
	if (bel->lim.particles < 1)
		bel->lim.particles = 1;
	if (bel->lim.exact_max < bel->lim.particles)
		bel->lim.exact_max = bel->lim.particles;
	if (bel->lim.rejuv_div == 0)
		bel->lim.rejuv_div = BELIEF_REJUV_DIV;
	bel->cap = 64;
	bel->h = xcalloc(bel->cap, sizeof *bel->h);
	bel->h[0].b = *start;
	/* As referee_new: crazykrieg's board sends captured men to reserves. */
	if (rs->drops)
		bel->h[0].b.crazy = 1;
	bel->h[0].w = 1.0;
	bel->h[0].x = heard_none;
	bel->n = 1;
	bel->exact = true;
	/* crazykrieg: a man taken goes to a reserve and may come back, so a bare
	 * king is never known for good there: not counted (-1) */
	bel->opp_men = rs->drops ? -1 : bb_count(start->occ[!color]);
	view_init(&bel->mine, start, color);
	view_set_ruleset(&bel->mine, rs);
	bel->rng = seed ? seed : 0x6b72696567ULL;
	bel->heard = heard_none;
	return bel;
}

void belief_free(struct belief *bel)
{
	if (!bel)
		return;
	free(bel->h);
	free(bel->ckpt);
	free(bel->log);
	free(bel);
}

static void *dup_array(const void *p, size_t n, size_t size)
{
	if (!p || n == 0)
		return NULL;
	void *c = xreallocarray(NULL, n, size);
	memcpy(c, p, n * size);
	return c;
}

struct belief *belief_clone(const struct belief *bel)
{
	struct belief *c = xmalloc(sizeof *c);
	*c = *bel;
	c->cap = bel->n ? bel->n : 1;
	c->h = xreallocarray(NULL, c->cap, sizeof *c->h);
	memcpy(c->h, bel->h, bel->n * sizeof *bel->h);
	c->ckpt = dup_array(bel->ckpt, bel->nckpt, sizeof *bel->ckpt);
	c->log = dup_array(bel->log, bel->nlog, sizeof *bel->log);
	c->caplog = c->log ? bel->nlog : 0;
	return c;
}

/* ------------------------------------------------------------------ */
/* predicting the umpire                                               */

/*
 * Play legal move m on h->b and record what the umpire would tell us
 * (`me`) about it: the capture square as our audience hears it, the kind
 * where the rule set says it (crazykrieg: the exact man, a promoted one as
 * the pawn it was), the man a drop put down, and the check directions.
 */
static void play_predict(const struct ruleset *rs, int me, struct belief_hyp *h, move_t m)
{
	struct board *b = &h->b;
	int mover = b->side, to = move_to(m);
	int victim_sq = -1, victim_type = PIECE_NONE;
	/* A drop's bits say nothing of a kind (board.h): ask first. */
	bool drop = move_is_drop(m);
	bool ep = !drop && move_kind(m) == MOVE_EN_PASSANT;
	if (ep) {
		victim_sq = mover == WHITE ? to - 8 : to + 8;
		victim_type = PAWN;
	} else if (!drop && move_kind(m) != MOVE_CASTLING && b->mailbox[to] != MAILBOX_EMPTY) {
		victim_sq = to;
		victim_type = piece_code_type(b->mailbox[to]);
		if (b->crazy && (b->promoted >> to & 1))
			victim_type = PAWN;
	}
	h->x = heard_none;
	h->x.promo = rs->promotion_said && !drop && move_kind(m) == MOVE_PROMOTION;
	if (drop)
		h->x.drop = captured_exact(move_drop_piece(m));
	board_make(b, m);
	if (victim_sq >= 0) {
		if (ep && rs->ep == EP_SPLIT) {
			h->x.sq = (int8_t)(mover == me ? to : victim_sq);
		} else if (ep && rs->ep == EP_NAMED_LANDING) {
			h->x.sq = (int8_t)to;
			h->x.ep = true;
		} else {
			h->x.sq = (int8_t)victim_sq;
		}
		if (rs->capture_exact)
			h->x.what = captured_exact(victim_type);
		else if (rs->capture_kind && !(ep && rs->ep == EP_SPLIT))
			h->x.what = victim_type == PAWN ? CAPTURED_PAWN : CAPTURED_PIECE;
	}
	if (board_checkers(b))
		referee_check_dirs(rs, b, h->x.chk);
}

/* Does a candidate's prediction match what was heard? */
static bool heard_same(const struct heard *x, const struct heard *y)
{
	if (x->promo != y->promo || x->drop != y->drop || x->sq != y->sq || x->chk[0] != y->chk[0] ||
	    x->chk[1] != y->chk[1])
		return false;
	return x->sq < 0 || (x->what == y->what && x->ep == y->ep);
}

static bool is_pawn_capture(const struct board *b, move_t m)
{
	return piece_code_type(b->mailbox[move_from(m)]) == PAWN && (move_from(m) & 7) != (move_to(m) & 7);
}

/*
 * Distinct tries (origin, destination) the side to move could make that
 * the umpire would refuse.  A drop's try is its square, whatever the man
 * (RULESETS.md, crazykrieg), so the drops onto one square count once.
 */
static int refusable_tries(const struct board *b)
{
	struct movelist poss, legal;
	movegen_possible(b, b->side, &poss);
	movegen_legal(b, &legal);
	int n = 0;
	bb_t drop_seen = 0;
	for (int i = 0; i < poss.n; i++) {
		move_t m = poss.m[i];
		if (move_is_drop(m)) {
			bb_t sq = 1ULL << move_to(m);
			if (drop_seen & sq)
				continue;
			drop_seen |= sq;
		} else if (move_kind(m) == MOVE_PROMOTION && move_promo(m) != QUEEN) {
			/* a promotion counts once: a refused one closes every piece */
			continue;
		}
		bool ok = false;
		for (int j = 0; j < legal.n && !ok; j++)
			ok = move_from(legal.m[j]) == move_from(m) && move_to(legal.m[j]) == move_to(m);
		n += !ok;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* observations                                                        */

/*
 * Does `o` hold of candidate h?  A move (OBS_OWN) is played on it, with
 * its prediction compared to what was heard unless `pending` (the trailing
 * announcements are still coming).  OBS_OPP is a choice, not a test: the
 * callers make it.
 */
static bool obs_holds(const struct belief *bel, const struct belief_obs *o, struct belief_hyp *h, bool pending)
{
	const struct board *b = &h->b;
	switch (o->kind) {
	case OBS_OWN: {
		move_t l = b->side == bel->color ? movegen_find_legal(b, o->m) : MOVE_NONE;
		if (l == MOVE_NONE)
			return false;
		play_predict(bel->rs, bel->color, h, l);
		return pending || heard_same(&h->x, &o->h);
	}
	case OBS_ILLEGAL:
		return movegen_find_legal(b, o->m) == MOVE_NONE;
	case OBS_REFUSABLE:
		return refusable_tries(b) >= o->n;
	case OBS_SIDE:
		return b->side == o->n;
	case OBS_PAWN_COUNT:
		return movegen_pawn_captures(b) == o->n;
	case OBS_PAWN_YESNO:
		return (movegen_pawn_captures(b) > 0) == (o->n != 0);
	case OBS_PAWN_SQUARES:
		return movegen_pawn_capture_squares(b) == o->squares;
	default:
		return true;
	}
}

static struct belief_obs *log_push(struct belief *bel, enum obs_kind kind)
{
	if (bel->nlog == bel->caplog)
		bel->log = xgrow(bel->log, &bel->caplog, bel->nlog + 1, sizeof *bel->log, 64);
	struct belief_obs *o = &bel->log[bel->nlog++];
	memset(o, 0, sizeof *o);
	o->kind = (uint8_t)kind;
	o->h = heard_none;
	return o;
}

/* The log entry whose trailing announcements are being collected, if any. */
static struct belief_obs *log_pending(struct belief *bel)
{
	if (!bel->pending || bel->nlog == 0)
		return NULL;
	struct belief_obs *o = &bel->log[bel->nlog - 1];
	return o->kind == OBS_OWN || o->kind == OBS_OPP ? o : NULL;
}

/* ------------------------------------------------------------------ */
/* set maintenance                                                     */

static void normalize(struct belief *bel)
{
	double t = 0;
	for (size_t i = 0; i < bel->n; i++)
		t += bel->h[i].w;
	if (t <= 0) {
		for (size_t i = 0; i < bel->n; i++)
			bel->h[i].w = 1.0 / (double)bel->n;
		return;
	}
	for (size_t i = 0; i < bel->n; i++)
		bel->h[i].w /= t;
}

/* The key leaves out crazykrieg's promoted mask, which decides what a later capture is told. */
static bool same_pos(const struct board *a, const struct board *b)
{
	return a->key == b->key && a->promoted == b->promoted;
}

static int cmp_key(const void *a, const void *b)
{
	const struct board *p = &((const struct belief_hyp *)a)->b, *q = &((const struct belief_hyp *)b)->b;
	if (p->key != q->key)
		return p->key < q->key ? -1 : 1;
	return p->promoted < q->promoted ? -1 : p->promoted > q->promoted;
}

/* The set becomes h (n candidates in room for cap), the old one freed. */
static void set_take(struct belief *bel, struct belief_hyp *h, size_t n, size_t cap)
{
	free(bel->h);
	bel->h = h;
	bel->n = n;
	bel->cap = cap;
}

/* Sort h[0..n) by position and merge transpositions (same Zobrist key:
 * pieces, side, rights, en passant, reserves; and the same promoted men),
 * their weights summed; returns the number of distinct positions. */
static size_t merge_copies(struct belief_hyp *h, size_t n)
{
	if (n < 2)
		return n;
	qsort(h, n, sizeof *h, cmp_key);
	size_t k = 0;
	for (size_t i = 1; i < n; i++) {
		if (same_pos(&h[i].b, &h[k].b))
			h[k].w += h[i].w;
		else
			h[++k] = h[i];
	}
	return k + 1;
}

static void dedupe(struct belief *bel)
{
	bel->n = merge_copies(bel->h, bel->n);
}

/* Systematic resampling down to the particle count; duplicates merge back. */
static void resample(struct belief *bel)
{
	size_t n = bel->lim.particles;
	struct belief_hyp *out = xreallocarray(NULL, n, sizeof *out);
	normalize(bel);
	double step = 1.0 / (double)n, u = rand_unit(&bel->rng) * step, c = bel->h[0].w;
	size_t i = 0;
	for (size_t j = 0; j < n; j++) {
		while (u > c && i + 1 < bel->n)
			c += bel->h[++i].w;
		out[j] = bel->h[i];
		out[j].w = step;
		u += step;
	}
	set_take(bel, out, n, n);
	dedupe(bel);
}

static void set_reserve(struct belief *bel, size_t n)
{
	if (bel->cap >= n)
		return;
	bel->cap = n;
	bel->h = xreallocarray(bel->h, bel->cap, sizeof *bel->h);
}

/*
 * One opponent history replayed from a checkpoint position (belief.h):
 * at each OBS_OPP, the children consistent with everything logged up to
 * the next OBS_OPP, one taken uniformly, the weight multiplied by their
 * share of the legal moves.  False if some step has no consistent child.
 */
static bool replay(struct belief *bel, struct belief_hyp *h, bool last_pending)
{
	struct movelist ml;
	/* The children that fit, as many as the position has legal moves: a
	 * MOVES_MAX array (150 KiB) was a fresh mapping for every replay under
	 * ASan, whose allocator maps blocks that large, made and unmapped
	 * thousands of times a move (most of krieg-bot's time in the tests). */
	struct belief_hyp *ok = NULL;
	size_t okcap = 0;
	size_t i = 0;
	bool good = true;
	while (good && i < bel->nlog) {
		const struct belief_obs *o = &bel->log[i];
		if (o->kind != OBS_OPP) {
			good = obs_holds(bel, o, h, last_pending && i + 1 == bel->nlog);
			i++;
			continue;
		}
		size_t end = i + 1;
		while (end < bel->nlog && bel->log[end].kind != OBS_OPP)
			end++;
		if (h->b.side == bel->color) {
			good = false;
			break;
		}
		movegen_legal(&h->b, &ml);
		if ((size_t)ml.n > okcap) {
			okcap = (size_t)ml.n;
			ok = xreallocarray(ok, okcap, sizeof *ok);
		}
		int legal = 0, nok = 0;
		for (int j = 0; j < ml.n; j++) {
			if (o->obliged && !is_pawn_capture(&h->b, ml.m[j]))
				continue;
			legal++;
			struct belief_hyp c = *h;
			play_predict(bel->rs, bel->color, &c, ml.m[j]);
			bool pend = last_pending && i + 1 == bel->nlog;
			if (!pend && !heard_same(&c.x, &o->h))
				continue;
			/* The opponent's refused tries (OBS_REFUSABLE, n = 1, 2, ...) all
			 * ask the count of the same position, until our move changes
			 * it: counted once (the replay's largest cost otherwise). */
			bool fits = true;
			int refusable = -1;
			for (size_t k = i + 1; k < end && fits; k++) {
				const struct belief_obs *ob = &bel->log[k];
				if (ob->kind == OBS_REFUSABLE) {
					if (refusable < 0)
						refusable = refusable_tries(&c.b);
					fits = refusable >= ob->n;
					continue;
				}
				fits = obs_holds(bel, ob, &c, last_pending && k + 1 == bel->nlog);
				refusable = -1;
			}
			if (fits)
				ok[nok++] = c;
		}
		if (nok == 0) {
			good = false;
			break;
		}
		double w = h->w * (double)nok / (double)legal;
		*h = ok[belief_rand(&bel->rng) % (uint64_t)nok];
		h->w = w;
		i = end;
	}
	free(ok);
	return good;
}

/*
 * Draw fresh particles from the checkpoint (belief.h), up to `want` new
 * ones in at most want * BELIEF_REJUV_TRIES replays.  With `replace` the
 * set becomes the new particles alone (the old ones fit nothing); else the
 * new ones join the survivors, each group holding weight by its size.
 * False if no replay succeeded (the set is left as it was).
 */
static bool rejuvenate(struct belief *bel, size_t want, bool replace, bool last_pending)
{
	if (!bel->ckpt || bel->nckpt == 0 || want == 0)
		return false;
	bel->rejuvenations++;
	struct belief_hyp *fresh = xreallocarray(NULL, want, sizeof *fresh);
	size_t got = 0;
	/* Past the deadline the particles drawn so far are kept; a set that is
	 * to be replaced (nothing in it fits) gets a few replays even so. */
	size_t tries_min = replace ? BELIEF_REJUV_MIN_TRIES : 0;
	for (size_t t = 0; t < want * BELIEF_REJUV_TRIES && got < want; t++) {
		if (t >= tries_min && past_deadline(bel)) {
			bel->cut++;
			break;
		}
		/* a checkpoint position by weight (the checkpoint sums to 1) */
		double u = rand_unit(&bel->rng), c = 0;
		size_t k = 0;
		for (; k + 1 < bel->nckpt; k++) {
			c += bel->ckpt[k].w;
			if (u < c)
				break;
		}
		struct belief_hyp h = bel->ckpt[k];
		h.w = 1.0;
		bel->replays++;
		if (replay(bel, &h, last_pending))
			fresh[got++] = h;
	}
	if (got == 0) {
		bel->rejuv_failed++;
		free(fresh);
		return false;
	}
	double tf = 0;
	for (size_t i = 0; i < got; i++)
		tf += fresh[i].w;
	size_t old = replace ? 0 : bel->n;
	normalize(bel);
	double share_new = (double)got / (double)(got + old);
	for (size_t i = 0; i < old; i++)
		bel->h[i].w *= 1 - share_new;
	set_reserve(bel, old + got);
	for (size_t i = 0; i < got; i++) {
		bel->h[old + i] = fresh[i];
		bel->h[old + i].w = tf > 0 ? fresh[i].w / tf * share_new : share_new / (double)got;
	}
	bel->n = old + got;
	free(fresh);
	dedupe(bel);
	normalize(bel);
	return true;
}

/* A sample thinned below particles/rejuv_div distinct positions is topped up. */
static void maybe_rejuvenate(struct belief *bel)
{
	if (bel->exact || bel->lim.rejuv_div == SIZE_MAX)
		return;
	size_t floor = bel->lim.particles / bel->lim.rejuv_div;
	if (bel->n < floor)
		rejuvenate(bel, bel->lim.particles - bel->n, false, false);
}

/* The opponent has its king alone: counted from the announcements (every
 * capture is announced), never from a candidate, which a lost sample may
 * have given a capture that did not happen. */
static bool opp_bare(const struct belief *bel)
{
	return bel->opp_men == 1 && bel->n > 0;
}

/* Nothing could be made to fit what was heard: the announcement is skipped
 * and counted.  A bare king's set (belief.h) is enumerated again at the
 * opponent's next move, and is not called exact until then. */
static void set_lost(struct belief *bel)
{
	bel->lost++;
	if (opp_bare(bel))
		bel->exact = false;
}

/*
 * Keep the hypotheses the logged observation `o` holds of (it is the last
 * log entry).  If none fits, the truth was lost earlier (possible only in a
 * sample, or a bug): the set is regenerated from the checkpoint; failing
 * that the observation is skipped, and counted.
 */
static void filter_obs(struct belief *bel, const struct belief_obs *o)
{
	size_t k = 0;
	for (size_t i = 0; i < bel->n; i++) {
		struct belief_hyp h = bel->h[i];
		if (obs_holds(bel, o, &h, false))
			bel->h[k++] = h;
	}
	if (k == 0) {
		if (bel->exact || !rejuvenate(bel, bel->lim.particles, true, false))
			set_lost(bel);
		return;
	}
	bel->n = k;
	normalize(bel);
	maybe_rejuvenate(bel);
}

static void filter_log(struct belief *bel, enum obs_kind kind, int n, move_t m, uint64_t squares)
{
	struct belief_obs *o = log_push(bel, kind);
	o->n = n;
	o->m = m;
	o->squares = squares;
	filter_obs(bel, o);
}

/*
 * Every child of the positions h[0..n) with the opponent to move: one per
 * legal move (pawn captures only when `obliged`), each with an equal share
 * of its parent's weight (the opponent modelled as choosing uniformly),
 * and what it would make the umpire say; with `keep`, only the children
 * whose announcements are those.  A new array (NULL if none) of *n, room
 * for *cap.  Past the deadline (read once per BELIEF_EXPAND_MIN parents,
 * from the BELIEF_EXPAND_MIN-th on) it stops and sets *cut: the children
 * are those of the parents before (shuffle_for_deadline has put them in
 * random order).
 */
static struct belief_hyp *expand(const struct belief *bel, const struct belief_hyp *h, size_t nh, bool obliged,
                                 const struct heard *keep, size_t *n, size_t *cap, bool *cut)
{
	struct belief_hyp *out = NULL;
	struct movelist ml;
	*n = *cap = 0;
	*cut = false;
	for (size_t i = 0; i < nh; i++) {
		if (i > 0 && i % BELIEF_EXPAND_MIN == 0 && past_deadline(bel)) {
			*cut = true;
			break;
		}
		const struct belief_hyp *p = &h[i];
		if (p->b.side == bel->color)
			continue;
		movegen_legal(&p->b, &ml);
		int legal = 0;
		for (int j = 0; j < ml.n; j++)
			if (!obliged || is_pawn_capture(&p->b, ml.m[j]))
				ml.m[legal++] = ml.m[j];
		for (int j = 0; j < legal; j++) {
			struct belief_hyp c = *p;
			c.w = p->w / legal;
			play_predict(bel->rs, bel->color, &c, ml.m[j]);
			if (keep != NULL && !heard_same(&c.x, keep))
				continue;
			if (*n == *cap)
				out = xgrow(out, cap, *n + 1, sizeof *out, 256);
			out[(*n)++] = c;
		}
	}
	return out;
}

/*
 * The exact set again from the checkpoint (the exact set before the last
 * opponent move: opp_move) by every logged observation, the move whose
 * announcements came late included.  False without a checkpoint, or when
 * the log does not start at it (the belief was sampled meanwhile).  Cut
 * short by the deadline (expand), the set is a sample of what it reached
 * (false, and no longer exact, if that is nothing).
 */
static bool rebuild_exact(struct belief *bel)
{
	if (!bel->exact || !bel->ckpt || bel->nckpt == 0 || bel->nlog == 0 || bel->log[0].kind != OBS_OPP)
		return false;
	size_t n = bel->nckpt, cap = bel->nckpt;
	struct belief_hyp *cur = dup_array(bel->ckpt, n, sizeof *cur);
	bool cut = false;
	for (size_t i = 0; i < bel->nlog; i++) {
		const struct belief_obs *o = &bel->log[i];
		size_t k = 0;
		if (o->kind != OBS_OPP) {
			for (size_t j = 0; j < n; j++) {
				struct belief_hyp h = cur[j];
				if (obs_holds(bel, o, &h, false))
					cur[k++] = h;
			}
			n = k;
			continue;
		}
		size_t nout, capout;
		bool cut_here;
		shuffle_for_deadline(bel, cur, n);
		struct belief_hyp *out = expand(bel, cur, n, o->obliged, &o->h, &nout, &capout, &cut_here);
		free(cur);
		cur = out;
		n = nout;
		cap = capout;
		cut |= cut_here;
	}
	if (cut) {
		bel->cut++;
		bel->exact = false;
	}
	if (n == 0) {
		free(cur);
		return false;
	}
	set_take(bel, cur, n, cap);
	return true;
}

/*
 * Bring an oversized set back to its limit: past exact_max an exact set
 * becomes a sample, and a sample is resampled to `particles`.  Not done
 * as each announcement arrives but only when the set is used (the public
 * belief_settle) or is about to grow (the opponent's next move), so that
 * everything heard in between (the move's announcements, pawn tries, our
 * refused tries) filters the whole set first: the resampling then draws
 * among candidates that fit all of it, instead of a sample most of which
 * the next announcement throws away (and the truth with it).
 */
static void shrink(struct belief *bel)
{
	size_t limit = bel->exact ? bel->lim.exact_max : bel->lim.particles;
	if (bel->n <= limit)
		return;
	bel->exact = false;
	resample(bel);
	normalize(bel);
	maybe_rejuvenate(bel);
}

/* Filter by the last move's announcements, without shrinking (belief_apply). */
static void settle_heard(struct belief *bel)
{
	if (!bel->pending)
		return;
	struct belief_obs *o = log_pending(bel);
	if (o)
		o->h = bel->heard;
	bel->pending = false;
	bel->reopen = o != NULL;
	if (bel->reopened) {
		/* The set was filtered by part of what was heard (belief.h): rebuild it. */
		bel->reopened = false;
		bel->heard = heard_none;
		if (!rebuild_exact(bel) && (bel->exact || !rejuvenate(bel, bel->lim.particles, true, false)))
			set_lost(bel);
		dedupe(bel);
		normalize(bel);
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < bel->n; i++)
		if (heard_same(&bel->h[i].x, &bel->heard))
			bel->h[k++] = bel->h[i];
	bel->heard = heard_none;
	if (k == 0) {
		if (bel->exact || !rejuvenate(bel, bel->lim.particles, true, false))
			set_lost(bel);
		return;
	}
	bel->n = k;
	dedupe(bel);
	normalize(bel);
	maybe_rejuvenate(bel);
}

/* Does candidate b agree with what we know for certain: whose turn it
 * is, our men as we were told, and an opponent's king somewhere (belief.h,
 * "a lost sample")? */
static bool anchored(const struct belief *bel, const struct board *b)
{
	int me = bel->color;
	if (b->side != bel->mine.to_move || board_king(b, !me) == SQ_NONE)
		return false;
	for (int t = PAWN; t <= KING; t++)
		if (b->pieces[me][t] != bel->mine.own.pieces[me][t])
			return false;
	return memcmp(b->hand[me], bel->mine.own.hand[me], sizeof b->hand[me]) == 0;
}

/* A placed candidate can have come about: the side not to move is not in check. */
static bool placed_legal(const struct board *b)
{
	int waiting = !b->side, k = board_king(b, waiting);
	return k != SQ_NONE && !board_attacked(b, k, b->side, b->occ[WHITE] | b->occ[BLACK]);
}

/* Candidate c re-placed as b, with the opponent's (opp) king on each of
 * `squares` where it can stand, appended to *out (*n of *cap), sharing c's
 * weight: how many were. */
static size_t place_king(const struct belief_hyp *c, const struct board *b, int opp, bb_t squares,
                         struct belief_hyp **out, size_t *n, size_t *cap)
{
	size_t first = *n;
	for (bb_t m = squares; m;) {
		struct board p = *b;
		board_put(&p, opp, KING, bb_pop(&m));
		if (!placed_legal(&p))
			continue;
		p.castling |= (uint8_t)board_castling_in_place(&p, c->b.castling & castle_rights_of(opp));
		p.key = board_compute_key(&p);
		*out = xgrow(*out, cap, *n + 1, sizeof **out, 64);
		(*out)[*n] = *c;
		(*out)[*n].b = p;
		(*out)[(*n)++].x = heard_none;
	}
	for (size_t j = first; j < *n; j++)
		(*out)[j].w = c->w / (double)(*n - first);
	return *n - first;
}

/*
 * A lost sample's candidates put back on what we know (belief.h): our men
 * as told, the side to move as it is, the opponent's men where the
 * candidate has them (one on a square of ours is gone: we took it), and
 * where a candidate has lost the opponent's king, or has it where it
 * cannot stand, that king on every square it may stand on, sharing the
 * candidate's weight.  A candidate that cannot have come about is
 * dropped; if every one would be, the set is left as it was.
 */
static void reanchor(struct belief *bel)
{
	int me = bel->color, opp = !me;
	size_t n = 0, cap = 0;
	struct belief_hyp *out = NULL;
	for (size_t i = 0; i < bel->n; i++) {
		const struct board *c = &bel->h[i].b;
		struct board b = bel->mine.own;
		b.side = (uint8_t)bel->mine.to_move;
		b.ep = SQ_NONE;
		b.halfmove = c->halfmove;
		b.fullmove = c->fullmove;
		b.castling &= (uint8_t)castle_rights_of(me);
		memcpy(b.hand[opp], c->hand[opp], sizeof b.hand[opp]);
		b.promoted &= b.occ[me];
		for (int t = PAWN; t < KING; t++)
			for (bb_t m = c->pieces[opp][t] & ~b.occ[me]; m;) {
				int sq = bb_pop(&m);
				board_put(&b, opp, t, sq);
				b.promoted |= c->promoted & bb_sq(sq);
			}
		int king = board_king(c, opp);
		bb_t empty = ~(b.occ[WHITE] | b.occ[BLACK]);
		if (king == SQ_NONE || place_king(&bel->h[i], &b, opp, bb_sq(king) & empty, &out, &n, &cap) == 0)
			place_king(&bel->h[i], &b, opp, empty, &out, &n, &cap);
	}
	if (n == 0) {
		free(out);
		return;
	}
	set_take(bel, out, n, cap);
	bel->reanchored++;
	dedupe(bel);
	normalize(bel);
}

void belief_settle(struct belief *bel)
{
	settle_heard(bel);
	/* A lost set: fresh particles from the checkpoint if any replay fits
	 * everything heard since; failing that, the set put back on what we know. */
	for (size_t i = 0; i < bel->n; i++)
		if (!anchored(bel, &bel->h[i].b)) {
			if (bel->exact || !rejuvenate(bel, bel->lim.particles, true, false))
				reanchor(bel);
			break;
		}
	shrink(bel);
}

static void own_move(struct belief *bel, move_t m)
{
	struct belief_obs *o = log_push(bel, OBS_OWN);
	o->m = m;
	size_t k = 0;
	for (size_t i = 0; i < bel->n; i++) {
		struct belief_hyp h = bel->h[i];
		if (obs_holds(bel, o, &h, true))
			bel->h[k++] = h;
	}
	bel->own_unheard = false;
	if (k > 0) {
		bel->n = k;
		bel->pending = true;
		return;
	}
	if (!bel->exact && rejuvenate(bel, bel->lim.particles, true, true)) {
		bel->pending = true;
		return;
	}
	/* Nothing fitted (a lost sample): keep the positions, with our move
	 * played on our pieces, and what the umpire says of it unheard. */
	set_lost(bel);
	bel->own_unheard = true;
	for (size_t i = 0; i < bel->n; i++) {
		struct belief_hyp *h = &bel->h[i];
		if (h->b.mailbox[move_to(m)] != MAILBOX_EMPTY) {
			if (h->b.crazy)
				board_hand_add(&h->b, bel->color,
				               h->b.promoted >> move_to(m) & 1 ? PAWN
				                                               : piece_code_type(h->b.mailbox[move_to(m)]));
			h->b.promoted &= ~(1ULL << move_to(m));
			board_remove(&h->b, move_to(m));
		}
		int code = h->b.mailbox[move_from(m)];
		if (move_is_drop(m)) {
			board_hand_take(&h->b, bel->color, move_drop_piece(m));
			board_put(&h->b, bel->color, move_drop_piece(m), move_to(m));
		} else if (code != MAILBOX_EMPTY) {
			board_remove(&h->b, move_from(m));
			board_put(&h->b, bel->color,
			          move_kind(m) == MOVE_PROMOTION ? move_promo(m) : piece_code_type((uint8_t)code),
			          move_to(m));
		}
		h->b.side = (uint8_t)!bel->color;
		h->b.ep = SQ_NONE;
		h->b.key = board_compute_key(&h->b);
		h->x = heard_none;
	}
	bel->pending = false;
	bel->log[bel->nlog - 1].h = heard_none;
}

static size_t log_opp_moves(const struct belief *bel)
{
	size_t n = 0;
	for (size_t i = 0; i < bel->nlog; i++)
		n += bel->log[i].kind == OBS_OPP;
	return n;
}

/* The opponent has few men (counted as opp_bare counts): its king is spread again (belief.h). */
static bool opp_few(const struct belief *bel)
{
	return bel->opp_men >= 1 && bel->opp_men <= BELIEF_FEW_MEN && bel->n > 0;
}

/*
 * A candidate's men other than its king, and what the spread keeps of them
 * (belief.h, "few men"): its pieces on their squares and its pawns by file
 * only.  A sample that lost a pawn has it on the right file more often than
 * at the right rank (only a capture, which is announced, changes a pawn's
 * file), and a blocked pawn left out of the sample is what its king was
 * stalemated beside.
 */
struct men_of {
	bb_t key[KING];           /* pieces by type; key[PAWN]: pawns per file, 4 bits a file */
	bb_t pawns;               /* the candidate's pawns (none for a bare king) */
	size_t hyp;               /* the candidate */
};

/* By the key, then by the candidate (each group in the sample's order). */
static int cmp_men_of(const void *a, const void *b)
{
	const struct men_of *x = a, *y = b;
	int c = memcmp(x->key, y->key, sizeof x->key);
	return c ? c : (x->hyp > y->hyp) - (x->hyp < y->hyp);
}

/* One arrangement: the candidates k[first..end) sharing a key, and their weight. */
struct arrangement {
	size_t first, end;
	double w;
};

/* Heaviest first; equal weights by their first candidate, so that the
 * order is the sample's, not the sort's. */
static int cmp_arrangement(const void *a, const void *b)
{
	const struct arrangement *x = a, *y = b;
	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

/* The sample's arrangements, heaviest first (*n of them, over *keys, sorted;
 * the caller frees both).  A bare king has one, whatever men a lost
 * candidate may still give it; otherwise a candidate whose count of men is
 * not the one the captures announced (a lost one's) is left out. */
static struct arrangement *arrangements(const struct belief *bel, bool bare, struct men_of **keys, size_t *n)
{
	int opp = !bel->color;
	struct men_of *k = xreallocarray(NULL, bel->n ? bel->n : 1, sizeof *k);
	size_t nk = 0;
	for (size_t i = 0; i < bel->n; i++) {
		const struct board *b = &bel->h[i].b;
		memset(&k[nk], 0, sizeof k[nk]);
		if (!bare) {
			if (bb_count(b->occ[opp] & ~b->pieces[opp][KING]) != bel->opp_men - 1)
				continue;
			memcpy(k[nk].key, b->pieces[opp], sizeof k[nk].key);
			k[nk].pawns = b->pieces[opp][PAWN];
			k[nk].key[PAWN] = 0;
			for (bb_t p = k[nk].pawns; p;)
				k[nk].key[PAWN] += (bb_t)1 << 4 * (bb_pop(&p) & 7);
		}
		k[nk++].hyp = i;
	}
	qsort(k, nk, sizeof *k, cmp_men_of);
	struct arrangement *a = NULL;
	size_t na = 0, cap = 0;
	for (size_t i = 0; i < nk; i++) {
		if (i == 0 || memcmp(k[i].key, k[i - 1].key, sizeof k[i].key) != 0) {
			a = xgrow(a, &cap, na + 1, sizeof *a, 16);
			a[na++] = (struct arrangement){ .first = i, .end = i };
		}
		a[na - 1].end = i + 1;
		a[na - 1].w += bel->h[k[i].hyp].w;
	}
	if (na > 1) /* a is NULL when there is none */
		qsort(a, na, sizeof *a, cmp_arrangement);
	*keys = k;
	*n = na;
	return a;
}

/* What the spread must agree with: what the umpire said of check after our
 * last move (NULL: nothing logged) and the observations from `since` on. */
struct spread_fit {
	const struct heard *said;
	size_t since;
};

/*
 * One position of the spread into *h: our men as we know them, the
 * opponent's pieces and pawns as given, its king on `king`, the rest
 * (side, clocks, en passant) as `base` has them; castling rights only
 * where `base`'s king has not moved and its rooks still stand.  False if
 * a square is taken twice, our king would stand in check (we moved last),
 * or it does not fit what was heard.
 */
static bool spread_place(const struct belief *bel, const struct belief_hyp *base, const bb_t pieces[KING], bb_t pawns,
                         int king, const struct spread_fit *fit, struct belief_hyp *h)
{
	int opp = !bel->color, ours = board_king(&bel->mine.own, bel->color);
	*h = *base;
	h->b = bel->mine.own;
	h->b.side = (uint8_t)opp;
	h->b.ep = base->b.ep;
	h->b.halfmove = base->b.halfmove;
	h->b.fullmove = base->b.fullmove;
	if (king == SQ_NONE || h->b.mailbox[king] != MAILBOX_EMPTY || (ours != SQ_NONE && (bb_king(ours) >> king & 1)))
		return false;
	board_put(&h->b, opp, KING, king);
	for (int t = PAWN; t < KING; t++)
		for (bb_t m = t == PAWN ? pawns : pieces[t]; m;) {
			int sq = bb_pop(&m);
			if (h->b.mailbox[sq] != MAILBOX_EMPTY)
				return false;
			board_put(&h->b, opp, t, sq);
		}
	if (king == board_king(&base->b, opp))
		h->b.castling |= (uint8_t)board_castling_in_place(&h->b, base->b.castling & castle_rights_of(opp));
	if (ours != SQ_NONE && board_attacked(&h->b, ours, opp, h->b.occ[WHITE] | h->b.occ[BLACK]))
		return false;
	h->b.key = board_compute_key(&h->b);
	uint8_t chk[2] = { CHECK_NONE, CHECK_NONE };
	if (board_checkers(&h->b))
		referee_check_dirs(bel->rs, &h->b, chk);
	if (fit->said && (chk[0] != fit->said->chk[0] || chk[1] != fit->said->chk[1]))
		return false;
	for (size_t i = fit->since; i < bel->nlog; i++)
		if (!obs_holds(bel, &bel->log[i], h, false))
			return false;
	return true;
}

#define SPREAD_RANKS 6            /* a pawn stands on one of the six middle ranks */

/*
 * The opponent's king, and its pawns along their files, spread again
 * (belief.h, "few men"), before the opponent's move: for each arrangement
 * the sample holds (heaviest first, whole arrangements, at most exact_max
 * positions), every rank for each pawn on its file and every square for
 * the king, given our men (all known), what the umpire said of check after
 * our last move (as logged, not as a candidate predicted it: in a lost
 * sample they differ), and what was heard of the opponent's turn since
 * (its refused tries).  The pieces stay where the sample has them.  For a
 * bare king that is a superset of the consistent positions (our refused
 * tries of the turn before are not replayed on it), so it holds the truth
 * even when the sample had lost it, and the set stays exact from there (at
 * most 64 positions).  With other men it is still a sample, but no longer
 * one that has lost the king or a pawn's rank: the men a stalemate depends
 * on.  Each position gets BELIEF_SPREAD_KEEP of the weight the sample had on
 * it (its candidates placed again, our men as we know them) and its share
 * of the rest of its arrangement's weight, spread evenly.
 */
static bool spread_few(struct belief *bel)
{
	int opp = !bel->color;
	bool bare = opp_bare(bel);
	if (bel->exact || !opp_few(bel) || bel->h[0].b.side != opp)
		return false;
	struct men_of *k;
	size_t na;
	struct arrangement *a = arrangements(bel, bare, &k, &na);
	/* Our last move, as logged: what the umpire said of it (a candidate's
	 * prediction may differ, if nothing fitted it), and what was heard of
	 * this position after it (none of it if no move of ours is logged) */
	size_t own = bel->nlog;
	while (own > 0 && bel->log[own - 1].kind != OBS_OWN)
		own--;
	struct spread_fit fit = { .said = own > 0 && !bel->own_unheard ? &bel->log[own - 1].h : NULL,
		                  .since = own > 0 ? own : bel->nlog };
	size_t cap = bel->lim.exact_max > 64 ? bel->lim.exact_max : 64, n = 0;
	struct belief_hyp *out = xreallocarray(NULL, cap + bel->n, sizeof *out);
	for (size_t g = 0; g < na; g++) {
		/* past the deadline: the arrangements placed so far (the heaviest) */
		if (g > 0 && past_deadline(bel)) {
			bel->cut++;
			break;
		}
		const struct men_of *key = &k[a[g].first];
		const struct belief_hyp *base = &bel->h[key->hyp];
		int files[BELIEF_FEW_MEN], np = 0;
		for (int f = 0; f < 8; f++)
			for (unsigned c = (unsigned)(key->key[PAWN] >> 4 * f & 15); c > 0 && np < BELIEF_FEW_MEN; c--)
				files[np++] = f;
		size_t combos = 1;
		for (int i = 0; i < np; i++)
			combos *= SPREAD_RANKS;
		if (n + combos * 64 > cap)
			break;
		/* the even half: every rank for each pawn (on one file, in rising
		 * order: the same position once), every square for the king */
		size_t first = n;
		for (size_t c = 0; c < combos; c++) {
			bb_t pawns = 0;
			size_t rest = c;
			int i = 0, prev = 0;
			for (; i < np; i++, rest /= SPREAD_RANKS) {
				int rank = 1 + (int)(rest % SPREAD_RANKS);
				if (i > 0 && files[i] == files[i - 1] && rank <= prev)
					break;
				prev = rank;
				pawns |= bb_sq(rank * 8 + files[i]);
			}
			if (i < np)
				continue;
			for (int sq = 0; sq < 64; sq++)
				if (spread_place(bel, base, key->key, pawns, sq, &fit, &out[n]))
					n++;
		}
		for (size_t i = first; i < n; i++)
			out[i].w = (1 - BELIEF_SPREAD_KEEP) * a[g].w / (double)(n - first);
		/* the sample's half: its candidates placed again */
		for (size_t j = a[g].first; j < a[g].end; j++) {
			const struct belief_hyp *c = &bel->h[k[j].hyp];
			if (spread_place(bel, c, key->key, k[j].pawns, board_king(&c->b, opp), &fit, &out[n]))
				out[n++].w = BELIEF_SPREAD_KEEP * c->w;
		}
	}
	free(a);
	free(k);
	if (n == 0) {
		free(out);
		return false;
	}
	set_take(bel, out, n, cap + bel->n);
	bel->exact = bare;
	if (bare)
		bel->reexact++;
	else
		bel->respread++;
	dedupe(bel);
	normalize(bel);
	return true;
}

static void opp_move(struct belief *bel)
{
	shrink(bel);
	spread_few(bel);
	/* While exact, every opponent move starts a new checkpoint: the set
	 * before it is exact, and the log only needs what came after.  Once
	 * sampled, the checkpoint trails by BELIEF_CKPT_LAG opponent moves: a
	 * longer replay would be rejected nearly always. */
	if (bel->exact || log_opp_moves(bel) >= BELIEF_CKPT_LAG) {
		free(bel->ckpt);
		bel->ckpt = dup_array(bel->h, bel->n, sizeof *bel->h);
		bel->nckpt = bel->n;
		bel->nlog = 0;
	}
	struct belief_obs *o = log_push(bel, OBS_OPP);
	o->obliged = bel->opp_obliged;
	size_t n, cap;
	bool cut;
	shuffle_for_deadline(bel, bel->h, bel->n);
	struct belief_hyp *out = expand(bel, bel->h, bel->n, bel->opp_obliged, NULL, &n, &cap, &cut);
	if (cut) {
		/* a sample of the children (belief.h); the checkpoint holds the set before the move */
		bel->cut++;
		bel->exact = false;
	}
	if (n == 0) {
		free(out);
		if (!bel->exact && rejuvenate(bel, bel->lim.particles, true, true)) {
			bel->pending = true;
			return;
		}
		set_lost(bel);
		return;
	}
	set_take(bel, out, n, cap);
	bel->pending = true;
}

static void new_turn(struct belief *bel)
{
	bel->opp_illegal = 0;
	bel->opp_obliged = false;
}

void belief_apply(struct belief *bel, const struct event *e)
{
	int me = bel->color, opp = !me;
	if (!(e->audience & aud_of(me)) || bel->over)
		return;
	view_apply(&bel->mine, e);
	if (e->type == EV_CAPTURE && e->by == me && bel->opp_men > 0)
		bel->opp_men--;
	bool trailing = e->type == EV_CAPTURE || e->type == EV_PROMOTION || e->type == EV_DROP || e->type == EV_CHECK;
	if (trailing && !bel->pending && bel->reopen) {
		/* settled too early (belief.h): what was heard so far, and this */
		bel->heard = bel->log[bel->nlog - 1].h;
		bel->pending = true;
		bel->reopened = true;
	}
	if (e->type == EV_CAPTURE && bel->pending) {
		bel->heard.sq = e->square;
		bel->heard.what = e->what;
		bel->heard.ep = e->en_passant;
		return;
	}
	if (e->type == EV_PROMOTION && bel->pending) {
		bel->heard.promo = true;
		return;
	}
	/* crazykrieg: the man, never the square; it follows the move's EV_MOVE/EV_MOVED. */
	if (e->type == EV_DROP && bel->pending) {
		bel->heard.drop = e->what;
		return;
	}
	if (e->type == EV_CHECK && bel->pending) {
		bel->heard.chk[0] = e->checks[0];
		bel->heard.chk[1] = e->checks[1];
		return;
	}
	settle_heard(bel);
	bel->reopen = false; /* what follows is not this move's */
	switch (e->type) {
	case EV_MOVE:
		if (e->by == me && e->move != MOVE_NONE) {
			own_move(bel, e->move);
			new_turn(bel);
		}
		break;
	case EV_MOVED:
		if (e->by == opp) {
			opp_move(bel);
			new_turn(bel);
		}
		break;
	case EV_ILLEGAL:
		if (e->by == me && e->move != MOVE_NONE) {
			filter_log(bel, OBS_ILLEGAL, 0, e->move, 0);
		} else if (e->by == opp) {
			/* Its first refused try after a yes was the obliged pawn
			 * capture, which frees it where one try is owed. */
			if (bel->rs->any_obliges != ANY_UNTIL_PLAYED)
				bel->opp_obliged = false;
			/* Where impossible tries are told apart, a refused try needs a
			 * possible one the board refuses, a distinct one each time. */
			if (bel->rs->impossible != IMPOSSIBLE_IS_ILLEGAL)
				filter_log(bel, OBS_REFUSABLE, ++bel->opp_illegal, MOVE_NONE, 0);
		}
		break;
	case EV_ILLEGAL_COUNT:
		if (e->by == opp && e->count > 0)
			filter_log(bel, OBS_REFUSABLE, e->count, MOVE_NONE, 0);
		break;
	case EV_PAWN_TRIES:
		if (e->by == WHITE || e->by == BLACK) {
			filter_log(bel, OBS_SIDE, e->by, MOVE_NONE, 0);
			filter_log(bel, OBS_PAWN_COUNT, e->count, MOVE_NONE, 0);
		}
		break;
	case EV_PAWN_CAPTURES:
	case EV_ANY:
		if (e->by == WHITE || e->by == BLACK) {
			bool yes = e->type == EV_ANY ? e->answer != ANY_NO : e->answer != 0;
			filter_log(bel, OBS_SIDE, e->by, MOVE_NONE, 0);
			filter_log(bel, OBS_PAWN_YESNO, yes, MOVE_NONE, 0);
			if (e->type == EV_ANY && e->by == opp && yes && bel->rs->any_obliges != ANY_FREE)
				bel->opp_obliged = true;
		}
		break;
	case EV_PAWN_SQUARES:
		if (e->by == WHITE || e->by == BLACK) {
			filter_log(bel, OBS_SIDE, e->by, MOVE_NONE, 0);
			filter_log(bel, OBS_PAWN_SQUARES, 0, MOVE_NONE, e->squares);
		}
		break;
	case EV_GAME_OVER:
		bel->over = true;
		break;
	default:
		break;
	}
}

const struct board *belief_sample(struct belief *bel)
{
	belief_settle(bel);
	double u = rand_unit(&bel->rng), c = 0;
	for (size_t i = 0; i < bel->n; i++) {
		c += bel->h[i].w;
		if (u < c)
			return &bel->h[i].b;
	}
	return &bel->h[bel->n - 1].b;
}

/* Weights this close (relative) are one weight: equal shares reached by different float paths. */
#define RANK_TIE_EPS 1e-9

double belief_rank(struct belief *bel, const struct board *pos)
{
	belief_settle(bel);
	if (bel->n == 0)
		return -1;
	/* Distinct positions with their summed weights (a copy: the set keeps its order). */
	struct belief_hyp *d = dup_array(bel->h, bel->n, sizeof *d);
	size_t nd = merge_copies(d, bel->n);
	double total = 0;
	for (size_t i = 0; i < nd; i++)
		total += d[i].w;
	double w = -1;
	for (size_t i = 0; i < nd && w < 0; i++)
		if (same_pos(&d[i].b, pos))
			w = d[i].w;
	double above = 0;
	if (w >= 0)
		for (size_t i = 0; i < nd; i++)
			if (d[i].w > w * (1 + RANK_TIE_EPS))
				above += d[i].w;
	free(d);
	if (w < 0)
		return -1;
	return total > 0 ? above / total : 0;
}

double belief_p_legal(struct belief *bel, move_t m)
{
	belief_settle(bel);
	double p = 0;
	for (size_t i = 0; i < bel->n; i++)
		if (movegen_find_legal(&bel->h[i].b, m) != MOVE_NONE)
			p += bel->h[i].w;
	return p;
}
