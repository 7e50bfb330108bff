/*
 * referee.c — the umpire of one game.
 *
 * Shape of every public entry point: validate everything first (turn,
 * notation, rule-set support), returning an error with nothing changed;
 * only then act, which cannot fail.  That is what makes "a failing call
 * leaves the state unchanged and emits nothing" true by construction.
 *
 * Audiences: a detailed copy (with the move) goes to the mover and the
 * umpire, the redacted copy (without it) to the opponent and spectators,
 * and announcements everybody hears go to AUD_PUBLIC.  The played move
 * itself reaches the umpire as EV_UMPIRE_MOVE (full SAN), the mover as
 * EV_MOVE (own-view SAN), everyone else as EV_MOVED.
 */
#include "referee.h"
#include "referee_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "fen.h"
#include "notation.h"
#include "xmalloc.h"

/* ------------------------------------------------------------------ */

int referee_fail(struct referee *r, int status, const char *msg)
{
	snprintf(r->err, sizeof r->err, "%s", msg);
	return status;
}

static void keys_push(struct referee *r, uint64_t k)
{
	r->keys = xgrow(r->keys, &r->capkeys, r->nkeys + 1, sizeof *r->keys, 64);
	r->keys[r->nkeys++] = k;
}

struct referee *referee_new(const struct ruleset *rs, const char *fen, char *err, size_t errlen)
{
	struct board b;
	if (rs == NULL) {
		failf(err, errlen, "unknown rule set");
		return NULL;
	}
	if (fen == NULL) {
		board_start(&b);
	} else {
		char e[128] = "";
		if (fen_parse(fen, &b, e, sizeof e) != 0) {
			failf(err, errlen, "bad FEN: %s", e);
			return NULL;
		}
	}
	/* Reserves are crazykrieg's alone; its board sends captured men there. */
	if (b.crazy && !rs->drops) {
		failf(err, errlen, "bad FEN: a reserve field in a rule set without drops");
		return NULL;
	}
	if (rs->drops)
		b.crazy = 1;
	struct referee *r = xcalloc(1, sizeof *r);
	r->rs = rs;
	r->b = b;
	r->quiet[WHITE].next = r->quiet[WHITE].n = 0;
	r->quiet[BLACK].next = r->quiet[BLACK].n = 0;
	r->pawn_ok = ~0ULL;
	keys_push(r, b.key);
	return r;
}

void referee_free(struct referee *r)
{
	if (r == NULL)
		return;
	free(r->keys);
	free(r);
}

struct referee *referee_copy(const struct referee *r)
{
	struct referee *c = xmalloc(sizeof *c);
	*c = *r;
	/* Only the positions since the last capture or pawn move can repeat
	 * (count_repetitions): the older ones are not copied. */
	size_t keep = (size_t)r->b.halfmove + 1 < r->nkeys ? (size_t)r->b.halfmove + 1 : r->nkeys;
	c->keys = NULL;
	c->nkeys = c->capkeys = 0;
	for (size_t i = r->nkeys - keep; i < r->nkeys; i++)
		keys_push(c, r->keys[i]);
	return c;
}

/* ------------------------------------------------------------------ */
/* emission                                                            */

static struct event ev_base(const struct referee *r, int type, unsigned audience, int by)
{
	struct event e;
	memset(&e, 0, sizeof e);
	e.type = (uint8_t)type;
	e.audience = (uint8_t)audience;
	e.by = (int8_t)by;
	e.square = -1;
	e.ply = (uint16_t)r->plies;
	return e;
}

static unsigned others_of(int color)
{
	return aud_of(!color) | AUD_SPECTATOR;
}

static unsigned mover_of(int color)
{
	return aud_of(color) | AUD_UMPIRE;
}

