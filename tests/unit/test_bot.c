/*
 * test_bot.c — krieg-bot's player (client-cli/bot/bot.h) beyond its
 * belief (test_belief.c): what it remembers of its own arrangements and
 * how that steers its choice away from repeating the position.
 *
 * A referee holds the true game; the bot is handed only the events
 * addressed to its colour, as kriegd and the arena hand them.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "bitboard.h"
#include "bot.h"
#include "check_main.h"
#include "fen.h"
#include "local.h"
#include "movegen.h"
#include "mstime.h"
#include "notation.h"
#include "referee.h"
#include "ruleset.h"
#include "session.h"

struct g {
	struct referee *r;
	struct bot *b;
	struct evlist ev;
	size_t next;
};

static void g_open_lim(struct g *g, enum bot_level level, const char *fen, int color, uint64_t seed,
                       const struct belief_limits *lim)
{
	char err[128];
	struct board start;
	memset(g, 0, sizeof *g);
	ck_assert_int_eq(fen_parse(fen, &start, err, sizeof err), 0);
	g->r = referee_new(ruleset_default(), fen, err, sizeof err);
	ck_assert_ptr_nonnull(g->r);
	g->b = bot_new(level, ruleset_default(), &start, color, seed, lim);
	evlist_init(&g->ev);
	ck_assert_int_eq(referee_begin(g->r, &g->ev), REF_OK);
}

static void g_open(struct g *g, enum bot_level level, const char *fen, int color, uint64_t seed)
{
	g_open_lim(g, level, fen, color, seed, NULL);
}

static void g_feed(struct g *g)
{
	while (g->next < g->ev.n)
		bot_event(g->b, &g->ev.v[g->next++]);
}

/* A try that the referee must accept. */
static void g_move(struct g *g, int color, const char *move)
{
	g_feed(g);
	size_t before = g->ev.n;
	ck_assert_int_eq(referee_attempt(g->r, color, move, &g->ev), REF_OK);
	bool played = false;
	for (size_t i = before; i < g->ev.n; i++)
		played |= g->ev.v[i].type == EV_MOVE;
	ck_assert_msg(played, "%s was not played", move);
	g_feed(g);
}

static move_t g_own(struct g *g, const char *uci)
{
	int from = (uci[0] - 'a') + 8 * (uci[1] - '1'), to = (uci[2] - 'a') + 8 * (uci[3] - '1');
	struct movelist ml;
	view_possible(&g->b->view, &ml);
	for (int i = 0; i < ml.n; i++)
		if (move_from(ml.m[i]) == from && move_to(ml.m[i]) == to)
			return ml.m[i];
	ck_abort_msg("%s is not a possible try", uci);
	return MOVE_NONE;
}

static void g_close(struct g *g)
{
	bot_free(g->b);
	referee_free(g->r);
	evlist_free(&g->ev);
}

/*
 * White's king goes e1-e2-e1 while Black's king walks on: White's men come
 * back to where they were, the whole position does not (a threefold
 * repetition would end the game).  n: the first shuffle or the second.
 */
static void shuffle(struct g *g, int n)
{
	static const char *const black[2][2] = { { "e8d8", "d8d7" }, { "d7c7", "c7c8" } };
	g_move(g, WHITE, "e1e2");
	g_move(g, BLACK, black[n][0]);
	g_move(g, WHITE, "e2e1");
	g_move(g, BLACK, black[n][1]);
}

