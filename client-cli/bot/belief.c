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

#include "movegen.h"
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

struct belief *belief_new(const struct ruleset *rs, const struct board *start, int color,
                          const struct belief_limits *lim, uint64_t seed)
{
	struct belief *bel = xcalloc(1, sizeof *bel);
	bel->rs = rs;
	bel->color = color;
	bel->lim = lim ? *lim : (struct belief_limits){ BELIEF_EXACT_MAX, BELIEF_PARTICLES };
	if (bel->lim.particles < 1)
		bel->lim.particles = 1;
	if (bel->lim.exact_max < bel->lim.particles)
		bel->lim.exact_max = bel->lim.particles;
	bel->cap = 64;
	bel->h = xcalloc(bel->cap, sizeof *bel->h);
	bel->h[0].b = *start;
	bel->h[0].w = 1.0;
	bel->h[0].x_sq = -1;
	bel->n = 1;
	bel->exact = true;
	bel->rng = seed ? seed : 0x6b72696567ULL;
	bel->heard_sq = -1;
	return bel;
}

void belief_free(struct belief *bel)
{
	if (!bel)
		return;
	free(bel->h);
	free(bel);
}

struct belief *belief_clone(const struct belief *bel)
{
	struct belief *c = xmalloc(sizeof *c);
	*c = *bel;
	c->cap = bel->n ? bel->n : 1;
	c->h = xreallocarray(NULL, c->cap, sizeof *c->h);
	memcpy(c->h, bel->h, bel->n * sizeof *bel->h);
	return c;
}

/* ------------------------------------------------------------------ */
/* predicting the umpire                                               */

/* The direction of one checker from the checked king (referee.c's rule). */
static int check_direction(const struct ruleset *rs, int ksq, int csq, int ctype)
{
	int kf = ksq & 7, kr = ksq >> 3, cf = csq & 7, cr = csq >> 3;
	if (ctype == KNIGHT)
		return CHECK_KNIGHT;
	if (kr == cr)
		return CHECK_RANK;
	if (kf == cf)
		return CHECK_FILE;
	bool a1h8 = (cf - kf) == (cr - kr);
	if (rs->checks == CHECK_STYLE_GOLLON)
		return a1h8 ? CHECK_A1H8_DIAGONAL : CHECK_H1A8_DIAGONAL;
	int len_a1h8 = 8 - abs(kf - kr);
	int len_h1a8 = 8 - abs(kf + kr - 7);
	int mine = a1h8 ? len_a1h8 : len_h1a8, other = a1h8 ? len_h1a8 : len_a1h8;
	return mine > other ? CHECK_LONG_DIAGONAL : CHECK_SHORT_DIAGONAL;
}

/* Order of two directions in a double check: rank, file, diagonals, knight. */
static int check_order(int dir)
{
	switch (dir) {
	case CHECK_RANK: return 0;
	case CHECK_FILE: return 1;
	case CHECK_LONG_DIAGONAL: case CHECK_A1H8_DIAGONAL: return 2;
	case CHECK_SHORT_DIAGONAL: case CHECK_H1A8_DIAGONAL: return 3;
	case CHECK_KNIGHT: return 4;
	default: return 5;
	}
}

/*
 * Play legal move m on h->b and record what the umpire would tell us
 * (`me`) about it: the capture square as our audience hears it, the kind
 * where the rule set says it, and the check directions.
 */