/* The direction of one checker, from the checked king's square. */
static int check_direction(const struct ruleset *rs, int ksq, int csq, int ctype)
{
	int kf = ksq & 7, kr = ksq >> 3, cf = csq & 7, cr = csq >> 3;
	if (ctype == KNIGHT)
		return CHECK_KNIGHT;
	if (kr == cr)
		return CHECK_RANK;
	if (kf == cf)
		return CHECK_FILE;
	/* A diagonal (a pawn's check is one too).  a1-h8 direction: file - rank constant. */
	bool a1h8 = (cf - kf) == (cr - kr);
	if (rs->checks == CHECK_STYLE_GOLLON)
		return a1h8 ? CHECK_A1H8_DIAGONAL : CHECK_H1A8_DIAGONAL;
	int len_a1h8 = 8 - abs(kf - kr);
	int len_h1a8 = 8 - abs(kf + kr - 7);
	/* The two lengths never tie on 8x8: (kf-kr) and (kf+kr-7) differ in parity. */
	int mine = a1h8 ? len_a1h8 : len_h1a8, other = a1h8 ? len_h1a8 : len_a1h8;
	return mine > other ? CHECK_LONG_DIAGONAL : CHECK_SHORT_DIAGONAL;
}

/*
 * Where a direction stands when a double check names two: rank, file, the
 * diagonals, knight (RULESETS.md).  The enum's values are wire history,
 * not an order (the gollon diagonals were added after the knight).
 */
static int check_rank(int dir)
{
	switch (dir) {
	case CHECK_RANK: return 0;
	case CHECK_FILE: return 1;
	case CHECK_LONG_DIAGONAL: return 2;
	case CHECK_A1H8_DIAGONAL: return 2;
	case CHECK_SHORT_DIAGONAL: return 3;
	case CHECK_H1A8_DIAGONAL: return 3;
	case CHECK_KNIGHT: return 4;
	default: return 5;
	}
}

void referee_check_dirs(const struct ruleset *rs, const struct board *b, uint8_t dirs[2])
{
	bb_t checkers = board_checkers(b);
	int ksq = board_king(b, b->side), nd = 0;
	dirs[0] = dirs[1] = CHECK_NONE;
	for (int sq = 0; sq < 64 && nd < 2; sq++)
		if (checkers >> sq & 1)
			dirs[nd++] = (uint8_t)check_direction(rs, ksq, sq, piece_code_type(b->mailbox[sq]));
	if (nd == 2 && check_rank(dirs[1]) < check_rank(dirs[0])) {
		uint8_t t = dirs[0];
		dirs[0] = dirs[1];
		dirs[1] = t;
	}
}

static int count_repetitions(const struct referee *r)
{
	/* Only positions since the last capture or pawn move can repeat, and only
	 * those with the same side to move (every second one). */
	size_t last = r->nkeys - 1;
	size_t back = r->b.halfmove;
	int n = 0;
	for (size_t i = 0; i <= back && i <= last; i += 2)
		if (r->keys[last - i] == r->keys[last])
			n++;
	return n;
}

static void game_over(struct referee *r, enum game_result res, enum game_reason why, int by,
                      struct evlist *out)
{
	r->over = true;
	r->result = res;
	r->reason = why;
	r->quiet[WHITE].n = r->quiet[WHITE].next = 0;
	r->quiet[BLACK].n = r->quiet[BLACK].next = 0;
	struct event e = ev_base(r, EV_GAME_OVER, AUD_PUBLIC, by);
	e.result = (uint8_t)res;
	e.reason = (uint8_t)why;
	evlist_push(out, &e);
}

/* Ends the game if the position on the board is terminal; true if it did. */
static bool check_end(struct referee *r, struct evlist *out)
{
	struct movelist ml;
	int side = r->b.side;
	movegen_legal(&r->b, &ml);
	if (ml.n == 0) {
		if (board_in_check(&r->b))
			game_over(r, side == WHITE ? RESULT_BLACK : RESULT_WHITE, REASON_CHECKMATE, !side, out);
		else if (r->rs->stalemate_loses)
			game_over(r, side == WHITE ? RESULT_BLACK : RESULT_WHITE, REASON_STALEMATE, side, out);
		else
			game_over(r, RESULT_DRAW, REASON_STALEMATE, side, out);
		return true;
	}
	if (r->rs->draw_insufficient && board_insufficient_material(&r->b)) {
		game_over(r, RESULT_DRAW, REASON_INSUFFICIENT, -1, out);
		return true;
	}
	if (r->rs->draw_fifty && r->b.halfmove >= 100) {
		game_over(r, RESULT_DRAW, REASON_FIFTY_MOVES, -1, out);
		return true;
	}
	if (r->rs->draw_repetition && count_repetitions(r) >= 3) {
		game_over(r, RESULT_DRAW, REASON_REPETITION, -1, out);
		return true;
	}
	return false;
}

