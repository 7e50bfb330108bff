/*
 * fuzz_referee.c — random action sequences through referee_apply (the
 * one way a record's action reaches the referee), checked after every
 * action against the invariants of the core:
 *   - a refused action changes nothing: the state hash, the FEN, the side
 *     to move and the plies are as before, and no event is appended;
 *   - every event's audience is a valid set (non-empty, known bits only),
 *     and a move is never addressed to the other side or spectators;
 *   - each player's view, built from that player's events alone
 *     (common/view.h), never disagrees with the umpire's board: own
 *     pieces, castling rights, side to move, game over, and the tries
 *     still possible this turn;
 *   - a copy (referee_copy, what the replay cache keeps as a mark), made
 *     at the step the input's length picks, rules every later action as
 *     the original does: the same status, the same events, the same
 *     board, side to move, plies and ending.
 *   - krieg-bot's belief of each player (client-cli/bot/belief.h), fed
 *     that player's events alone, holds the true position after every
 *     action while the set is exact (issue 14's "100% of plies while
 *     exact", here under tries out of turn, impossible and garbage text,
 *     "any?", nost's lists and the endings, in every rule set).  A belief
 *     that turns into a sample is dropped: a sample may lose the truth.
 *   - asking whether an action repeats a try ruled impossible this turn
 *     (kriegd refuses it: referee_action_repeats_impossible) changes
 *     nothing, and such a try is never played;
 *   - the game's record (its accepted actions, refused tries included,
 *     as kriegd keeps them): the umpire's PGN reads back to the same
 *     actions, and each filtered record holds exactly what its audience
 *     heard (pgn_check.h).  Random games reach what PGN inputs seldom do
 *     by mutation: long games, endings, nost's lists, drops.
 * The input is read as a byte stream: a rule set, a start position, then
 * one action per few bytes (kind, colour, which move or what text).
 */
#include "action.h"
#include "belief.h"
#include "fen.h"
#include "fuzz_util.h"
#include "movegen.h"
#include "notation.h"
#include "pgn.h"
#include "pgn_check.h"
#include "referee.h"
#include "ruleset.h"
#include "view.h"

#define STEPS_MAX 400 /* actions of one input */

struct input {
	const uint8_t *p;
	size_t n;
};

static unsigned take(struct input *in)
{
	if (in->n == 0)
		return 0;
	in->n--;
	return *in->p++;
}

static const char *const starts[] = {
	NULL,
	"r3k2r/pPpp1ppp/8/3Pp3/8/8/PP1P1PpP/R3K2R w KQkq e6 0 1",
	"4k3/1P4P1/8/2pP4/8/8/1p4p1/4K3 w - c6 0 1",
	"7k/5Q2/6K1/8/8/8/8/8 w - - 0 1",
	"k7/8/8/8/8/8/8/K7 w - - 0 1",
	"rnbqkbnr/pppp1ppp/8/4p3/3P4/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 2",
};

static void check_event(const struct event *e)
{
	FUZZ_ASSERT(e->audience != 0 && (e->audience & ~AUD_PUBLIC) == 0, "audience %u of %s",
	            e->audience, event_type_name(e->type) ? event_type_name(e->type) : "?");
	FUZZ_ASSERT(event_type_name(e->type) != NULL, "event type %d", e->type);
	if (e->move != MOVE_NONE) {
		FUZZ_ASSERT(e->by == WHITE || e->by == BLACK, "a move by %d", e->by);
		FUZZ_ASSERT((e->audience & (aud_of(!e->by) | AUD_SPECTATOR)) == 0,
		            "%s with its move addressed %u", event_type_name(e->type), e->audience);
	}
	if (e->type == EV_UMPIRE_MOVE)
		FUZZ_ASSERT(e->audience == AUD_UMPIRE, "umpire move addressed %u", e->audience);
}

