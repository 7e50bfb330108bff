/*
 * local.c — in-process games between two bots (local.h).
 */
#include "local.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "action.h"
#include "fen.h"
#include "movegen.h"
#include "mstime.h"
#include "notation.h"
#include "referee.h"
#include "xmalloc.h"

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Each event to both bots; the time each takes to take them in (its view
 * and belief: a move of the opponent's is where the belief does its work)
 * is added to res->upkeep_ms[colour], the events to res->events. */
static void deliver(struct bot *b[2], const struct evlist *l, struct local_result *res)
{
	double *upkeep = res->upkeep_ms;
	res->events += (long)l->n;
	for (int c = 0; c < 2; c++) {
		double t0 = now_ms();
		for (size_t i = 0; i < l->n; i++)
			bot_event(b[c], &l->v[i]);
		upkeep[c] += now_ms() - t0;
	}
}

void local_measure(struct bot *b, const struct board *truth, struct local_belief_stats *s)
{
	/* On a copy: settling resamples (drawing from the belief's generator)
	 * and may turn an exact set into a sample, which the bot itself does
	 * only when it uses the set; the measurement must not change the bot. */
	struct belief *c = belief_clone(b->bel);
	belief_set_deadline(c, NULL, NULL, 0); /* measured whole, whatever the bot's deadline */
	belief_settle(c);
	bool exact = belief_is_exact(c);
	double r = belief_rank(c, truth);
	if (exact) {
		s->exact_plies++;
		s->exact_in += r >= 0;
		s->exact_top += r >= 0 && r < 0.5;
	} else {
		s->sampled_plies++;
		s->sampled_in += r >= 0;
		s->sampled_top += r >= 0 && r < 0.5;
		if (c->opp_men >= 1 && c->opp_men <= BELIEF_FEW_MEN) {
			s->few_plies++;
			s->few_in += r >= 0;
		}
	}
	s->lost = (long)c->lost;
	s->rejuvenations = (long)c->rejuvenations;
	s->reexact = (long)c->reexact;
	s->respread = (long)c->respread;
	s->reanchored = (long)c->reanchored;
	belief_free(c);
}

/* Apply one action, as kriegd does (referee_apply), and keep it in the
 * record when asked: every action the referee took, in order. */
static int apply(struct referee *r, const struct local_opts *o, struct local_result *res, int kind, int color,
                 const char *text, struct evlist *l)
{
	struct action a;
	if (action_set(&a, kind, color, text) != REF_OK)
		return REF_E_BAD_ARGUMENT;
	int st = referee_apply(r, &a, l);
	if (st == REF_OK && o->record) {
		res->acts = xgrow(res->acts, &res->capacts, res->nacts + 1, sizeof *res->acts, 64);
		res->acts[res->nacts++] = a;
	}
	return st;
}

int local_play(const struct ruleset *rs, enum bot_level white, enum bot_level black, const struct local_opts *o,
               struct local_result *res, char *err, size_t errlen)
{
	memset(res, 0, sizeof *res);
	struct referee *r = referee_new(rs, o->fen, err, errlen);
	if (!r)
		return -1;
	struct board start;
	if (o->fen) {
		if (fen_parse(o->fen, &start, err, errlen) != 0) {
			referee_free(r);
			return -1;
		}
	} else {
		board_start(&start);
	}
	const struct belief_limits *lim = o->lim.particles ? &o->lim : NULL;
	struct bot *b[2] = {
		bot_new(white, rs, &start, WHITE, o->seed * 2 + 1, lim),
		bot_new(black, rs, &start, BLACK, o->seed * 2 + 2, lim),
	};
	/* what taking in the events before the first decision may use (bot.h); 0: no deadline */
	for (int c = 0; c < 2; c++)
		b[c]->budget_ms = o->movetime_ms;
	struct evlist l;
	evlist_init(&l);
	apply(r, o, res, ACTION_BEGIN, WHITE, "", &l);
	deliver(b, &l, res);
	int errors = 0, plies = 0;
	while (!referee_over(r)) {
		if (referee_plies(r) >= (o->max_plies > 0 ? o->max_plies : LOCAL_PLIES_MAX))
			break;
		int side = referee_side_to_move(r);
		move_t m;
		int64_t t0 = mstime_mono();
		enum bot_action a = bot_choose(b[side], o->movetime_ms, &m);
		res->ms[side] += (long)(mstime_mono() - t0);
		evlist_clear(&l);
		int st;
		if (a == BOT_ANY) {
			st = apply(r, o, res, ACTION_ANY, side, "", &l);
		} else if (a == BOT_TRY) {
			char text[NOTATION_MAX];
			notation_uci(m, text);
			st = apply(r, o, res, ACTION_TRY, side, text, &l);
		} else {
			st = REF_E_BAD_ARGUMENT; /* nothing to try: cannot happen with a legal move left */
		}
		res->tries[side]++;
		if (st != REF_OK) {
			if (++errors >= LOCAL_ERRORS_MAX || a == BOT_WAIT) {
				evlist_clear(&l);
				apply(r, o, res, ACTION_END, side, game_reason_name(REASON_RESIGNATION), &l);
				deliver(b, &l, res);
			}
			continue;
		}
		deliver(b, &l, res);
		if (referee_plies(r) != plies) {
			plies = referee_plies(r);
			res->moves[side]++;
			errors = 0;
			if (o->check_belief && !referee_over(r))
				for (int c = 0; c < 2; c++)
					local_measure(b[c], referee_board(r), &res->bs[c]);
		}
	}
	for (int c = 0; c < 2; c++)
		res->searched[c] = b[c]->searched;
	res->result = referee_result(r);
	res->reason = referee_reason(r);
	res->plies = referee_plies(r);
	evlist_free(&l);
	bot_free(b[0]);
	bot_free(b[1]);
	referee_free(r);
	return 0;
}

void local_krk_fen(uint64_t seed, char *fen, size_t len)
{
	/* Taken as the generator's state itself, seed s + 1 would draw seed s's
	 * numbers shifted by one (the state steps by a constant): 73 distinct
	 * starts in seeds 1..100, one of them six times. */
	uint64_t r = seed;
	r = belief_rand(&r);
	for (;;) {
		int wk = (int)(belief_rand(&r) % 64), wr = (int)(belief_rand(&r) % 64), bk = (int)(belief_rand(&r) % 64);
		if (wk == wr || wk == bk || wr == bk)
			continue;
		struct board b;
		board_clear(&b);
		board_put(&b, WHITE, KING, wk);
		board_put(&b, WHITE, ROOK, wr);
		board_put(&b, BLACK, KING, bk);
		char f[FEN_MAX], err[128];
		fen_format(&b, f, sizeof f);
		struct board chk;
		/* fen_parse refuses adjacent kings and the side not to move in check */
		if (fen_parse(f, &chk, err, sizeof err) != 0 || movegen_count(&chk) == 0)
			continue;
		snprintf(fen, len, "%s", f);
		return;
	}
}

void local_stats_add(struct local_belief_stats *to, const struct local_belief_stats *from)
{
	to->exact_plies += from->exact_plies;
	to->exact_in += from->exact_in;
	to->exact_top += from->exact_top;
	to->sampled_plies += from->sampled_plies;
	to->sampled_in += from->sampled_in;
	to->sampled_top += from->sampled_top;
	to->lost += from->lost;
	to->rejuvenations += from->rejuvenations;
	to->reexact += from->reexact;
	to->respread += from->respread;
	to->reanchored += from->reanchored;
	to->few_plies += from->few_plies;
	to->few_in += from->few_in;
}