/* What both players hear as a turn begins. */
static void turn_start(struct referee *r, struct evlist *out)
{
	int side = r->b.side;
	if (r->rs->pawn_info == PAWN_INFO_COUNT) {
		struct event e = ev_base(r, EV_PAWN_TRIES, AUD_PUBLIC, side);
		e.count = (int16_t)movegen_pawn_captures(&r->b);
		evlist_push(out, &e);
		if (e.count == 0)
			r->pawn_ok = 0;
	} else if (r->rs->pawn_info == PAWN_INFO_YESNO) {
		struct event e = ev_base(r, EV_PAWN_CAPTURES, AUD_PUBLIC, side);
		e.answer = movegen_pawn_captures(&r->b) > 0;
		evlist_push(out, &e);
		if (!e.answer)
			r->pawn_ok = 0;
	} else if (r->rs->pawn_info == PAWN_INFO_SQUARES) {
		struct event e = ev_base(r, EV_PAWN_SQUARES, AUD_PUBLIC, side);
		e.squares = movegen_pawn_capture_squares(&r->b);
		evlist_push(out, &e);
		r->pawn_ok = e.squares;
	}
}

static void reset_turn(struct referee *r)
{
	r->refused.n = 0;
	r->impossible.n = 0;
	r->any_asked = false;
	r->must_capture = false;
	r->illegal_count = 0;
	r->pawn_ok = ~0ULL;
}

