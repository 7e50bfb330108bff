/*
 * bot.c — krieg-bot's player: view + belief, and the choice of a try
 * (bot.h).  It reads the belief, never a true board: every position it
 * searches is one the announcements left possible.
 */
#include "bot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bitboard.h"
#include "movegen.h"
#include "mstime.h"
#include "xmalloc.h"

#define BOT_MATE 100000
#define BOT_GREEDY_SAMPLES 64
#define BOT_REFUSAL_COST 5        /* a refused try costs a little time and tells the opponent a little */
#define BOT_REPEAT_DRAW 0.5       /* share of the way to a draw per earlier occurrence of a try's arrangement */

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

static int64_t mono_clock(void *ctx)
{
	return mstime_mono();
}

static bot_clock_fn clock_of(const struct bot *b)
{
	return b->clock ? b->clock : mono_clock;
}

static int64_t bot_now(const struct bot *b)
{
	return clock_of(b)(b->clock_ctx);
}

/* Does the belief's work have a deadline under this budget (bot.h)?  Not
 * with none, nor when the search counts iterations (unless a test gave the
 * bot a clock of its own). */
static bool bot_timed(const struct bot *b, long budget_ms)
{
	return budget_ms > 0 && (b->clock || b->iterations == 0);
}

/* Our men and castling rights: the part of a position's identity we know. */
static uint64_t own_key(const struct board *own, int color)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ own->castling;
	for (int t = PAWN; t <= KING; t++) {
		h ^= own->pieces[color][t] + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
		h *= 0xbf58476d1ce4e5b9ULL;
	}
	return h ^ (h >> 31);
}

static void remember(struct bot *b, const struct board *own)
{
	b->seen[b->nseen++ % BOT_SEEN_MAX] = own_key(own, b->color);
}

int bot_repeats(const struct bot *b, move_t m)
{
	struct view v = b->view;
	struct event e = { .type = EV_MOVE, .audience = (uint8_t)aud_of(b->color), .by = (int8_t)b->color,
		           .move = m };
	view_apply(&v, &e);
	uint64_t k = own_key(&v.own, b->color);
	int n = 0, have = b->nseen < BOT_SEEN_MAX ? b->nseen : BOT_SEEN_MAX;
	for (int i = 0; i < have; i++)
		n += b->seen[i] == k;
	return n;
}

/* A try's value v moved toward `draw` (the value of a draw on v's scale) by how often it repeats. */
static double repeat_adjust(const struct bot *b, move_t m, double v, double draw)
{
	int n = bot_repeats(b, m);
	double k = n * BOT_REPEAT_DRAW;
	return n == 0 ? v : v + (draw - v) * (k < 1 ? k : 1);
}