START_TEST(test_repeats_counted_after_own_moves)
{
	struct g g;
	/* Black's pawn on h4 blocks the rook's file: h1-h8 is refused */
	g_open(&g, BOT_GREEDY, "4k3/8/8/8/7p/8/8/4K2R w - - 0 1", WHITE, 1);
	/* the start had White to move: not comparable with what follows our moves */
	ck_assert_int_eq(bot_repeats(g.b, g_own(&g, "e1e2")), 0);
	shuffle(&g, 0);
	ck_assert_int_eq(bot_repeats(g.b, g_own(&g, "e1e2")), 1);
	ck_assert_int_eq(bot_repeats(g.b, g_own(&g, "e1d2")), 0);
	/* the rook's square is part of our arrangement */
	ck_assert_int_eq(bot_repeats(g.b, g_own(&g, "h1h2")), 0);
	shuffle(&g, 1);
	ck_assert_int_eq(bot_repeats(g.b, g_own(&g, "e1e2")), 2);
	/* a refused try is not a move: nothing is remembered */
	int seen = g.b->nseen;
	g_feed(&g);
	ck_assert_int_eq(referee_attempt(g.r, WHITE, "h1h8", &g.ev), REF_OK);
	ck_assert_int_eq(g.ev.v[g.ev.n - 1].type == EV_MOVE, 0);
	g_feed(&g);
	ck_assert_int_eq(g.b->nseen, seen);
	ck_assert_int_eq(bot_repeats(g.b, g_own(&g, "e1e2")), 2);
	g_close(&g);
}
END_TEST

START_TEST(test_black_remembers_the_start)
{
	struct g g;
	/* Black's men as they stand with White to move: the arrangement its moves come back to */
	g_open(&g, BOT_GREEDY, "4k3/8/8/8/8/8/8/4K2R w - - 0 1", BLACK, 1);
	g_move(&g, WHITE, "e1d1");
	ck_assert_int_eq(bot_repeats(g.b, g_own(&g, "e8e7")), 0);
	g_move(&g, BLACK, "e8e7");
	g_move(&g, WHITE, "d1e1");
	ck_assert_int_eq(bot_repeats(g.b, g_own(&g, "e7e8")), 1);
	g_close(&g);
}
END_TEST

/*
 * King and rook against a lone king, White's arrangement after Ke2 seen
 * twice: a third time could be the draw the referee declares (White cannot
 * tell).  Winning, the searching levels never choose the try that repeats
 * its arrangement a third time while others are open.
 */
START_TEST(test_winning_side_avoids_the_third_repetition)
{
	static const enum bot_level lv[] = { BOT_GREEDY, BOT_FULL };
	for (size_t l = 0; l < sizeof lv / sizeof lv[0]; l++) {
		for (uint64_t seed = 1; seed <= 6; seed++) {
			struct g g;
			g_open(&g, lv[l], "4k3/8/8/8/8/8/8/4K2R w - - 0 1", WHITE, seed);
			shuffle(&g, 0);
			shuffle(&g, 1);
			move_t rep = g_own(&g, "e1e2");
			ck_assert_int_eq(bot_repeats(g.b, rep), 2);
			move_t m;
			ck_assert_int_eq(bot_choose(g.b, 20, &m), BOT_TRY);
			ck_assert_msg(bot_repeats(g.b, m) < 2, "%s seed %llu repeated a third time",
			              bot_level_name(lv[l]), (unsigned long long)seed);
			g_close(&g);
		}
	}
}
END_TEST

/*
 * A node below the root gathers the moves of every determinization that
 * reaches it: with the opponent's men spread over many positions, far more
 * than a position's 218 at most.  The search indexes a node's children by
 * move; it must hold them all.  Regression: an index of 512 slots (open
 * addressing) spun forever once a node had more children than slots
 * (`arena --rules icc --movetime 100` hung in the first game).
 */
START_TEST(test_search_wide_nodes)
{
	struct g g;
	g_open(&g, BOT_FULL, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", WHITE, 3);
	/* the same belief and search on any machine, however loaded: set before
	 * the moves, whose events had the wall clock's deadline (a loaded CI
	 * machine's belief held fewer positions: 450 children, not > 512) */
	g.b->iterations = 100000;
	static const char *const moves[] = { "a2a3", "e7e5", "h2h3", "d7d5", "a3a4", "g7g6", "h3h4", "b7b6", "b2b3", "c7c5" };
	for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++)
		g_move(&g, i % 2 ? BLACK : WHITE, moves[i]);
	move_t m;
	ck_assert_int_eq(bot_choose(g.b, 0, &m), BOT_TRY);
	ck_assert_int_ne(m, MOVE_NONE);
	ck_assert_msg(g.b->widest > 512, "the widest node had %d children: the case is not reached", g.b->widest);
	g_close(&g);
}
END_TEST