/* Play a legal move and announce it.  *captured / *checked feed "if quiet". */
static void play(struct referee *r, int color, move_t m, struct evlist *out, bool *captured,
                 bool *checked)
{
	struct board own;
	char own_san[NOTATION_MAX], full_san[NOTATION_MAX];
	int from = move_from(m), to = move_to(m);
	int victim_sq = SQ_NONE, victim_type = PIECE_NONE;

	board_own_view(&r->b, color, &own);
	notation_san(&own, m, true, own_san);
	notation_san(&r->b, m, false, full_san);
	(void)from;
	if (move_kind(m) == MOVE_EN_PASSANT) {
		victim_sq = color == WHITE ? to - 8 : to + 8;
		victim_type = PAWN;
	} else if (move_kind(m) != MOVE_CASTLING && r->b.mailbox[to] != MAILBOX_EMPTY) {
		victim_sq = to;
		victim_type = piece_code_type(r->b.mailbox[to]);
		/* Crazyhouse: a promoted man is taken as the pawn it goes back to
		 * (ks-game test_crazykrieg_capture_of_promoted_pawn_enters_reserve_as_pawn). */
		if (r->b.crazy && (r->b.promoted >> to & 1))
			victim_type = PAWN;
	}

	/* The mover's SAN keeps the capture mark: the umpire tells the mover of
	 * every capture in every rule set, so "Nxe5" says nothing the mover is
	 * not told (a pawn's capture is marked by the view already). */
	if (victim_sq != SQ_NONE && strchr(own_san, 'x') == NULL && !move_is_drop(m) &&
	    move_kind(m) != MOVE_CASTLING) {
		size_t len = strlen(own_san);
		if (len >= 2 && len + 1 < sizeof own_san) {
			memmove(own_san + len - 1, own_san + len - 2, 3);
			own_san[len - 2] = 'x';
		}
	}

	board_make(&r->b, m);
	r->plies++;
	r->moves_made[color]++;
	keys_push(r, r->b.key);

	if (r->rs->illegal == ILLEGAL_COUNTED && r->illegal_count > 0) {
		struct event e = ev_base(r, EV_ILLEGAL_COUNT, others_of(color) | AUD_UMPIRE, color);
		e.count = (int16_t)r->illegal_count;
		evlist_push(out, &e);
	}
	struct event e = ev_base(r, EV_MOVE, aud_of(color), color);
	e.move = m;
	snprintf(e.san, sizeof e.san, "%s", own_san);
	size_t own_move = out->n;   /* its check mark is added below */
	evlist_push(out, &e);
	e = ev_base(r, EV_MOVED, others_of(color), color);
	evlist_push(out, &e);
	e = ev_base(r, EV_UMPIRE_MOVE, AUD_UMPIRE, color);
	e.move = m;
	snprintf(e.san, sizeof e.san, "%s", full_san);
	evlist_push(out, &e);
	if (move_is_drop(m)) {
		/* crazykrieg: the man, never the square (the reserves are public). */
		e = ev_base(r, EV_DROP, AUD_PUBLIC, color);
		e.what = captured_exact(move_drop_piece(m));
		evlist_push(out, &e);
	}

	*captured = victim_sq != SQ_NONE;
	int public_capture_sq = -1; /* a capture square every listener heard */
	if (*captured) {
		bool ep = move_kind(m) == MOVE_EN_PASSANT;
		if (ep && r->rs->ep == EP_SPLIT) {
			/* seed 000 rule 8: the capturer hears where his pawn landed,
			 * the captured side where its pawn was removed. */
			e = ev_base(r, EV_CAPTURE, mover_of(color), color);
			e.square = (int8_t)to;
			evlist_push(out, &e);
			e = ev_base(r, EV_CAPTURE, others_of(color), color);
			e.square = (int8_t)victim_sq;
			evlist_push(out, &e);
		} else {
			e = ev_base(r, EV_CAPTURE, AUD_PUBLIC, color);
			if (ep && r->rs->ep == EP_NAMED_LANDING) {
				e.square = (int8_t)to;
				e.en_passant = true;
			} else {
				e.square = (int8_t)victim_sq;
			}
			if (r->rs->capture_exact)
				e.what = captured_exact(victim_type);
			else if (r->rs->capture_kind)
				e.what = victim_type == PAWN ? CAPTURED_PAWN : CAPTURED_PIECE;
			evlist_push(out, &e);
			public_capture_sq = e.square;
		}
	}
	if (r->rs->promotion_said && !move_is_drop(m) && move_kind(m) == MOVE_PROMOTION) {
		e = ev_base(r, EV_PROMOTION, AUD_PUBLIC, color);
		evlist_push(out, &e);
	}

	bb_t checkers = board_checkers(&r->b);
	*checked = checkers != 0;
	if (checkers) {
		uint8_t dirs[2];
		referee_check_dirs(r->rs, &r->b, dirs);
		e = ev_base(r, EV_CHECK, AUD_PUBLIC, color);
		e.checks[0] = dirs[0];
		e.checks[1] = dirs[1];
		/* So that one sentence can say the whole move (insurance: "White
		 * has captured on e4 giving check on the rank"). */
		e.square = (int8_t)public_capture_sq;
		evlist_push(out, &e);
	}

	reset_turn(r);
	bool over = check_end(r, out);
	/* The check mark of the mover's SAN: every rule set announces the check
	 * to everyone (and a mate ends the game for everyone to hear). */
	if (*checked && own_move < out->n && out->v[own_move].type == EV_MOVE) {
		char *san = out->v[own_move].san;
		size_t len = strlen(san);
		if (len + 1 < sizeof out->v[own_move].san) {
			san[len] = over && r->reason == REASON_CHECKMATE ? '#' : '+';
			san[len + 1] = '\0';
		}
	}
	if (!over)
		turn_start(r, out);
}

enum outcome { OUT_PLAYED, OUT_ILLEGAL, OUT_IMPOSSIBLE };