struct bot *bot_new(enum bot_level level, const struct ruleset *rs, const struct board *start, int color,
                    uint64_t seed, const struct belief_limits *lim)
{
	struct bot *b = xcalloc(1, sizeof *b);
	b->level = level;
	b->rs = rs;
	b->color = color;
	b->rng = seed ^ 0x626f74ULL;
	b->budget_ms = BOT_BUDGET_DEFAULT_MS;
	view_init(&b->view, start, color);
	view_set_ruleset(&b->view, rs);
	b->bel = belief_new(rs, start, color, lim, seed);
	if (start->side != color)
		remember(b, &b->view.own);
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
	if (bot_timed(b, b->budget_ms)) {
		/* the belief's work here is charged to the next decision (bot.h) */
		int64_t t0 = bot_now(b), room = b->budget_ms / BOT_UPKEEP_SHARE - b->upkeep_ms;
		belief_set_deadline(b->bel, clock_of(b), b->clock_ctx, t0 + (room > 0 ? room : 0));
		belief_apply(b->bel, e);
		b->upkeep_ms += bot_now(b) - t0;
	} else {
		belief_set_deadline(b->bel, NULL, NULL, 0);
		belief_apply(b->bel, e);
	}
	if (e->type == EV_MOVE && e->by == b->color) {
		b->moves_made++;
		remember(b, &b->view.own);
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
		/* crazykrieg: a man in reserve is worth its full value (it may land anywhere) */
		s += (bb_count(p) + pos->hand[c][t]) * piece_value[t];
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

/* ------------------------------------------------------------------ */
/* full: information-set Monte Carlo tree search                       */

/*
 * One tree for our information set (single-observer ISMCTS, Cowling,
 * Powley and Whitehouse 2012, as Ciancarini and Favini's Kriegspiel
 * players use it): every iteration draws a position from the belief by
 * weight (a determinization) and walks the tree using only the moves legal
 * there.  Below the root both sides play in that determinization (its
 * opponent knows our pieces: the usual, accepted bias); a child's
 * availability count stands in for its parent's visits in UCB.
 *
 * At the root the children are our tries, all available in every
 * determinization: where the try is illegal the iteration ends in
 * "refused", valued at the position as it stands less a small cost, and
 * counted, so each try carries p = its legal share.  The final choice adds
 * to a try's mean value a bonus for what its ruling would teach (largest
 * at p = 1/2): a refused try is information, and a try that surely works
 * or surely fails teaches nothing.
 */
#define MCTS_DEPTH 4              /* plies below the root: ours, theirs, ours, theirs */
#define MCTS_UCB_C 0.5
#define MCTS_ITER_MIN 64          /* iterations before the clock is looked at */
#define MCTS_ITER_MAX 200000
#define MCTS_REFUSAL_COST 0.01    /* value given up by a refused try (time, and a word to the opponent) */
#define MCTS_INFO_BONUS 0.02      /* value of a ruling whose outcome is fully in doubt */

struct mnode {
	move_t m;
	int first, next;          /* first child, next sibling (-1: none) */
	int visits, avail;
	int legal;                /* root tries: iterations in which it was legal */
	double sum;               /* values from our side's view, in [0,1] */
};

struct mtree {
	struct mnode *v;
	size_t n, cap;
	int *child_at;            /* the child index (child_index_build): by move */
	uint32_t *stamp;          /* ... valid where stamp == gen */
	uint32_t gen;
	int widest;               /* the most children a node had when visited */
};

static int mt_add(struct mtree *t, int parent, move_t m)
{
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof *t->v, 1024);
	struct mnode *x = &t->v[t->n];
	memset(x, 0, sizeof *x);
	x->m = m;
	x->first = x->next = -1;
	if (parent >= 0) {
		x->next = t->v[parent].first;
		t->v[parent].first = (int)t->n;
	}
	return (int)t->n++;
}

static double squash(int cp)
{
	return 1.0 / (1.0 + exp(-(double)cp / 400.0));
}

/* The value of a position for `us`, the side to move being either. */
static double leaf_value(const struct board *pos, int us, bool *terminal)
{
	*terminal = true;
	if (movegen_count(pos) == 0)
		return board_in_check(pos) ? (pos->side == us ? 0.0 : 1.0) : 0.5;
	if (pos->halfmove >= 100 || board_insufficient_material(pos))
		return 0.5;
	*terminal = false;
	return squash(bot_eval(pos, us));
}

/*
 * A node's children by move, for one visit: the sibling list walked once,
 * then a lookup per legal move (the list walked per move was the search's
 * largest cost: moves x children at every node of every iteration).  A
 * node below the root may have thousands of children (the union of the
 * moves of every determinization that reached it), so the index is one
 * slot per possible move_t, stamped with the visit that filled it.  One
 * index serves the whole tree: a visit's lookups are all made before it
 * descends.
 */
#define MCTS_MOVES 65536          /* every value of a move_t */

static void child_index_build(struct mtree *t, int at)
{
	int n = 0;
	t->gen++;
	for (int c = t->v[at].first; c >= 0; c = t->v[c].next, n++) {
		t->child_at[t->v[c].m] = c;
		t->stamp[t->v[c].m] = t->gen;
	}
	if (n > t->widest)
		t->widest = n;
}

/* The child for move m, or -1 (a child added after the build is not in it). */
static int child_find(const struct mtree *t, move_t m)
{
	return t->stamp[m] == t->gen ? t->child_at[m] : -1;
}

/* Walk one determinization below node `at` (its move already played on pos), to MCTS_DEPTH plies. */
static double mcts_descend(struct bot *b, struct mtree *t, int at, struct board *pos, int depth)
{
	bool terminal;
	double v = leaf_value(pos, b->color, &terminal);
	if (terminal || depth >= MCTS_DEPTH) {
		t->v[at].visits++;
		t->v[at].sum += v;
		return v;
	}
	struct movelist ml;
	movegen_legal(pos, &ml);
	bool ours = pos->side == b->color;
	child_index_build(t, at);
	/* children available here; an untried one is expanded first */
	int pick = -1;
	double best = -1e18;
	for (int i = 0; i < ml.n; i++) {
		int c = child_find(t, ml.m[i]);
		if (c < 0) {
			c = mt_add(t, at, ml.m[i]);
			t->v[c].avail++;
			pick = c;
			/* the others' availability counts as well */
			for (int j = i + 1; j < ml.n; j++) {
				int d = child_find(t, ml.m[j]);
				if (d >= 0)
					t->v[d].avail++;
			}
			break;
		}
		t->v[c].avail++;
		double mean = t->v[c].visits ? t->v[c].sum / t->v[c].visits : 0.5;
		if (!ours)
			mean = 1 - mean;
		double u = mean + MCTS_UCB_C * sqrt(log((double)t->v[c].avail + 1) / (t->v[c].visits + 1));
		if (u > best) {
			best = u;
			pick = c;
		}
	}
	board_make(pos, t->v[pick].m);
	v = mcts_descend(b, t, pick, pos, depth + 1);
	t->v[at].visits++;
	t->v[at].sum += v;
	return v;
}

static bool is_pawn_capture_try(const struct board *own, move_t m);

/* Does m, legal on pos, leave the side then to move a king without a move, not in check? */
static bool boxes_king(const struct board *pos, move_t m)
{
	struct board after = *pos;
	board_make(&after, m);
	int k = board_king(&after, after.side);
	if (k == SQ_NONE || board_in_check(&after))
		return false;
	struct movelist ml;
	movegen_legal(&after, &ml);
	for (int i = 0; i < ml.n; i++)
		if (move_from(ml.m[i]) == k)
			return false;
	return true;
}

/*
 * A king boxed in without check, beside a few men, is stalemated if they
 * cannot move either, and where the last men stand, and whether they are
 * pinned or blocked, is what a sample knows least.  The stalemates the bot
 * gave away in won english games that were looked at were of this kind
 * (BENCHMARKS.md): Qe6 boxed a king whose bishop stood pinned on a square
 * no sample had it on; queens boxed a king whose two pawns were blocked on
 * ranks the sample had wrong.  The search valued those tries by the
 * sample, where the men could move.  An exact belief holds the true position, and the search
 * sees its stalemates; a bare king's are exact too.
 */
double bot_box_share(const struct bot *b, move_t m)
{
	const struct belief *bel = b->bel;
	if (belief_is_exact(bel) || bel->opp_men < 2 || bel->opp_men > BOT_BOX_MEN)
		return 0;
	double boxed = 0, all = 0;
	for (size_t i = 0; i < bel->n; i++) {
		all += bel->h[i].w;
		move_t l = movegen_find_legal(&bel->h[i].b, m);
		if (l != MOVE_NONE && boxes_king(&bel->h[i].b, l))
			boxed += bel->h[i].w;
	}
	return all > 0 ? boxed / all : 0;
}

/* The try chosen by ISMCTS over the belief by the deadline (bot_now), MCTS_ITER_MIN iterations at least. */
static move_t mcts_choose(struct bot *b, const struct movelist *tries, int64_t deadline)
{
	struct mtree t = { .child_at = xreallocarray(NULL, MCTS_MOVES, sizeof(int)),
		           .stamp = xcalloc(MCTS_MOVES, sizeof(uint32_t)) };
	int root = mt_add(&t, -1, MOVE_NONE);
	for (int i = 0; i < tries->n; i++)
		mt_add(&t, root, tries->m[i]);
	long iters = 0, most = b->iterations > 0 ? b->iterations : MCTS_ITER_MAX;
	for (; iters < most; iters++) {
		if (b->iterations == 0 && iters >= MCTS_ITER_MIN && (iters & 15) == 0 && bot_now(b) >= deadline)
			break;
		struct board pos = *belief_sample(b->bel);
		bool terminal;
		double here = leaf_value(&pos, b->color, &terminal);
		/* root: UCB over every try (all are available in every determinization) */
		int pick = -1;
		double best = -1e18;
		for (int c = t.v[root].first; c >= 0; c = t.v[c].next) {
			struct mnode *x = &t.v[c];
			double u = x->visits == 0 ? 1e9 + (double)(belief_rand(&b->rng) % 1000)
			                          : x->sum / x->visits +
			                                    MCTS_UCB_C * sqrt(log((double)iters + 1) / x->visits);
			if (u > best) {
				best = u;
				pick = c;
			}
		}
		struct mnode *x = &t.v[pick];
		x->avail++;
		move_t l = movegen_find_legal(&pos, x->m);
		if (l == MOVE_NONE) {
			x->visits++;
			x->sum += here - MCTS_REFUSAL_COST;
			continue;
		}
		x->legal++;
		board_make(&pos, l);
		double v = mcts_descend(b, &t, pick, &pos, 1);
		/* mcts_descend counted the visit at `pick` */
		(void)v;
	}
	b->searched += iters;
	b->widest = t.widest;
	/* the most valuable try, with what its ruling teaches */
	move_t best_m = tries->m[0];
	double best = -1e18;
	for (int c = t.v[root].first; c >= 0; c = t.v[c].next) {
		struct mnode *x = &t.v[c];
		if (x->visits == 0)
			continue;
		double p = (double)x->legal / x->visits;
		double v = x->sum / x->visits;
		/* a try that may box the king in is worth a draw where it does (bot_box_share) */
		if (v > 0.5)
			v -= (v - 0.5) * bot_box_share(b, x->m);
		double s = repeat_adjust(b, x->m, v, 0.5) + MCTS_INFO_BONUS * 4 * p * (1 - p);
		/* a try tried too rarely to judge is not trusted over a well-explored one */
		s -= 0.5 / sqrt((double)x->visits + 1) * 0.1;
		if (s > best) {
			best = s;
			best_m = x->m;
		}
	}
	free(t.v);
	free(t.child_at);
	free(t.stamp);
	return best_m;
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
	/* The decision's deadline: the budget less the events' upkeep since
	 * the last one; settling the belief may use half of what is left. */
	bool timed = bot_timed(b, budget_ms);
	int64_t left = budget_ms > 0 ? budget_ms : 0;
	if (timed)
		left = left > b->upkeep_ms ? left - b->upkeep_ms : 0;
	b->budget_ms = budget_ms;
	b->upkeep_ms = 0;
	if (b->level == BOT_RANDOM) {
		*out = ml.m[belief_rand(&b->rng) % (uint64_t)ml.n];
		return BOT_TRY;
	}
	int64_t start = timed || b->iterations == 0 ? bot_now(b) : 0;
	if (timed)
		belief_set_deadline(b->bel, clock_of(b), b->clock_ctx, start + left / 2);
	else
		belief_set_deadline(b->bel, NULL, NULL, 0);
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

	if (b->level == BOT_FULL) {
		*out = mcts_choose(b, &ml, start + left);
		return BOT_TRY;
	}

	/* greedy: every try, one ply, over (a sample of) the belief */
	int nc = ml.n;
	struct cand *c = xcalloc((size_t)nc, sizeof *c);
	for (int i = 0; i < nc; i++)
		c[i].m = ml.m[i];
	double cur = 0, wt = 0;
	struct belief *bel = b->bel;
	if (bel->n <= BOT_GREEDY_SAMPLES) {
		for (size_t i = 0; i < bel->n; i++) {
			search_sample(b, &bel->h[i].b, bel->h[i].w, c, nc, 1, &cur);
			wt += bel->h[i].w;
		}
	} else {
		for (size_t k = 0; k < BOT_GREEDY_SAMPLES; k++) {
			search_sample(b, belief_sample(bel), 1.0, c, nc, 1, &cur);
			wt += 1.0;
		}
	}
	cur = wt > 0 ? cur / wt : 0;

	double best = -1e18;
	int bi = 0;
	for (int i = 0; i < nc; i++) {
		double p = wt > 0 ? c[i].wl / wt : 0;
		double v = c[i].wl > 0 ? c[i].wv / c[i].wl : cur;
		double sc = repeat_adjust(b, c[i].m, p * v + (1 - p) * (cur - BOT_REFUSAL_COST), 0);
		/* ties broken at random, so that equal tries do not always go the same way */
		sc += (double)(belief_rand(&b->rng) % 1000) * 1e-4;
		if (sc > best) {
			best = sc;
			bi = i;
		}
	}
	*out = c[bi].m;
	free(c);
	return BOT_TRY;
}