/*
 * Black, to move, has king h8 and pawns a7, b7 and c7; White has king f6
 * and queen a2.  Black plays a7-a6, which White is not told: seven moves
 * were possible (Kh7 and six of the pawns).  With room for 4, White's
 * belief is a sample of them.  Qf7 leaves a king still on h8 no square and
 * gives no check (and Qg7 mates next); Qe6 leaves it h7; a king on h7 has
 * squares after either.  rank7: Black's pawns.
 */
#define BOX_FEN(rank7) "7k/" rank7 "/5K2/8/8/8/Q7/8 b - - 0 1"

static void box_open(struct g *g, const char *fen, uint64_t seed, size_t room)
{
	struct belief_limits lim = { .exact_max = room, .particles = room };
	g_open_lim(g, BOT_FULL, fen, WHITE, seed, &lim);
	g->b->iterations = 20000;   /* no deadline on the event's work: the same belief however loaded */
	g_move(g, BLACK, "a7a6");
	belief_settle(g->b->bel);
}

/* The weight of the belief's positions with Black's king still on h8. */
static double king_stayed(const struct belief *bel)
{
	double in = 0, all = 0;
	for (size_t i = 0; i < bel->n; i++) {
		all += bel->h[i].w;
		if (board_king(&bel->h[i].b, BLACK) == 63)
			in += bel->h[i].w;
	}
	return in / all;
}

START_TEST(test_box_share)
{
	struct g g;
	box_open(&g, BOX_FEN("ppp5"), 1, 4);
	ck_assert(!belief_is_exact(g.b->bel));
	ck_assert_int_eq(g.b->bel->opp_men, 4);
	double stayed = king_stayed(g.b->bel);
	ck_assert_msg(stayed > 0.3, "the king stayed in %.3f of the sample", stayed);
	ck_assert_double_eq_tol(bot_box_share(g.b, g_own(&g, "a2f7")), stayed, 1e-9);
	/* on e6 the queen leaves h7 open; on a8 it checks a king on h8 */
	ck_assert_double_eq(bot_box_share(g.b, g_own(&g, "a2e6")), 0);
	ck_assert_double_eq(bot_box_share(g.b, g_own(&g, "a2a8")), 0);
	g_close(&g);

	/* An exact belief holds the true position: the search sees its stalemates. */
	box_open(&g, BOX_FEN("ppp5"), 1, BELIEF_EXACT_MAX);
	ck_assert(belief_is_exact(g.b->bel));
	ck_assert_double_eq(bot_box_share(g.b, g_own(&g, "a2f7")), 0);
	g_close(&g);

	/* Beside BOT_BOX_MEN men or more, a boxed king is no risk. */
	box_open(&g, BOX_FEN("pppp4"), 1, 4);
	ck_assert(!belief_is_exact(g.b->bel));
	ck_assert_int_gt(g.b->bel->opp_men, BOT_BOX_MEN);
	ck_assert_double_eq(bot_box_share(g.b, g_own(&g, "a2f7")), 0);
	g_close(&g);
}
END_TEST

/*
 * The same position: Qf7 boxes the king in wherever it stayed, and Qg7
 * mates next; in the sample the pawns can always move, so the search
 * alone likes it best.  (Here the pawns can move, and Qf7 would have mated
 * in two: the price of not trusting the sample with the last men.  The bot
 * mates with checks instead.)  Regression (english games
 * against `random`, BENCHMARKS.md): such a box stalemated the few men the
 * sample had wrong.  full chooses another try.
 */
START_TEST(test_full_does_not_box_the_king_in)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct g g;
		box_open(&g, BOX_FEN("ppp5"), seed, 4);
		move_t m;
		ck_assert_int_eq(bot_choose(g.b, 0, &m), BOT_TRY);   /* box_open's 20000 iterations */
		ck_assert_msg(bot_box_share(g.b, m) < 0.1, "seed %llu: a try that boxes the king in %.3f",
		              (unsigned long long)seed, bot_box_share(g.b, m));
		g_close(&g);
	}
}
END_TEST