/* Rule on one validated try.  Cannot fail. */
static enum outcome try_move(struct referee *r, int color, move_t m, bool possible, struct evlist *out,
                             bool *captured, bool *checked)
{
	struct event e;
	char san[NOTATION_MAX];

	/* A refused pawn capture frees the asker where one try is owed, not
	 * where one must be played (berkeley_any): a move clears it there. */
	if (possible && referee_is_pawn_capture(&r->b, m) && r->rs->any_obliges != ANY_UNTIL_PLAYED)
		r->must_capture = false;
	if (!possible && r->rs->impossible != IMPOSSIBLE_IS_ILLEGAL) {
		e = ev_base(r, EV_IMPOSSIBLE, mover_of(color), color);
		e.move = m;
		/* No SAN: an impossible move has none, but castling, which names
		 * no square, is told as the player wrote it. */
		snprintf(e.san, sizeof e.san, "%s", referee_castle_san(m));
		evlist_push(out, &e);
		if (r->rs->impossible == IMPOSSIBLE_PUBLIC) {
			e = ev_base(r, EV_IMPOSSIBLE, others_of(color), color);
			evlist_push(out, &e);
		}
		if (r->impossible.n < MOVES_MAX && !referee_list_has_try(&r->impossible, m))
			r->impossible.m[r->impossible.n++] = m;
		return OUT_IMPOSSIBLE;
	}
	move_t legal = possible ? referee_legal_match(&r->b, m) : MOVE_NONE;
	if (legal != MOVE_NONE) {
		play(r, color, legal, out, captured, checked);
		return OUT_PLAYED;
	}
	snprintf(san, sizeof san, "%s", referee_castle_san(m));
	if (possible) {
		struct board own;
		board_own_view(&r->b, color, &own);
		notation_san(&own, m, true, san);
	}
	if (r->refused.n < MOVES_MAX)
		r->refused.m[r->refused.n++] = m;
	e = ev_base(r, EV_ILLEGAL, mover_of(color), color);
	e.move = m;
	snprintf(e.san, sizeof e.san, "%s", san);
	evlist_push(out, &e);
	if (r->rs->illegal == ILLEGAL_BOTH) {
		e = ev_base(r, EV_ILLEGAL, others_of(color), color);
		evlist_push(out, &e);
	} else if (r->rs->illegal == ILLEGAL_COUNTED) {
		r->illegal_count++;
	}
	return OUT_ILLEGAL;
}

static void quiet_end(struct referee *r, int color, int unplayed, struct evlist *out)
{
	struct quiet *q = &r->quiet[color];
	if (unplayed > 0) {
		struct event e = ev_base(r, EV_QUIET_ENDED, mover_of(color), color);
		e.count = (int16_t)unplayed;
		evlist_push(out, &e);
	}
	q->n = q->next = 0;
}

/* referee_resolve for a look, not a ruling: a text that does not resolve
 * leaves r's error as it was (the caller's own ruling comes later). */
static int resolve_silent(struct referee *r, int color, const char *text, move_t *m, bool *possible)
{
	char saved[sizeof r->err];
	memcpy(saved, r->err, sizeof saved);
	int st = referee_resolve(r, color, text, m, possible);
	memcpy(r->err, saved, sizeof saved);
	return st;
}

/*
 * After a move: stop "if quiet" sequences when the move captured or
 * checked or the side to move now has a pawn capture (seed 000 rule 4),
 * else play the next move of the side to move's sequence.  Bounded: each
 * round consumes a move of a sequence.
 */
static void after_move(struct referee *r, bool captured, bool checked, struct evlist *out)
{
	for (;;) {
		if (r->over)
			return;
		bool stop = captured || checked || movegen_pawn_captures(&r->b) > 0;
		for (int c = WHITE; c <= BLACK; c++)
			if (stop && r->quiet[c].next < r->quiet[c].n)
				quiet_end(r, c, r->quiet[c].n - r->quiet[c].next, out);
		int s = r->b.side;
		struct quiet *q = &r->quiet[s];
		if (q->next >= q->n)
			return;
		move_t m;
		bool possible;
		int st = resolve_silent(r, s, q->text[q->next], &m, &possible);
		if (st != REF_OK || referee_list_has_try(&r->refused, m)) {
			quiet_end(r, s, q->n - q->next, out);
			return;
		}
		enum outcome o = try_move(r, s, m, possible, out, &captured, &checked);
		if (o != OUT_PLAYED) {
			/* seed 000 rule 4: "or until one of the moves is illegal" */
			quiet_end(r, s, q->n - q->next, out);
			return;
		}
		if (++q->next >= q->n)
			q->n = q->next = 0;
	}
}

/* ------------------------------------------------------------------ */
/* public                                                              */

int referee_begin(struct referee *r, struct evlist *out)
{
	if (r->begun)
		return referee_fail(r, REF_E_BAD_ARGUMENT, "referee_begin called twice");
	r->begun = true;
	if (!check_end(r, out))
		turn_start(r, out);
	return REF_OK;
}

int referee_attempt(struct referee *r, int color, const char *text, struct evlist *out)
{
	move_t m;
	bool possible, captured = false, checked = false;
	int st = referee_check_turn(r, color);
	if (st == REF_OK)
		st = referee_resolve(r, color, text, &m, &possible);
	if (st == REF_OK)
		st = referee_check_try(r, m, possible);
	if (st != REF_OK)
		return st;
	if (try_move(r, color, m, possible, out, &captured, &checked) == OUT_PLAYED)
		after_move(r, captured, checked, out);
	return REF_OK;
}