/* The copy ruled `a` as r did (st, ev). */
static void check_copy(struct referee *copy, const struct referee *r, const struct action *a,
                       int st, const struct evlist *ev, struct evlist *cev)
{
	char fen[FEN_MAX], cfen[FEN_MAX];
	evlist_clear(cev);
	int cst = referee_apply(copy, a, cev);
	FUZZ_ASSERT(cst == st, "%s: the copy said %d, the original %d", a->text, cst, st);
	FUZZ_ASSERT(cev->n == ev->n, "%s: the copy made %zu events, the original %zu", a->text,
	            cev->n, ev->n);
	for (size_t i = 0; i < ev->n; i++)
		FUZZ_ASSERT(event_equal(&cev->v[i], &ev->v[i]), "%s: the copy's event %zu (%s) differs",
		            a->text, i, event_type_name(ev->v[i].type));
	fen_format(referee_board(r), fen, sizeof fen);
	fen_format(referee_board(copy), cfen, sizeof cfen);
	FUZZ_ASSERT(strcmp(fen, cfen) == 0, "%s: the copy stands at %s, the original at %s",
	            a->text, cfen, fen);
	FUZZ_ASSERT(referee_side_to_move(copy) == referee_side_to_move(r) &&
	            referee_plies(copy) == referee_plies(r) &&
	            referee_over(copy) == referee_over(r), "%s: the copy's game differs", a->text);
}

/* Small limits keep an input fast; the exact sets of the first plies fit. */
static const struct belief_limits fuzz_belief_limits = { .exact_max = 256, .particles = 32 };

/* bel (or NULL: dropped) holds the truth while exact; dropped once sampled. */
static void check_belief(struct belief **bel, const struct referee *r)
{
	if (*bel == NULL || referee_over(r))
		return;
	belief_settle(*bel);
	if (!belief_is_exact(*bel)) {
		belief_free(*bel);
		*bel = NULL;
		return;
	}
	char fen[FEN_MAX];
	fen_format(referee_board(r), fen, sizeof fen);
	FUZZ_ASSERT(belief_rank(*bel, referee_board(r)) >= 0,
	            "colour %d's exact belief (%zu positions) lost the truth %s at ply %d",
	            (*bel)->color, belief_count(*bel), fen, referee_plies(r));
}

/* a[0..n) (a[0] the begin): the accepted actions of a game from fen;
 * all: every event they made.  A record with an action the server would
 * have refused (action_record_refusal: an offer's answer by its maker, a
 * draw agreed with none standing ...) is written but not read back: the
 * reader refuses what kriegd cannot have written. */
static void check_record(const struct ruleset *rs, const char *fen, const struct action *a,
                         size_t n, const struct evlist *all, bool server_could)
{
	struct pgn_header h = { 0 }, h2;
	char err[256];
	char *out = NULL;
	snprintf(h.rules, sizeof h.rules, "%s", rs->name);
	if (fen != NULL)
		snprintf(h.fen, sizeof h.fen, "%s", fen);
	if (pgn_write(&h, a, n, AUD_UMPIRE, &out, err, sizeof err) != 0) {
		/* a try of bytes no PGN comment can hold */
		FUZZ_ASSERT(strstr(err, "cannot be written") != NULL, "write: %s", err);
		return;
	}
	if (server_could) {
		struct action *b = NULL;
		size_t nb = 0;
		FUZZ_ASSERT(pgn_read(out, &h2, &b, &nb, err, sizeof err) == 0, "re-read: %s\n%s", err,
		            out);
		FUZZ_ASSERT(nb + 1 == n, "re-read %zu actions of %zu\n%s", nb, n - 1, out);
		for (size_t i = 0; i < nb; i++)
			FUZZ_ASSERT(a[i + 1].kind == b[i].kind && a[i + 1].color == b[i].color &&
			                    strcmp(a[i + 1].text, b[i].text) == 0,
			            "action %zu: %s %d '%s' read back as %s %d '%s'\n%s", i,
			            action_kind_name(a[i + 1].kind), a[i + 1].color, a[i + 1].text,
			            action_kind_name(b[i].kind), b[i].color, b[i].text, out);
		free(b);
	}
	free(out);
	pgn_check_filtered(&h, a, n, rs, all);
}

static void check_view(const struct view *v, const struct referee *r)
{
	struct board truth;

	board_own_view(referee_board(r), v->color, &truth);
	for (int t = PAWN; t <= KING; t++)
		FUZZ_ASSERT(v->own.pieces[v->color][t] == truth.pieces[v->color][t],
		            "colour %d piece %d at ply %d", v->color, t, referee_plies(r));
	FUZZ_ASSERT(v->own.occ[!v->color] == 0, "colour %d sees the other side", v->color);
	FUZZ_ASSERT(v->own.castling == truth.castling, "colour %d castling", v->color);
	FUZZ_ASSERT(v->over == referee_over(r), "colour %d: over %d", v->color, v->over);
	if (referee_over(r))
		return;
	FUZZ_ASSERT(v->to_move == referee_side_to_move(r), "colour %d: to move %d", v->color,
	            v->to_move);
	struct movelist a, b;
	view_possible(v, &a);
	referee_possible(r, v->color, &b);
	FUZZ_ASSERT(a.n == b.n, "colour %d: %d possible, referee says %d", v->color, a.n, b.n);
	for (int i = 0; i < a.n; i++)
		FUZZ_ASSERT(a.m[i] == b.m[i], "colour %d: possible move %d differs", v->color, i);
}