static int cmp_str(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/*
 * The K+R ending's starts (`krk-fen --seed 1..100`, the benchmark's "100
 * random legal starts"): each is legal with White's king and rook against
 * Black's king, White to move and Black not stalemated; the same seed
 * gives the same start, and the hundred are a hundred.  Regression: the
 * seed started the generator as it was, so seed s + 1 drew seed s's
 * numbers shifted by one: 73 distinct starts, one of them six times.
 */
START_TEST(test_krk_starts)
{
	enum { N = 100 };
	static char fen[N][FEN_MAX];
	for (int i = 0; i < N; i++) {
		local_krk_fen((uint64_t)i + 1, fen[i], sizeof fen[i]);
		struct board b;
		char err[128];
		ck_assert_msg(fen_parse(fen[i], &b, err, sizeof err) == 0, "%s: %s", fen[i], err);
		ck_assert_int_eq(b.side, WHITE);
		ck_assert_int_eq(bb_count(b.pieces[WHITE][KING]) + bb_count(b.pieces[WHITE][ROOK]), 2);
		ck_assert(b.occ[WHITE] == (b.pieces[WHITE][KING] | b.pieces[WHITE][ROOK]));
		ck_assert(b.occ[BLACK] == b.pieces[BLACK][KING] && b.occ[BLACK] != 0);
		ck_assert_int_gt(movegen_count(&b), 0);
		char again[FEN_MAX];
		local_krk_fen((uint64_t)i + 1, again, sizeof again);
		ck_assert_str_eq(again, fen[i]);
	}
	qsort(fen, N, sizeof fen[0], cmp_str);
	for (int i = 1; i < N; i++)
		ck_assert_msg(strcmp(fen[i - 1], fen[i]) != 0, "%s twice", fen[i]);
}
END_TEST

/*
 * The clock's budget is shared among the games the bot plays at once: one
 * thread thinks for them all, and each game's clock runs while it thinks
 * for the others.  With a whole share each, two or three 1+0 games lost on
 * time (probe: 02e0a0a's integration check measured 29 s left on the bot's
 * clock after 20 moves with the share, 15.5 s without).
 */
START_TEST(test_budget_shared_among_games)
{
	ck_assert_int_eq(sess_budget_ms(60000, 0, 1), 1500);
	ck_assert_int_eq(sess_budget_ms(60000, 0, 2), 750);
	ck_assert_int_eq(sess_budget_ms(60000, 0, 3), 500);
	ck_assert_int_eq(sess_budget_ms(60000, 0, 0), 1500);   /* the game itself, at least */
	ck_assert_int_eq(sess_budget_ms(120000, 2000, 2), (3000 + 1500) / 2);
	ck_assert_int_eq(sess_budget_ms(-500, 0, 1), 20);        /* flag near: the floor */
	ck_assert_int_eq(sess_budget_ms(3600000, 0, 1), 10000);  /* a long game: the cap */
}
END_TEST

/* A game of s in slot i: on the clock with left ms (inc 0), untimed (-1),
 * or by correspondence (corr, a deadline a day away). */
static void budget_game(struct sess *s, int i, long left, bool corr)
{
	static struct bot *placeholder;   /* sess_budget reads only whether a slot holds a bot */
	s->games[i].bot = (struct bot *)&placeholder;
	s->games[i].clock_ms = corr ? 86400000 : left;
	s->games[i].clock_at = mstime_mono();
	s->games[i].corr = corr;
}

/*
 * An untimed or correspondence game thinks a second at most, and no
 * longer than the share of a game on the clock: one thread thinks for all,
 * and that clock runs meanwhile (bot probe: three correspondence games
 * thinking the 10 s cap each, or three untimed ones at 1 s each, lost a
 * 1+0 game on time).
 */
START_TEST(test_budget_of_games_off_the_clock)
{
	struct sess *s = calloc(1, sizeof *s);
	budget_game(s, 0, 0, true);
	ck_assert_int_eq(sess_budget(s, &s->games[0]), 1000);     /* a day's deadline is no clock */
	budget_game(s, 1, 60020, false);   /* and a 1+0 game (20 ms to spare: the clock reads on) */
	ck_assert_int_eq(sess_budget(s, &s->games[1]), 750);
	ck_assert_int_eq(sess_budget(s, &s->games[0]), 750);
	budget_game(s, 2, 0, true);
	budget_game(s, 3, -1, false);                             /* two more off the clock */
	ck_assert_int_eq(sess_budget(s, &s->games[1]), 375);      /* every live game shares */
	ck_assert_int_eq(sess_budget(s, &s->games[2]), 375);
	ck_assert_int_eq(sess_budget(s, &s->games[3]), 375);
	s->games[1].clock_ms = 3600000;                           /* an hour: the 10 s cap */
	ck_assert_int_eq(sess_budget(s, &s->games[1]), 10000);
	ck_assert_int_eq(sess_budget(s, &s->games[3]), 1000);     /* a second at most all the same */
	s->games[1].clock_ms = 60020;
	s->games[1].clock_at = mstime_mono();
	s->games[1].ply = 20;                                     /* ten moves of ours ... */
	s->games[1].decisions = 31;                               /* ... three decisions each */
	ck_assert_int_eq(sess_budget(s, &s->games[1]), 125);      /* a decision's share: a third */
	ck_assert_int_eq(sess_budget(s, &s->games[3]), 125);
	s->games[1].decisions = 900;                              /* at most an eighth */
	ck_assert_int_eq(sess_budget(s, &s->games[1]), 46);
	s->games[1].ply = 60;                                     /* reopened after a lost connection: */
	s->games[1].decision_ply = 40;                            /* counted from its first decision since */
	s->games[1].decisions = 31;
	ck_assert_int_eq(sess_budget(s, &s->games[1]), 125);
	s->movetime_ms = 250;                                     /* --movetime rules them all */
	ck_assert_int_eq(sess_budget(s, &s->games[0]), 250);
	ck_assert_int_eq(sess_budget(s, &s->games[1]), 250);
	free(s);
}
END_TEST

/*
 * Regression (the bot-hosting probe): a 5+2 game and a 1+0 game at once.
 * The 5+2 game spent its own share, 4 s a move, while the 1+0 game's clock
 * ran (37 s left, a 470 ms share): the 1+0 game was lost on time.  No
 * decision takes longer than any clocked game's share.
 */
START_TEST(test_budget_of_a_slow_game_beside_a_fast_one)
{
	struct sess *s = calloc(1, sizeof *s);
	budget_game(s, 0, 290020, false);   /* 5+2: 4:50 left */
	s->games[0].inc_ms = 2000;
	ck_assert_int_eq(sess_budget(s, &s->games[0]), 7250 + 1500);   /* alone: its own share */
	budget_game(s, 1, 37530, false);    /* 1+0: 37.5 s left */
	ck_assert_int_eq(sess_budget(s, &s->games[1]), 938 / 2);
	ck_assert_int_eq(sess_budget(s, &s->games[0]), 938 / 2);      /* not (7250 + 1500) / 2 */
	free(s);
}
END_TEST

/*
 * The games on the clock are offered the pace's tokens first, the least
 * time left first; the rest take turns from the one after the last to try
 * (bot probe: with four 1+0 games, one near its flag waited behind the
 * others' tries for each of its own, and half of them lost on time).
 */
START_TEST(test_turns_by_the_clock)
{
	struct sess *s = calloc(1, sizeof *s);
	budget_game(s, 0, -1, false);      /* untimed */
	budget_game(s, 1, 30000, false);
	budget_game(s, 2, 0, true);        /* by correspondence */
	budget_game(s, 3, 5000, false);
	s->try_turn = 2;
	int order[SESS_GAMES_MAX];
	sess_turn_order(s, mstime_mono(), order);
	ck_assert_int_eq(order[0], 3);
	ck_assert_int_eq(order[1], 1);
	int k = 2;
	for (int j = 0; j < SESS_GAMES_MAX; j++) {   /* then in turn from slot 2 */
		int i = (2 + j) % SESS_GAMES_MAX;
		if (i != 1 && i != 3)
			ck_assert_int_eq(order[k++], i);
	}
	ck_assert_int_eq(k, SESS_GAMES_MAX);
	s->games[1].clock_at -= 26000;     /* 4 s left now: first */
	sess_turn_order(s, mstime_mono(), order);
	ck_assert_int_eq(order[0], 1);
	ck_assert_int_eq(order[1], 3);
	free(s);
}
END_TEST

/*
 * play's reconnection waits: 1 s doubling to a minute with no game at
 * stake; with one, never more than SESS_RETRY_GAMES_MS, so that a server
 * back from an outage sees the bot again well within its abandonment grace
 * (the minute-long waits cost it games an outage had spared).
 */
START_TEST(test_retry_short_while_games_wait)
{
	long d = 0;
	for (int i = 0; i < 10; i++)
		d = sess_retry_ms(d, false);
	ck_assert_int_eq(d, SESS_RETRY_MAX_MS);
	ck_assert_int_eq(sess_retry_ms(0, false), SESS_RETRY_FIRST_MS);
	ck_assert_int_eq(sess_retry_ms(4000, false), 8000);
	d = 0;
	for (int i = 0; i < 50; i++) {
		d = sess_retry_ms(d, true);
		ck_assert_int_le(d, SESS_RETRY_GAMES_MS);
	}
	ck_assert_int_eq(d, SESS_RETRY_GAMES_MS);
	ck_assert_int_eq(sess_retry_ms(SESS_RETRY_MAX_MS, true), SESS_RETRY_GAMES_MS);   /* a game since */
}
END_TEST

/*
 * play's pacing of tries (a token bucket under kriegd's request rate): a
 * burst of min(rate, SESS_RATE_BURST_MAX), then one every 1000/rate ms;
 * a try refused rate_limited halves the rate (1 at least) and empties the
 * bucket; rate 0 (the arena) is never held.
 */
START_TEST(test_pace_bucket)
{
	struct sess_pace p = { .rate = SESS_RATE_DEFAULT, .max = SESS_RATE_DEFAULT };
	int64_t t = 1000000;
	int n = 0;
	while (sess_pace_take(&p, t))
		n++;
	ck_assert_int_eq(n, SESS_RATE_DEFAULT < SESS_RATE_BURST_MAX ? SESS_RATE_DEFAULT : SESS_RATE_BURST_MAX);
	long w = sess_pace_wait_ms(&p, t);
	ck_assert_int_ge(w, 1000 / SESS_RATE_DEFAULT);
	ck_assert_int_le(w, 1000 / SESS_RATE_DEFAULT + 1);
	ck_assert(!sess_pace_take(&p, t + w - 2));
	ck_assert(sess_pace_take(&p, t + w));
	/* over ten seconds, at most rate a second beside the burst */
	n = 0;
	for (int64_t u = t + w; u < t + w + 10000; u++)
		n += sess_pace_take(&p, u);
	ck_assert_int_ge(n, 10 * SESS_RATE_DEFAULT - 1);
	ck_assert_int_le(n, 10 * SESS_RATE_DEFAULT + 1);
	/* refused: half the rate, nothing left */
	t += 20000;
	ck_assert_int_eq(sess_pace_slower(&p, t - 5, t), SESS_RATE_DEFAULT / 2);
	ck_assert(!sess_pace_take(&p, t));
	ck_assert_int_eq(sess_pace_wait_ms(&p, t), 1000 / (SESS_RATE_DEFAULT / 2) + 1);
	/* the other tries of that burst (sent before the halving) change
	 * nothing more (regression: each halved again, 15 to 1 at once) */
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(sess_pace_slower(&p, t - 3, t + 1 + i), SESS_RATE_DEFAULT / 2);
	/* a try sent after it, refused: halved again; down to 1 at least */
	for (int i = 0; i < 10; i++)
		sess_pace_slower(&p, t + 20 + i, t + 20 + i);
	ck_assert_int_eq(p.rate, 1);
	t += 29;
	ck_assert(!sess_pace_take(&p, t + 999));
	ck_assert(sess_pace_take(&p, t + 1000));
	/* without a refusal, one a second more each SESS_RATE_RECOVER_MS, up
	 * to --rate */
	int64_t u = t + 1000;
	for (int step = 2; step <= SESS_RATE_DEFAULT; step++) {
		u += SESS_RATE_RECOVER_MS;
		sess_pace_take(&p, u);
		ck_assert_int_eq(p.rate, step);
	}
	u += 10 * SESS_RATE_RECOVER_MS;
	sess_pace_take(&p, u);
	ck_assert_int_eq(p.rate, SESS_RATE_DEFAULT);
	/* a burst never beyond SESS_RATE_BURST_MAX, however fast the rate */
	struct sess_pace fast = { .rate = SESS_RATE_MAX };
	n = 0;
	while (sess_pace_take(&fast, t))
		n++;
	ck_assert_int_eq(n, SESS_RATE_BURST_MAX);
	/* not paced */
	struct sess_pace none = { 0 };
	for (int i = 0; i < 1000; i++)
		ck_assert(sess_pace_take(&none, t));
	ck_assert_int_eq(sess_pace_wait_ms(&none, t), 0);
}
END_TEST

/* A clock that moves one unit each time it is read: the bot's time is its work. */
struct fake_clock {
	int64_t now;
};

static int64_t fake_clock_read(void *ctx)
{
	return ++((struct fake_clock *)ctx)->now;
}

static bool possible(const struct movelist *ml, move_t m)
{
	for (int i = 0; i < ml->n; i++)
		if (ml->m[i] == m)
			return true;
	return false;
}

/*
 * A decision's budget covers the belief's work (bot.h), in crazykrieg
 * (drops: the widest replays).  The bot (White, full, 64 particles) plays
 * Black's random legal moves on a clock of its own that moves one unit a
 * read (the belief reads it before each replay), so the test runs the same
 * on any machine.  Between two decisions, events and settling included,
 * the belief replays no more histories than the budget's units, beyond
 * the few (BELIEF_REJUV_MIN_TRIES) a set to be replaced is given past its
 * deadline.  Every fourth decision has a budget of 1, which the events
 * have used up before it starts: it still answers with a try it may make,
 * after a minimal search (MCTS_ITER_MIN, 64 iterations).  Regression: the
 * belief's work had no bound (33 s over one decision at `--movetime 20`:
 * rejuvenations of thousands of replays, outside the search's budget).
 */
START_TEST(test_belief_work_within_budget)
{
	enum { BUDGET = 40 };
	const struct ruleset *rs = ruleset_find("crazykrieg");
	const char *fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
	char err[128];
	struct board start;
	ck_assert_int_eq(fen_parse(fen, &start, err, sizeof err), 0);
	struct referee *r = referee_new(rs, fen, err, sizeof err);
	ck_assert_ptr_nonnull(r);
	struct belief_limits lim = { .exact_max = 1000, .particles = 64 };
	struct bot *b = bot_new(BOT_FULL, rs, &start, WHITE, 5, &lim);
	struct fake_clock clk = { 0 };
	b->clock = fake_clock_read;
	b->clock_ctx = &clk;
	b->budget_ms = BUDGET;
	struct evlist ev;
	evlist_init(&ev);
	ck_assert_int_eq(referee_begin(r, &ev), REF_OK);
	size_t next = 0;
	uint64_t rng = 9;
	unsigned long replays = 0, rejuv = 0;
	int decisions = 0, minimal = 0;
	while (decisions < 120 && referee_plies(r) < 50 && !referee_over(r)) {
		for (; next < ev.n; next++)
			bot_event(b, &ev.v[next]);
		if (referee_side_to_move(r) == BLACK) {
			struct movelist ml;
			movegen_legal(referee_board(r), &ml);
			char text[NOTATION_MAX];
			notation_uci(ml.m[belief_rand(&rng) % (uint64_t)ml.n], text);
			ck_assert_int_eq(referee_attempt(r, BLACK, text, &ev), REF_OK);
			continue;
		}
		struct movelist ml;
		view_possible(&b->view, &ml);
		bool past = decisions % 4 == 3;
		long searched = b->searched;
		move_t m;
		enum bot_action a = bot_choose(b, past ? 1 : BUDGET, &m);
		decisions++;
		const struct belief *bel = b->bel;
		ck_assert_msg(bel->replays - replays <= BUDGET + BELIEF_REJUV_MIN_TRIES * (bel->rejuvenations - rejuv),
		              "decision %d: %lu replays", decisions, bel->replays - replays);
		replays = bel->replays;
		rejuv = bel->rejuvenations;
		if (a == BOT_ANY) {
			ck_assert_int_eq(referee_any(r, WHITE, &ev), REF_OK);
			continue;
		}
		ck_assert_int_eq(a, BOT_TRY);
		ck_assert_msg(possible(&ml, m), "decision %d: not a try it may make", decisions);
		if (past) {
			ck_assert_int_le(b->searched - searched, 64);
			minimal++;
		}
		char text[NOTATION_MAX];
		notation_uci(m, text);
		ck_assert_int_eq(referee_attempt(r, WHITE, text, &ev), REF_OK);
	}
	ck_assert_int_gt(minimal, 0);
	ck_assert_uint_gt(b->bel->cut, 0);
	bot_free(b);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

/* Regression (the time-control probe): --time read with strtod(), so
 * "0.01+0" (600 ms, which the server refuses), "0x10+0" and "1e1+0" were
 * taken, and "1:40+0.5" and "5+0.5", which krieg's seek and challenge
 * write (krieg-bot.1: --time takes them as krieg writes them), refused.
 * It reads them as krieg does now (common/timectl.h). */
START_TEST(test_time_controls_read_as_krieg_writes_them)
{
	static const struct { const char *t; long base, inc; int days; } ok[] = {
		{ "1:40+0.5", 100000, 500, 0 }, { "5+0.5", 300000, 500, 0 }, { "5+2", 300000, 2000, 0 },
		{ "0.5+0", 30000, 0, 0 },      { "10", 600000, 0, 0 },      { "3d", 0, 0, 3 },
		{ "untimed", 0, 0, 0 },        { "none", 0, 0, 0 },         { "1440+600", 86400000, 600000, 0 },
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		struct tc tc = { -1, -1, -1 };
		ck_assert_msg(sess_tc_parse(ok[i].t, &tc) == 0, "\"%s\" refused", ok[i].t);
		ck_assert_msg(tc.base_ms == ok[i].base && tc.inc_ms == ok[i].inc && tc.days == ok[i].days,
		              "\"%s\": %ld+%ld %dd", ok[i].t, tc.base_ms, tc.inc_ms, tc.days);
	}
	static const char *const bad[] = { "0.01+0", "0x10+0", "1e1+0", "3.0d", "0:00.5", "1:60", "5+601",
		                           "61d",    "1441",   "",      "5+",   "+5",     "0+2" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct tc tc = { 1, 1, 1 };
		ck_assert_msg(sess_tc_parse(bad[i], &tc) == -1, "\"%s\" read: %ld+%ld", bad[i], tc.base_ms, tc.inc_ms);
		ck_assert_msg(tc.base_ms == 0 && tc.inc_ms == 0 && tc.days == 0, "\"%s\"", bad[i]);
	}
}
END_TEST

static Suite *bot_suite(void)
{
	Suite *s = suite_create("bot");
	TCase *tc = tcase_create("bot");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_repeats_counted_after_own_moves);
	tcase_add_test(tc, test_budget_shared_among_games);
	tcase_add_test(tc, test_budget_of_games_off_the_clock);
	tcase_add_test(tc, test_budget_of_a_slow_game_beside_a_fast_one);
	tcase_add_test(tc, test_turns_by_the_clock);
	tcase_add_test(tc, test_black_remembers_the_start);
	tcase_add_test(tc, test_winning_side_avoids_the_third_repetition);
	tcase_add_test(tc, test_krk_starts);
	tcase_add_test(tc, test_search_wide_nodes);
	tcase_add_test(tc, test_box_share);
	tcase_add_test(tc, test_full_does_not_box_the_king_in);
	tcase_add_test(tc, test_belief_work_within_budget);
	tcase_add_test(tc, test_retry_short_while_games_wait);
	tcase_add_test(tc, test_pace_bucket);
	tcase_add_test(tc, test_time_controls_read_as_krieg_writes_them);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(bot_suite)