static void play_predict(const struct ruleset *rs, int me, struct belief_hyp *h, move_t m)
{
	struct board *b = &h->b;
	int mover = b->side, to = move_to(m);
	int victim_sq = -1, victim_type = PIECE_NONE;
	bool ep = move_kind(m) == MOVE_EN_PASSANT;
	if (ep) {
		victim_sq = mover == WHITE ? to - 8 : to + 8;
		victim_type = PAWN;
	} else if (move_kind(m) != MOVE_CASTLING && b->mailbox[to] != MAILBOX_EMPTY) {
		victim_sq = to;
		victim_type = piece_code_type(b->mailbox[to]);
	}
	h->x_promo = rs->promotion_said && move_kind(m) == MOVE_PROMOTION;
	board_make(b, m);
	h->x_sq = -1;
	h->x_what = CAPTURED_UNSAID;
	h->x_ep = false;
	if (victim_sq >= 0) {
		if (ep && rs->ep == EP_SPLIT) {
			h->x_sq = (int8_t)(mover == me ? to : victim_sq);
		} else if (ep && rs->ep == EP_NAMED_LANDING) {
			h->x_sq = (int8_t)to;
			h->x_ep = true;
		} else {
			h->x_sq = (int8_t)victim_sq;
		}
		if (rs->capture_kind && !(ep && rs->ep == EP_SPLIT))
			h->x_what = victim_type == PAWN ? CAPTURED_PAWN : CAPTURED_PIECE;
	}
	h->x_chk[0] = h->x_chk[1] = CHECK_NONE;
	bb_t checkers = board_checkers(b);
	if (checkers) {
		int ksq = board_king(b, b->side), nd = 0;
		for (int sq = 0; sq < 64 && nd < 2; sq++)
			if (checkers >> sq & 1)
				h->x_chk[nd++] = (uint8_t)check_direction(rs, ksq, sq, piece_code_type(b->mailbox[sq]));
		if (nd == 2 && check_order(h->x_chk[1]) < check_order(h->x_chk[0])) {
			uint8_t t = h->x_chk[0];
			h->x_chk[0] = h->x_chk[1];
			h->x_chk[1] = t;
		}
	}
}

static bool is_pawn_capture(const struct board *b, move_t m)
{
	return piece_code_type(b->mailbox[move_from(m)]) == PAWN && (move_from(m) & 7) != (move_to(m) & 7);
}