/* A move text: mostly one of the side's possible tries (so games get
 * somewhere), sometimes any pseudo-move of either side, sometimes bytes. */
static void pick_text(struct input *in, const struct referee *r, int color, char *buf, size_t len)
{
	unsigned how = take(in) % 8;
	struct movelist ml;

	if (how < 5) {
		referee_possible(r, color, &ml);
	} else if (how < 7) {
		struct board own;
		board_own_view(referee_board(r), how == 5 ? color : !color, &own);
		movegen_possible(&own, how == 5 ? color : !color, &ml);
	} else {
		size_t n = take(in) % 12, k = 0;
		for (; k < n && k + 1 < len; k++) {
			unsigned ch = take(in);
			buf[k] = (char)(ch == 0 || ch == ' ' ? 'a' : ch);
		}
		buf[k] = '\0';
		return;
	}
	if (ml.n == 0) {
		snprintf(buf, len, "e4");
		return;
	}
	char uci[NOTATION_MAX];
	move_t m = ml.m[take(in) % (unsigned)ml.n];
	if (take(in) & 1) {
		notation_uci(m, uci);
		snprintf(buf, len, "%s", uci);
	} else {
		struct board own;
		board_own_view(referee_board(r), color, &own);
		notation_san(&own, m, true, uci);
		snprintf(buf, len, "%s", uci);
	}
}

