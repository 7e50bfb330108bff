/*
 * bot.c — krieg-bot's player: view + belief, and the choice of a try
 * (bot.h).  It reads the belief, never a true board: every position it
 * searches is one the announcements left possible.
 */
#include "bot.h"

#include <stdlib.h>
#include <string.h>

#include "bitboard.h"
#include "movegen.h"
#include "mstime.h"
#include "xmalloc.h"

#define BOT_MATE 100000
#define BOT_SAMPLES_MIN 8         /* determinizations searched before the clock is looked at */
#define BOT_SAMPLES_MAX 256       /* and at most */
#define BOT_GREEDY_SAMPLES 64
#define BOT_REFUSAL_COST 5        /* a refused try costs a little time and tells the opponent a little */
#define BOT_INFO_BONUS 20         /* full: what a try whose fate is in doubt teaches, at p = 1/2 */

static const char *const level_names[] = { "random", "greedy", "full" };

int bot_level_parse(const char *name)
{
	for (int i = 0; i < 3; i++)
		if (name && strcmp(name, level_names[i]) == 0)
			return i;
	return -1;
}

const char *bot_level_name(int level)
{
	return level >= 0 && level < 3 ? level_names[level] : "?";
}

struct bot *bot_new(enum bot_level level, const struct ruleset *rs, const struct board *start, int color,
                    uint64_t seed, const struct belief_limits *lim)
{
	struct bot *b = xcalloc(1, sizeof *b);
	b->level = level;
	b->rs = rs;
	b->color = color;
	b->rng = seed ^ 0x626f74ULL;
	view_init(&b->view, start, color);
	view_set_ruleset(&b->view, rs);
	b->bel = belief_new(rs, start, color, lim, seed);
	return b;
}

void bot_free(struct bot *b)
{
	if (!b)
		return;
	belief_free(b->bel);
	free(b);
}

void bot_event(struct bot *b, const struct event *e)
{
	if (!(e->audience & aud_of(b->color)))
		return;
	view_apply(&b->view, e);
	belief_apply(b->bel, e);
	if (e->type == EV_MOVE && e->by == b->color) {
		b->moves_made++;
		b->any_asked = false;
	} else if (e->type == EV_MOVED && e->by == !b->color) {
		b->any_asked = false;
	}
}

/* ------------------------------------------------------------------ */
/* evaluation                                                          */

static const int piece_value[6] = { 100, 320, 330, 500, 900, 0 };

static int center_distance(int sq)
{
	int f = sq & 7, r = sq >> 3;
	int df = f < 4 ? 3 - f : f - 4, dr = r < 4 ? 3 - r : r - 4;
	return df + dr;
}

static int side_score(const struct board *pos, int c)
{
	int s = 0;
	for (int t = PAWN; t < KING; t++) {
		bb_t p = pos->pieces[c][t];
		s += bb_count(p) * piece_value[t];
		while (p) {
			int sq = bb_pop(&p);
			if (t == PAWN)
				s += 4 * (c == WHITE ? (sq >> 3) - 1 : 6 - (sq >> 3));
			else if (t == KNIGHT || t == BISHOP)
				s += 6 - 2 * center_distance(sq);
		}
	}
	return s;
}

/* Bare enemy king: drive it to the edge and bring ours close (the K+R ending). */
static int mop_up(const struct board *pos, int us)
{
	int them = !us;
	if (pos->occ[them] != pos->pieces[them][KING] || pos->occ[us] == pos->pieces[us][KING])
		return 0;
	int ek = board_king(pos, them), ok = board_king(pos, us);
	if (ek == SQ_NONE || ok == SQ_NONE)
		return 0;
	int d = abs((ek & 7) - (ok & 7)) + abs((ek >> 3) - (ok >> 3));
	return 30 * center_distance(ek) + 8 * (14 - d);
}

int bot_eval(const struct board *pos, int color)
{
	return side_score(pos, color) - side_score(pos, !color) + mop_up(pos, color) - mop_up(pos, !color);
}

/* ------------------------------------------------------------------ */
/* search over one determinization                                     */

/*
 * Our legal move m has been played on `after` (the opponent to move).
 * depth 1: its static value; depth 2: the opponent's best reply's.
 */
static int value_after(const struct board *after, int us, int depth)
{
	struct movelist ml;
	movegen_legal(after, &ml);
	if (ml.n == 0)
		return board_in_check(after) ? BOT_MATE : 0;
	if (after->halfmove >= 100 || board_insufficient_material(after))
		return 0;
	if (depth <= 1)
		return bot_eval(after, us);
	int best = BOT_MATE * 2;
	for (int i = 0; i < ml.n; i++) {
		struct board c = *after;
		board_make(&c, ml.m[i]);
		int v = bot_eval(&c, us);
		/* our being mated or stalemated next is rare and costly to detect: only in check */
		if (board_in_check(&c) && movegen_count(&c) == 0)
			v = -BOT_MATE;
		if (v < best)
			best = v;
	}
	return best;
}