bool referee_impossible_tried(const struct referee *r, int color)
{
	return !r->over && r->begun && color == r->b.side && r->impossible.n > 0;
}

bool referee_impossible_again(struct referee *r, int color, const char *text)
{
	move_t m;
	bool possible;
	if (!referee_impossible_tried(r, color))
		return false;
	/* a text that does not resolve is referee_apply's to refuse */
	return resolve_silent(r, color, text, &m, &possible) == REF_OK && !possible &&
	       referee_list_has_try(&r->impossible, m);
}

/* Resolve and validate a whole list before anything happens. */
static int resolve_list(struct referee *r, int color, const char *const *texts, size_t n, move_t *m,
                        bool *possible)
{
	if (texts == NULL || n == 0 || n > REFEREE_LIST_MAX)
		return referee_fail(r, REF_E_TOO_MANY, "a list holds 1 to 16 moves");
	for (size_t i = 0; i < n; i++) {
		int st = referee_resolve(r, color, texts[i], &m[i], &possible[i]);
		if (st != REF_OK)
			return st;
		for (size_t j = 0; j < i; j++)
			if (referee_same_try(m[j], m[i]))
				return referee_fail(r, REF_E_ALREADY_TRIED, "the same move twice in one list");
	}
	return REF_OK;
}

int referee_attempt_list(struct referee *r, int color, const char *const *texts, size_t n,
                         struct evlist *out)
{
	move_t m[REFEREE_LIST_MAX];
	bool possible[REFEREE_LIST_MAX], captured = false, checked = false;
	int st = referee_check_turn(r, color);
	if (st == REF_OK && !r->rs->preference_lists)
		st = referee_fail(r, REF_E_UNSUPPORTED, "this rule set takes one move at a time");
	if (st == REF_OK)
		st = resolve_list(r, color, texts, n, m, possible);
	if (st != REF_OK)
		return st;
	for (size_t i = 0; i < n; i++)
		if (referee_list_has_try(&r->refused, m[i]))
			return referee_fail(r, REF_E_ALREADY_TRIED, REFEREE_SAY_ALREADY_TRIED);
	if ((st = referee_check_try(r, m[0], possible[0])) != REF_OK)
		return st;

	for (size_t i = 0; i < n; i++) {
		/* An obligation met by an earlier try of this list no longer binds. */
		if (try_move(r, color, m[i], possible[i], out, &captured, &checked) == OUT_PLAYED) {
			after_move(r, captured, checked, out);
			return REF_OK;
		}
		if (r->must_capture)
			break; /* cannot happen in nost; keeps the obligation honest elsewhere */
	}
	struct event e = ev_base(r, EV_ALL_ILLEGAL, mover_of(color), color);
	evlist_push(out, &e);
	return REF_OK;
}

int referee_quiet(struct referee *r, int color, const char *const *texts, size_t n, struct evlist *out)
{
	move_t m;
	bool possible, captured = false, checked = false;
	int st = referee_check_turn(r, color);
	if (st == REF_OK && !r->rs->quiet_sequences)
		st = referee_fail(r, REF_E_UNSUPPORTED, "this rule set has no \"if quiet\" sequences");
	if (st == REF_OK && (texts == NULL || n == 0 || n > REFEREE_LIST_MAX))
		st = referee_fail(r, REF_E_TOO_MANY, "a sequence holds 1 to 16 moves");
	if (st == REF_OK)
		st = referee_resolve(r, color, texts[0], &m, &possible);
	if (st == REF_OK)
		st = referee_check_try(r, m, possible);
	/* Later moves are resolved when their turn comes (the pieces will have
	 * moved); now only their form is checked. */
	for (size_t i = 1; st == REF_OK && i < n; i++) {
		struct notation_parts parts;
		if (texts[i] == NULL || strlen(texts[i]) > NOTATION_INPUT_MAX)
			st = referee_fail(r, REF_E_SYNTAX, "not a move: too long");
		else if (notation_lex(texts[i], &parts, NULL, 0) != NOTATION_OK)
			st = referee_fail(r, REF_E_SYNTAX, "not a move");
	}
	if (st != REF_OK)
		return st;

	struct quiet *q = &r->quiet[color];
	if (try_move(r, color, m, possible, out, &captured, &checked) != OUT_PLAYED) {
		struct event e = ev_base(r, EV_QUIET_ENDED, mover_of(color), color);
		e.count = (int16_t)n;
		evlist_push(out, &e);
		return REF_OK;
	}
	q->n = (int)n;
	q->next = 1;
	for (size_t i = 1; i < n; i++)
		snprintf(q->text[i], sizeof q->text[i], "%s", texts[i]);
	if (q->next >= q->n)
		q->n = q->next = 0;
	after_move(r, captured, checked, out);
	return REF_OK;
}