/* Distinct tries (origin, destination) the side to move could make that the umpire would refuse. */
static int refusable_tries(const struct board *b)
{
	struct movelist poss, legal;
	movegen_possible(b, b->side, &poss);
	movegen_legal(b, &legal);
	int n = 0;
	for (int i = 0; i < poss.n; i++) {
		move_t m = poss.m[i];
		/* a promotion counts once: a refused one closes every piece */
		if (move_kind(m) == MOVE_PROMOTION && move_promo(m) != QUEEN)
			continue;
		bool ok = false;
		for (int j = 0; j < legal.n && !ok; j++)
			ok = move_from(legal.m[j]) == move_from(m) && move_to(legal.m[j]) == move_to(m);
		n += !ok;
	}
	return n;
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

typedef bool (*keep_fn)(const struct belief *bel, const struct belief_hyp *h, const void *arg);

/*
 * Keep the hypotheses `keep` accepts.  If it accepts none, the truth was
 * lost earlier (possible only in a sample, or a bug): the announcement is
 * skipped rather than leaving nothing to play against, and counted.
 */
static void filter(struct belief *bel, keep_fn keep, const void *arg)
{
	size_t k = 0;
	for (size_t i = 0; i < bel->n; i++)
		k += keep(bel, &bel->h[i], arg);
	if (k == 0) {
		bel->lost++;
		return;
	}
	k = 0;
	for (size_t i = 0; i < bel->n; i++)
		if (keep(bel, &bel->h[i], arg))
			bel->h[k++] = bel->h[i];
	bel->n = k;
	normalize(bel);
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = ((const struct belief_hyp *)a)->b.key, y = ((const struct belief_hyp *)b)->b.key;
	return x < y ? -1 : x > y;
}

/* Merge transpositions (same Zobrist key: pieces, side, rights, en passant), summing weights. */
static void dedupe(struct belief *bel)
{
	if (bel->n < 2)
		return;
	qsort(bel->h, bel->n, sizeof *bel->h, cmp_key);
	size_t k = 0;
	for (size_t i = 1; i < bel->n; i++) {
		if (bel->h[i].b.key == bel->h[k].b.key)
			bel->h[k].w += bel->h[i].w;
		else
			bel->h[++k] = bel->h[i];
	}
	bel->n = k + 1;
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
	free(bel->h);
	bel->h = out;
	bel->n = bel->cap = n;
	dedupe(bel);
}

static void shrink(struct belief *bel)
{
	size_t limit = bel->exact ? bel->lim.exact_max : bel->lim.particles;
	if (bel->n <= limit)
		return;
	bel->exact = false;
	resample(bel);
}

/* ------------------------------------------------------------------ */
/* the filters                                                         */

static bool keep_heard(const struct belief *bel, const struct belief_hyp *h, const void *arg)
{
	if (h->x_promo != bel->heard_promo)
		return false;
	if (h->x_sq != bel->heard_sq || h->x_chk[0] != bel->heard_chk[0] || h->x_chk[1] != bel->heard_chk[1])
		return false;
	if (h->x_sq >= 0 && (h->x_what != bel->heard_what || h->x_ep != bel->heard_ep))
		return false;
	return true;
}

static bool keep_pawn_count(const struct belief *bel, const struct belief_hyp *h, const void *arg)
{
	return movegen_pawn_captures(&h->b) == *(const int *)arg;
}

static bool keep_pawn_yesno(const struct belief *bel, const struct belief_hyp *h, const void *arg)
{
	return (movegen_pawn_captures(&h->b) > 0) == *(const bool *)arg;
}

static bool keep_pawn_squares(const struct belief *bel, const struct belief_hyp *h, const void *arg)
{
	return movegen_pawn_capture_squares(&h->b) == *(const uint64_t *)arg;
}

static bool keep_illegal(const struct belief *bel, const struct belief_hyp *h, const void *arg)
{
	return movegen_find_legal(&h->b, *(const move_t *)arg) == MOVE_NONE;
}

static bool keep_refusable(const struct belief *bel, const struct belief_hyp *h, const void *arg)
{
	return refusable_tries(&h->b) >= *(const int *)arg;
}

static bool keep_side(const struct belief *bel, const struct belief_hyp *h, const void *arg)
{
	return h->b.side == *(const int *)arg;
}

void belief_settle(struct belief *bel)
{
	if (!bel->pending)
		return;
	bel->pending = false;
	filter(bel, keep_heard, NULL);
	dedupe(bel);
	shrink(bel);
	normalize(bel);
	bel->heard_sq = -1;
	bel->heard_what = CAPTURED_UNSAID;
	bel->heard_ep = false;
	bel->heard_chk[0] = bel->heard_chk[1] = CHECK_NONE;
	bel->heard_promo = false;
}

static void own_move(struct belief *bel, move_t m)
{
	size_t k = 0;
	for (size_t i = 0; i < bel->n; i++) {
		struct belief_hyp h = bel->h[i];
		move_t l = h.b.side == bel->color ? movegen_find_legal(&h.b, m) : MOVE_NONE;
		if (l == MOVE_NONE)
			continue;
		play_predict(bel->rs, bel->color, &h, l);
		bel->h[k++] = h;
	}
	if (k == 0) {
		/* Nothing fitted (a lost sample): keep the positions, with our move played on our pieces. */
		bel->lost++;
		for (size_t i = 0; i < bel->n; i++) {
			struct belief_hyp *h = &bel->h[i];
			if (h->b.mailbox[move_to(m)] != MAILBOX_EMPTY)
				board_remove(&h->b, move_to(m));
			int code = h->b.mailbox[move_from(m)];
			if (code != MAILBOX_EMPTY) {
				board_remove(&h->b, move_from(m));
				board_put(&h->b, bel->color,
				          move_kind(m) == MOVE_PROMOTION ? move_promo(m) : piece_code_type((uint8_t)code),
				          move_to(m));
			}
			h->b.side = (uint8_t)!bel->color;
			h->b.ep = SQ_NONE;
			h->b.key = board_compute_key(&h->b);
		}
		bel->pending = false;
		return;
	}
	bel->n = k;
	bel->pending = true;
}

static void opp_move(struct belief *bel)
{
	struct belief_hyp *out = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < bel->n; i++) {
		const struct belief_hyp *p = &bel->h[i];
		if (p->b.side == bel->color)
			continue;
		struct movelist ml;
		movegen_legal(&p->b, &ml);
		int k = 0;
		for (int j = 0; j < ml.n; j++) {
			if (bel->opp_obliged && !is_pawn_capture(&p->b, ml.m[j]))
				continue;
			ml.m[k++] = ml.m[j];
		}
		for (int j = 0; j < k; j++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				out = xreallocarray(out, cap, sizeof *out);
			}
			out[n] = *p;
			out[n].w = p->w / k;
			play_predict(bel->rs, bel->color, &out[n], ml.m[j]);
			n++;
		}
	}
	if (n == 0) {
		bel->lost++;
		free(out);
		return;
	}
	free(bel->h);
	bel->h = out;
	bel->n = n;
	bel->cap = cap;
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
	if (e->type == EV_CAPTURE && bel->pending) {
		bel->heard_sq = e->square;
		bel->heard_what = e->what;
		bel->heard_ep = e->en_passant;
		return;
	}
	if (e->type == EV_PROMOTION && bel->pending) {
		bel->heard_promo = true;
		return;
	}
	if (e->type == EV_CHECK && bel->pending) {
		bel->heard_chk[0] = e->checks[0];
		bel->heard_chk[1] = e->checks[1];
		return;
	}
	belief_settle(bel);
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
			move_t m = e->move;
			filter(bel, keep_illegal, &m);
		} else if (e->by == opp) {
			/* Its first refused try after a yes was the obliged pawn
			 * capture, which frees it where one try is owed. */
			if (bel->rs->any_obliges != ANY_UNTIL_PLAYED)
				bel->opp_obliged = false;
			/* Where impossible tries are told apart, a refused try needs a
			 * possible one the board refuses, a distinct one each time. */
			if (bel->rs->impossible != IMPOSSIBLE_IS_ILLEGAL) {
				int need = ++bel->opp_illegal;
				filter(bel, keep_refusable, &need);
			}
		}
		break;
	case EV_ILLEGAL_COUNT:
		if (e->by == opp && e->count > 0) {
			int need = e->count;
			filter(bel, keep_refusable, &need);
		}
		break;
	case EV_PAWN_TRIES:
		if (e->by == WHITE || e->by == BLACK) {
			int side = e->by, count = e->count;
			filter(bel, keep_side, &side);
			filter(bel, keep_pawn_count, &count);
		}
		break;
	case EV_PAWN_CAPTURES:
	case EV_ANY:
		if (e->by == WHITE || e->by == BLACK) {
			int side = e->by;
			bool yes = e->type == EV_ANY ? e->answer != ANY_NO : e->answer != 0;
			filter(bel, keep_side, &side);
			filter(bel, keep_pawn_yesno, &yes);
			if (e->type == EV_ANY && e->by == opp && yes && bel->rs->any_obliges != ANY_FREE)
				bel->opp_obliged = true;
		}
		break;
	case EV_PAWN_SQUARES:
		if (e->by == WHITE || e->by == BLACK) {
			int side = e->by;
			uint64_t sq = e->squares;
			filter(bel, keep_side, &side);
			filter(bel, keep_pawn_squares, &sq);
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

double belief_rank(struct belief *bel, const struct board *pos)
{
	belief_settle(bel);
	double w = -1;
	for (size_t i = 0; i < bel->n; i++)
		if (bel->h[i].b.key == pos->key)
			w = bel->h[i].w;
	if (w < 0)
		return -1;
	double above = 0;
	for (size_t i = 0; i < bel->n; i++)
		if (bel->h[i].w > w)
			above += bel->h[i].w;
	return above;
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