struct cand {
	move_t m;
	double wl;      /* weight of the samples where it is legal */
	double wv;      /* weighted sum of its values there */
};

/* Add one sampled position, of weight w, to every candidate's tally. */
static void search_sample(struct bot *b, const struct board *pos, double w, struct cand *c, int nc, int depth,
                          double *cur)
{
	*cur += w * bot_eval(pos, b->color);
	for (int i = 0; i < nc; i++) {
		move_t l = movegen_find_legal(pos, c[i].m);
		if (l == MOVE_NONE)
			continue;
		struct board after = *pos;
		board_make(&after, l);
		c[i].wl += w;
		c[i].wv += w * value_after(&after, b->color, depth);
	}
	b->searched++;
}

static bool is_pawn_capture_try(const struct board *own, move_t m)
{
	return piece_code_type(own->mailbox[move_from(m)]) == PAWN && (move_from(m) & 7) != (move_to(m) & 7);
}

/* Probability (by weight) that we have a pawn capture now. */
static double p_pawn_capture(struct belief *bel)
{
	double p = 0;
	for (size_t i = 0; i < bel->n; i++)
		if (movegen_pawn_captures(&bel->h[i].b) > 0)
			p += bel->h[i].w;
	return p;
}

enum bot_action bot_choose(struct bot *b, long budget_ms, move_t *out)
{
	struct movelist ml;
	*out = MOVE_NONE;
	if (!bot_to_move(b))
		return BOT_WAIT;
	view_possible(&b->view, &ml);
	if (ml.n == 0)
		return BOT_WAIT;
	if (b->level == BOT_RANDOM) {
		*out = ml.m[belief_rand(&b->rng) % (uint64_t)ml.n];
		return BOT_TRY;
	}
	belief_settle(b->bel);

	/* "Any?" where the rule set has it on request and the answer is in doubt. */
	if (b->rs->pawn_info == PAWN_INFO_ASK && !b->any_asked && !b->view.must_try_capture &&
	    !(b->rs->any_after_first_move && b->moves_made == 0)) {
		bool have = false;
		for (int i = 0; i < ml.n && !have; i++)
			have = is_pawn_capture_try(&b->view.own, ml.m[i]);
		double p = have ? p_pawn_capture(b->bel) : 0;
		if (have && p > 0.05 && p < 0.999) {
			b->any_asked = true;
			return BOT_ANY;
		}
	}

	int nc = ml.n;
	struct cand *c = xcalloc((size_t)nc, sizeof *c);
	for (int i = 0; i < nc; i++)
		c[i].m = ml.m[i];
	int depth = b->level == BOT_FULL ? 2 : 1;
	double cur = 0, wt = 0;
	struct belief *bel = b->bel;
	size_t limit = b->level == BOT_FULL ? BOT_SAMPLES_MAX : BOT_GREEDY_SAMPLES;
	if (bel->n <= limit) {
		/* small enough: every position, by its own weight */
		for (size_t i = 0; i < bel->n; i++) {
			search_sample(b, &bel->h[i].b, bel->h[i].w, c, nc, depth, &cur);
			wt += bel->h[i].w;
		}
	} else {
		int64_t deadline = mstime_mono() + (budget_ms > 0 ? budget_ms : 0);
		for (size_t k = 0; k < limit; k++) {
			if (k >= BOT_SAMPLES_MIN && mstime_mono() >= deadline)
				break;
			search_sample(b, belief_sample(bel), 1.0, c, nc, depth, &cur);
			wt += 1.0;
		}
	}
	cur = wt > 0 ? cur / wt : 0;

	double best = -1e18;
	int bi = 0;
	for (int i = 0; i < nc; i++) {
		double p = wt > 0 ? c[i].wl / wt : 0;
		double v = c[i].wl > 0 ? c[i].wv / c[i].wl : cur;
		double s = p * v + (1 - p) * (cur - BOT_REFUSAL_COST);
		if (b->level == BOT_FULL)
			s += BOT_INFO_BONUS * 4 * p * (1 - p);
		/* ties broken at random, so that equal tries do not always go the same way */
		s += (double)(belief_rand(&b->rng) % 1000) * 1e-4;
		if (s > best) {
			best = s;
			bi = i;
		}
	}
	*out = c[bi].m;
	free(c);
	return BOT_TRY;
}