int referee_any(struct referee *r, int color, struct evlist *out)
{
	int st = referee_check_turn(r, color);
	if (st != REF_OK)
		return st;
	if (r->rs->pawn_info != PAWN_INFO_ASK)
		return referee_fail(r, REF_E_UNSUPPORTED, "this rule set has no \"any?\"");
	if (r->any_asked)
		return referee_fail(r, REF_E_ANY_ALREADY, "\"any?\" was asked already this turn");
	if (r->rs->any_after_first_move && r->moves_made[color] == 0)
		return referee_fail(r, REF_E_ANY_TOO_EARLY, "\"any?\" only after your first move");

	r->any_asked = true;
	if (r->rs->any_no_pawns_impossible && r->b.pieces[color][PAWN] == 0) {
		/* seed 004: asking "Any?" with no pawns is answered "Impossible". */
		struct event e = ev_base(r, EV_IMPOSSIBLE, AUD_PUBLIC, color);
		evlist_push(out, &e);
		return REF_OK;
	}
	int n = movegen_pawn_captures(&r->b);
	struct event e = ev_base(r, EV_ANY, AUD_PUBLIC, color);
	e.answer = n == 0 ? ANY_NO : r->rs->any_answers_try ? ANY_TRY : ANY_YES;
	evlist_push(out, &e);
	if (n > 0 && r->rs->any_obliges != ANY_FREE)
		r->must_capture = true;
	if (n == 0)
		r->pawn_ok = 0;
	return REF_OK;
}

int referee_notice(struct referee *r, int color)
{
	if (r->over)
		return referee_fail(r, REF_E_GAME_OVER, "the game is over");
	if (color != WHITE && color != BLACK)
		return referee_fail(r, REF_E_BAD_ARGUMENT, "bad colour");
	return REF_OK;
}

int referee_umpire_notice(struct referee *r)
{
	if (r->over)
		return referee_fail(r, REF_E_GAME_OVER, "the game is over");
	if (!r->begun)
		return referee_fail(r, REF_E_BAD_ARGUMENT, "the game has not begun");
	return REF_OK;
}

int referee_umpire_end(struct referee *r, enum game_result result, enum game_reason reason,
                       struct evlist *out)
{
	int st = referee_umpire_notice(r);
	if (st != REF_OK)
		return st;
	bool decided = result == RESULT_WHITE || result == RESULT_BLACK || result == RESULT_DRAW;
	if (!(reason == REASON_ADJUDICATION && decided) &&
	    !(reason == REASON_ABORTED && result == RESULT_NONE))
		return referee_fail(r, REF_E_BAD_ARGUMENT, "not an umpire's ending");
	game_over(r, result, reason, -1, out);
	return REF_OK;
}

int referee_end(struct referee *r, enum game_reason reason, int color, struct evlist *out)
{
	bool colored = color == WHITE || color == BLACK;
	if (r->over)
		return referee_fail(r, REF_E_GAME_OVER, "the game is over");
	switch (reason) {
	case REASON_RESIGNATION:
	case REASON_ABANDONED:
		if (!colored)
			return referee_fail(r, REF_E_BAD_ARGUMENT, "bad colour");
		game_over(r, color == WHITE ? RESULT_BLACK : RESULT_WHITE, reason, color, out);
		return REF_OK;
	case REASON_TIME:
		if (!colored)
			return referee_fail(r, REF_E_BAD_ARGUMENT, "bad colour");
		if (board_can_mate(&r->b, !color))
			game_over(r, color == WHITE ? RESULT_BLACK : RESULT_WHITE, reason, color, out);
		else
			game_over(r, RESULT_DRAW, reason, color, out);
		return REF_OK;
	case REASON_AGREEMENT:
		game_over(r, RESULT_DRAW, reason, -1, out);
		return REF_OK;
	case REASON_ABORTED:
		if (r->moves_made[WHITE] > 0 && r->moves_made[BLACK] > 0)
			return referee_fail(r, REF_E_BAD_ARGUMENT, "both sides have moved: too late to abort");
		game_over(r, RESULT_NONE, reason, colored ? color : -1, out);
		return REF_OK;
	default:
		return referee_fail(r, REF_E_BAD_ARGUMENT, "not a reason to end a game from outside the board");
	}
}