static void make_action(struct input *in, const struct referee *r, struct action *a)
{
	unsigned op = take(in);
	int side = referee_side_to_move(r);
	int color = (op & 0x80) ? !side : side;   /* mostly the side to move */
	char text[ACTION_TEXT_MAX];

	if (side != WHITE && side != BLACK)
		color = op & 1;
	switch (op % 16) {
	case 0:
		action_set(a, ACTION_ANY, color, "");
		return;
	case 1:
	case 2: {
		char t[REFEREE_LIST_MAX + 2][NOTATION_MAX];
		const char *items[REFEREE_LIST_MAX + 2];
		size_t n = take(in) % (REFEREE_LIST_MAX + 2);
		for (size_t i = 0; i < n; i++) {
			pick_text(in, r, color, t[i], sizeof t[i]);
			items[i] = t[i];
		}
		if (action_set_list(a, op % 16 == 1 ? ACTION_LIST : ACTION_QUIET, color, items, n) !=
		    REF_OK)
			action_set(a, ACTION_TRY, color, "e4");
		return;
	}
	case 3: {
		int reason = (int)(take(in) % 12);
		const char *name = game_reason_name(reason);
		int who = (int)(take(in) % 3) - 1;
		action_set(a, ACTION_END, who, name != NULL ? name : "nonsense");
		return;
	}
	case 4:
		action_set(a, ACTION_DRAW, color, take(in) & 1 ? "offer" : "decline");
		return;
	case 5:
		action_set(a, ACTION_BEGIN, color, "");
		return;
	default:
		pick_text(in, r, color, text, sizeof text);
		action_set(a, ACTION_TRY, color, text);
		return;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	const struct ruleset *rs = ruleset_at(take(&in) % ruleset_count());
	const char *fen = starts[take(&in) % (sizeof starts / sizeof starts[0])];
	char err[160];
	struct referee *r = referee_new(rs, fen, err, sizeof err);

	FUZZ_ASSERT(r != NULL, "%s", err);
	struct view views[2];
	view_init(&views[WHITE], referee_board(r), WHITE);
	view_init(&views[BLACK], referee_board(r), BLACK);
	view_set_ruleset(&views[WHITE], rs);
	view_set_ruleset(&views[BLACK], rs);
	struct belief *bel[2];
	for (int c = WHITE; c <= BLACK; c++)
		bel[c] = belief_new(rs, referee_board(r), c, &fuzz_belief_limits, size);
	struct evlist ev, cev;
	evlist_init(&ev);
	evlist_init(&cev);
	struct referee *copy = NULL;
	const int copy_at = (int)(size % 17);   /* the step the copy is made at */
	struct action a;
	action_set(&a, ACTION_BEGIN, WHITE, "");
	int st = referee_apply(r, &a, &ev);
	FUZZ_ASSERT(st == REF_OK, "begin: %s", referee_error(r));
	struct action *acts = malloc((STEPS_MAX + 1) * sizeof *acts);   /* the record */
	size_t nacts = 0;
	struct evlist all;
	if (acts == NULL)
		abort();
	acts[nacts++] = a;
	struct action_record_state rec;   /* the server's own rules (offers, pauses) */
	action_record_init(&rec);
	bool server_could = true;
	evlist_init(&all);
	for (size_t i = 0; i < ev.n; i++)
		evlist_push(&all, &ev.v[i]);

	for (int steps = 0; steps < STEPS_MAX; steps++) {
		for (size_t i = 0; i < ev.n; i++) {
			check_event(&ev.v[i]);
			view_apply(&views[WHITE], &ev.v[i]);
			view_apply(&views[BLACK], &ev.v[i]);
			for (int c = WHITE; c <= BLACK; c++)
				if (bel[c] != NULL)
					belief_apply(bel[c], &ev.v[i]);
		}
		check_view(&views[WHITE], r);
		check_view(&views[BLACK], r);
		check_belief(&bel[WHITE], r);
		check_belief(&bel[BLACK], r);
		if (in.n == 0)
			break;
		if (steps == copy_at)
			copy = referee_copy(r);

		make_action(&in, r, &a);
		char fen_before[FEN_MAX], fen_after[FEN_MAX];
		uint64_t hash = referee_state_hash(r);
		int side = referee_side_to_move(r), plies = referee_plies(r);
		fen_format(referee_board(r), fen_before, sizeof fen_before);
		evlist_clear(&ev);
		const char *server_refusal = action_record_refusal(&rec, &a, side, plies);
		/* kriegd's own refusal of an impossible try sent again: asking
		 * changes nothing, and the referee still rules it (a record's). */
		bool again = referee_action_repeats_impossible(r, &a);
		FUZZ_ASSERT(referee_state_hash(r) == hash, "asking whether %s repeats changed the hash", a.text);
		st = referee_apply(r, &a, &ev);
		FUZZ_ASSERT(!again || a.kind != ACTION_TRY || st != REF_OK || referee_plies(r) == plies,
		            "an impossible try again (%s) was played", a.text);
		if (getenv("FUZZ_VERBOSE") != NULL)
			fprintf(stderr, "%s %s: %d '%s' -> %d (%s)\n", rs->name, fen_before, a.color,
			        action_kind_name(a.kind), st, a.text);
		if (copy != NULL)
			check_copy(copy, r, &a, st, &ev, &cev);
		if (st == REF_OK) {
			server_could = server_could && server_refusal == NULL;   /* a repeat too: records made before hold them */
			action_record_next(&rec, &a, plies, referee_plies(r));
			acts[nacts++] = a;
			for (size_t i = 0; i < ev.n; i++)
				evlist_push(&all, &ev.v[i]);
		} else {
			fen_format(referee_board(r), fen_after, sizeof fen_after);
			FUZZ_ASSERT(ev.n == 0, "%s refused (%d) with %zu events", a.text, st, ev.n);
			FUZZ_ASSERT(referee_state_hash(r) == hash, "refused %s %s changed the hash",
			            action_kind_name(a.kind), a.text);
			FUZZ_ASSERT(strcmp(fen_before, fen_after) == 0, "refused %s: %s -> %s", a.text,
			            fen_before, fen_after);
			FUZZ_ASSERT(side == referee_side_to_move(r) && plies == referee_plies(r),
			            "refused %s moved the game", a.text);
			FUZZ_ASSERT(referee_error(r)[0] != '\0', "refused %s without a message", a.text);
		}
	}
	check_record(rs, fen, acts, nacts, &all, server_could);
	free(acts);
	evlist_free(&all);
	evlist_free(&ev);
	evlist_free(&cev);
	belief_free(bel[WHITE]);
	belief_free(bel[BLACK]);
	referee_free(copy);
	referee_free(r);
	return 0;
}