void referee_possible(const struct referee *r, int color, struct movelist *out)
{
	struct movelist all;
	struct board own;
	out->n = 0;
	if (r->over || !r->begun || color != r->b.side)
		return;
	board_own_view(&r->b, color, &own);
	movegen_possible(&own, color, &all);
	for (int i = 0; i < all.n; i++) {
		move_t m = all.m[i];
		if (referee_list_has_try(&r->refused, m))
			continue;
		if (r->must_capture && !referee_is_pawn_capture(&own, m))
			continue;
		/* Ruled out by the turn's pawn information (pawn_ok), bound or
		 * not: impossible where it binds (referee_ruled_out), certainly
		 * refused as illegal where it does not (view_possible alike). */
		if (referee_is_pawn_capture(&own, m) && !(r->pawn_ok >> move_from(m) & 1))
			continue;
		out->m[out->n++] = m;
	}
}

int referee_side_to_move(const struct referee *r) { return r->b.side; }
int referee_plies(const struct referee *r) { return r->plies; }
bool referee_over(const struct referee *r) { return r->over; }
enum game_result referee_result(const struct referee *r) { return r->result; }
enum game_reason referee_reason(const struct referee *r) { return r->reason; }
const struct board *referee_board(const struct referee *r) { return &r->b; }
const struct ruleset *referee_ruleset(const struct referee *r) { return r->rs; }
const char *referee_error(const struct referee *r) { return r->err; }
bool referee_must_try_capture(const struct referee *r) { return r->must_capture; }

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV(h, x) ((h) = fnv((h), &(x), sizeof(x)))

uint64_t referee_state_hash(const struct referee *r)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	uint64_t key = board_compute_key(&r->b);
	int v[12] = { r->begun, r->over, r->result, r->reason, r->plies, r->moves_made[0],
	              r->moves_made[1], r->any_asked, r->must_capture, r->illegal_count,
	              r->b.halfmove, r->b.fullmove };
	FNV(h, key);
	FNV(h, r->pawn_ok);
	h = fnv(h, r->b.mailbox, sizeof r->b.mailbox);
	FNV(h, v);
	h = fnv(h, r->refused.m, (size_t)r->refused.n * sizeof r->refused.m[0]);
	h = fnv(h, r->impossible.m, (size_t)r->impossible.n * sizeof r->impossible.m[0]);
	for (int c = 0; c < 2; c++) {
		const struct quiet *q = &r->quiet[c];
		int qv[2] = { q->n, q->next };
		FNV(h, qv);
		for (int i = q->next; i < q->n; i++)
			h = fnv(h, q->text[i], strlen(q->text[i]) + 1);
	}
	h = fnv(h, r->keys, r->nkeys * sizeof r->keys[0]);
	return h;
}

const char *referee_status_name(int status)
{
	static const char *const names[] = {
		[REF_OK] = "ok",
		[REF_E_GAME_OVER] = "game_over",
		[REF_E_NOT_YOUR_TURN] = "not_your_turn",
		[REF_E_SYNTAX] = "syntax",
		[REF_E_NO_PIECE] = "no_piece",
		[REF_E_AMBIGUOUS] = "ambiguous",
		[REF_E_UNSUPPORTED] = "unsupported",
		[REF_E_MUST_TRY_CAPTURE] = "must_try_capture",
		[REF_E_ANY_ALREADY] = "any_already",
		[REF_E_ANY_TOO_EARLY] = "any_too_early",
		[REF_E_ALREADY_TRIED] = "already_tried",
		[REF_E_TOO_MANY] = "too_many",
		[REF_E_BAD_ARGUMENT] = "bad_argument",
	};
	if (status < 0 || status >= (int)(sizeof names / sizeof names[0]))
		return "unknown";
	return names[status];
}
