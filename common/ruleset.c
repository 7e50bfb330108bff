/*
 * ruleset.c — the one table of rule sets, and each one's wording.
 *
 * Every option of every row is justified, with the seed sentence it comes
 * from, in proto/RULESETS.md; change a row only together with that file.
 */
#include "ruleset.h"

#include "notation.h"

#include <stdio.h>
#include <string.h>

static const struct ruleset rulesets[] = {
	{
		.name = "icc",
		.title = "ICC / Computer Olympiad: pawn-try counts, pawn or piece captured, silent illegal tries",
		.illegal = ILLEGAL_MOVER,
		.impossible = IMPOSSIBLE_PRIVATE,
		.pawn_info = PAWN_INFO_COUNT,
		.any_answers_try = false,
		.any_after_first_move = false,
		.any_obliges = false,
		.capture_kind = true,
		.ep = EP_VICTIM_SQUARE,
		.checks = CHECK_STYLE_LENGTH,
		.preference_lists = false,
		.quiet_sequences = false,
		.draw_repetition = true,
		.draw_fifty = true,
		.draw_insufficient = true,
	},
	{
		.name = "english",
		.title = "English rules of the Gambit Club, London (1933): \"any?\" on request, illegal tries announced",
		.illegal = ILLEGAL_BOTH,
		.impossible = IMPOSSIBLE_IS_ILLEGAL,
		.pawn_info = PAWN_INFO_ASK,
		.any_answers_try = false,
		.any_after_first_move = false,
		.any_obliges = true,
		.capture_kind = false,
		.ep = EP_VICTIM_SQUARE,
		.checks = CHECK_STYLE_LENGTH,
		.preference_lists = false,
		.quiet_sequences = false,
		.draw_repetition = true,
		.draw_fifty = true,
		.draw_insufficient = true,
	},
	{
		.name = "insurance",
		.title = "Insurance Chess Club (1993): \"any?\" after the first move, \"you cannot do that\"",
		.illegal = ILLEGAL_BOTH,
		.impossible = IMPOSSIBLE_IS_ILLEGAL,
		.pawn_info = PAWN_INFO_ASK,
		.any_answers_try = false,
		.any_after_first_move = true,
		.any_obliges = true,
		.capture_kind = false,
		.ep = EP_VICTIM_SQUARE,
		.checks = CHECK_STYLE_LENGTH,
		.preference_lists = false,
		.quiet_sequences = false,
		.draw_repetition = true,
		.draw_fifty = true,
		.draw_insufficient = true,
	},
	{
		.name = "nost",
		.title = "NOST postal (1995): preference lists, \"if quiet\" sequences, illegal-try counts",
		.illegal = ILLEGAL_COUNTED,
		.impossible = IMPOSSIBLE_UNCOUNTED,
		.pawn_info = PAWN_INFO_YESNO,
		.any_answers_try = false,
		.any_after_first_move = false,
		.any_obliges = false,
		.capture_kind = false,
		.ep = EP_SPLIT,
		.checks = CHECK_STYLE_LENGTH,
		.preference_lists = true,
		.quiet_sequences = true,
		.draw_repetition = true,
		.draw_fifty = true,
		.draw_insufficient = true,
	},
	{
		.name = "gollon",
		.title = "Gollon / Pritchard card: \"Any?\" answered \"Try!\", \"Impossible\", en passant named",
		.illegal = ILLEGAL_BOTH,
		.impossible = IMPOSSIBLE_PUBLIC,
		.pawn_info = PAWN_INFO_ASK,
		.any_answers_try = true,
		.any_after_first_move = false,
		.any_obliges = true,
		.capture_kind = false,
		.ep = EP_NAMED_LANDING,
		.checks = CHECK_STYLE_GOLLON,
		.preference_lists = false,
		.quiet_sequences = false,
		.draw_repetition = true,
		.draw_fifty = true,
		.draw_insufficient = true,
	},
};

#define NRULESETS (sizeof rulesets / sizeof rulesets[0])

const struct ruleset *ruleset_find(const char *name)
{
	if (name == NULL)
		return NULL;
	for (size_t i = 0; i < NRULESETS; i++)
		if (strcmp(rulesets[i].name, name) == 0)
			return &rulesets[i];
	return NULL;
}

const struct ruleset *ruleset_default(void)
{
	return ruleset_find(RULESET_DEFAULT);
}

size_t ruleset_count(void)
{
	return NRULESETS;
}

const struct ruleset *ruleset_at(size_t i)
{
	return i < NRULESETS ? &rulesets[i] : NULL;
}

/* ------------------------------------------------------------------ */
/* Wording.  Each phrase uses only fields of the event it renders.     */

enum wording { W_ICC, W_ENGLISH, W_INSURANCE, W_NOST, W_GOLLON };

static enum wording wording_of(const struct ruleset *rs)
{
	if (rs == NULL)
		return W_ICC;
	if (strcmp(rs->name, "english") == 0)
		return W_ENGLISH;
	if (strcmp(rs->name, "insurance") == 0)
		return W_INSURANCE;
	if (strcmp(rs->name, "nost") == 0)
		return W_NOST;
	if (strcmp(rs->name, "gollon") == 0)
		return W_GOLLON;
	return W_ICC;
}

static const char *side_name(int by)
{
	return by == WHITE ? "White" : by == BLACK ? "Black" : "Nobody";
}

/* The direction words of one check, per wording. */
static const char *check_words(enum wording w, int dir)
{
	switch (w) {
	case W_ENGLISH: /* seed 001 rule 10 */
		switch (dir) {
		case CHECK_RANK: return "Rank check";
		case CHECK_FILE: return "File check";
		case CHECK_LONG_DIAGONAL: return "Long check";
		case CHECK_SHORT_DIAGONAL: return "Short check";
		case CHECK_KNIGHT: return "Knight check";
		default: break;
		}
		break;
	case W_INSURANCE: /* seed 002 rule 5 */
		switch (dir) {
		case CHECK_RANK: return "on the rank";
		case CHECK_FILE: return "on the file";
		case CHECK_LONG_DIAGONAL: return "on the long diagonal";
		case CHECK_SHORT_DIAGONAL: return "on the short diagonal";
		case CHECK_KNIGHT: return "with a knight";
		default: break;
		}
		break;
	case W_NOST: /* seed 000 rule 9 */
		switch (dir) {
		case CHECK_RANK: return "on the rank";
		case CHECK_FILE: return "on the file";
		case CHECK_LONG_DIAGONAL: return "on the long diagonal";
		case CHECK_SHORT_DIAGONAL: return "on the short diagonal";
		case CHECK_KNIGHT: return "from a knight";
		default: break;
		}
		break;
	case W_GOLLON: /* seed 004 "Check" */
		switch (dir) {
		case CHECK_RANK: return "along a rank";
		case CHECK_FILE: return "along a file";
		case CHECK_A1H8_DIAGONAL: return "along the small diagonal";
		case CHECK_H1A8_DIAGONAL: return "along the large diagonal";
		case CHECK_KNIGHT: return "by a knight";
		default: break;
		}
		break;
	case W_ICC: /* seed 003 "Checks" */
		switch (dir) {
		case CHECK_RANK: return "along the rank";
		case CHECK_FILE: return "along the file";
		case CHECK_LONG_DIAGONAL: return "along the long diagonal";
		case CHECK_SHORT_DIAGONAL: return "along the short diagonal";
		case CHECK_KNIGHT: return "by a knight";
		default: break;
		}
		break;
	}
	return "in an unknown direction";
}

static void say_check(enum wording w, const struct event *e, char *buf, size_t len)
{
	int other = e->by == WHITE ? BLACK : e->by == BLACK ? WHITE : -1;
	const char *a = check_words(w, e->checks[0]);
	bool dbl = e->checks[1] != CHECK_NONE;
	const char *b = dbl ? check_words(w, e->checks[1]) : "";

	switch (w) {
	case W_ENGLISH:
		if (dbl)
			snprintf(buf, len, "%s and %s", a, b);
		else
			snprintf(buf, len, "%s", a);
		break;
	case W_INSURANCE: {
		/* Seed 002 rule 5 says the whole move in one sentence: "White has
		 * moved giving check on the rank", "White has captured on [square]
		 * giving check ...".  The check is the move's last announcement, so
		 * its words carry the sentence (the event holds the square of a
		 * capture everybody heard with it). */
		char what[24];
		if (e->square >= 0 && e->square < 64) {
			char sq[3];
			square_name(e->square, sq);
			snprintf(what, sizeof what, "captured on %s", sq);
		} else {
			snprintf(what, sizeof what, "moved");
		}
		if (dbl)
			snprintf(buf, len, "%s has %s giving check %s and %s", side_name(e->by), what, a, b);
		else
			snprintf(buf, len, "%s has %s giving check %s", side_name(e->by), what, a);
		break;
	}
	case W_NOST:
		if (dbl)
			snprintf(buf, len, "%s is in double check %s and %s", side_name(other), a, b);
		else
			snprintf(buf, len, "%s is in check %s", side_name(other), a);
		break;
	case W_GOLLON:
	case W_ICC:
		if (dbl)
			snprintf(buf, len, "Double check %s and %s", a, b);
		else
			snprintf(buf, len, "Check %s", a);
		break;
	}
}

static void say_capture(enum wording w, const struct event *e, char *buf, size_t len)
{
	char sq[3] = "??";
	if (e->square >= 0 && e->square < 64)
		square_name(e->square, sq);
	switch (w) {
	case W_ICC:
		if (e->what == CAPTURED_PAWN)
			snprintf(buf, len, "Pawn captured on %s", sq);
		else if (e->what == CAPTURED_PIECE)
			snprintf(buf, len, "Piece captured on %s", sq);
		else
			snprintf(buf, len, "Capture on %s", sq);
		break;
	case W_ENGLISH:
		snprintf(buf, len, "Capture on %s", sq);
		break;
	case W_INSURANCE:
		snprintf(buf, len, "%s has captured on %s", side_name(e->by), sq);
		break;
	case W_NOST:
		snprintf(buf, len, "%s captured at %s", side_name(e->by), sq);
		break;
	case W_GOLLON:
		if (e->en_passant)
			snprintf(buf, len, "%s has taken en passant on %s", side_name(e->by), sq);
		else
			snprintf(buf, len, "%s has captured on %s", side_name(e->by), sq);
		break;
	}
}

static void say_game_over(enum wording w, const struct event *e, char *buf, size_t len)
{
	const char *winner = e->result == RESULT_WHITE ? "White" : e->result == RESULT_BLACK ? "Black" : NULL;
	const char *reason = game_reason_name(e->reason);
	if (reason == NULL)
		reason = "unknown reason";
	switch (e->reason) {
	case REASON_CHECKMATE:
		if (w == W_INSURANCE)
			snprintf(buf, len, "%s has given checkmate", winner ? winner : "Nobody");
		else
			snprintf(buf, len, "Checkmate: %s wins", winner ? winner : "nobody");
		return;
	case REASON_RESIGNATION:
		snprintf(buf, len, "%s resigns", side_name(e->by));
		return;
	case REASON_TIME:
		if (winner)
			snprintf(buf, len, "%s lost on time", side_name(e->by));
		else
			snprintf(buf, len, "%s ran out of time; drawn, the other side cannot mate", side_name(e->by));
		return;
	case REASON_ABANDONED:
		snprintf(buf, len, "%s abandoned the game", side_name(e->by));
		return;
	case REASON_ABORTED:
		snprintf(buf, len, "Game aborted");
		return;
	default:
		break;
	}
	if (e->result == RESULT_DRAW) {
		static const char *const why[] = {
			[REASON_STALEMATE] = "stalemate",
			[REASON_REPETITION] = "threefold repetition",
			[REASON_FIFTY_MOVES] = "the fifty-move rule",
			[REASON_INSUFFICIENT] = "insufficient material",
			[REASON_AGREEMENT] = "agreement",
		};
		const char *t = e->reason < sizeof why / sizeof why[0] && why[e->reason] ? why[e->reason] : reason;
		if (w == W_INSURANCE)
			snprintf(buf, len, "The game is drawn (%s)", t);
		else
			snprintf(buf, len, "Drawn by %s", t);
	} else {
		snprintf(buf, len, "%s wins (%s)", winner ? winner : "Nobody", reason);
	}
}

void ruleset_say(const struct ruleset *rs, const struct event *e, char *buf, size_t len)
{
	enum wording w = wording_of(rs);
	const char *who = side_name(e->by);
	/* The move is spoken only when this copy carries it. */
	char uci[NOTATION_MAX];
	const char *mv = NULL;
	if (e->move != MOVE_NONE) {
		notation_uci(e->move, uci);
		if (e->san[0] == '\0' && move_kind(e->move) == MOVE_CASTLING)
			snprintf(uci, sizeof uci, "%s", move_to(e->move) > move_from(e->move) ? "O-O" : "O-O-O");
		mv = e->san[0] ? e->san : uci;
	}

	if (len == 0)
		return;
	buf[0] = '\0';
	switch (e->type) {
	case EV_MOVE:
		if (w == W_ENGLISH)
			snprintf(buf, len, "%s: %s", who, mv ? mv : "");
		else if (w == W_NOST)
			snprintf(buf, len, "You moved %s", mv ? mv : "");
		else
			snprintf(buf, len, "%s played %s", who, mv ? mv : "");
		break;
	case EV_MOVED:
		if (w == W_ENGLISH)
			snprintf(buf, len, "%s", who);
		else
			snprintf(buf, len, "%s has moved", who);
		break;
	case EV_UMPIRE_MOVE:
		snprintf(buf, len, "%s played %s", who, mv ? mv : "");
		break;
	case EV_ILLEGAL:
		if (w == W_INSURANCE)
			snprintf(buf, len, "You cannot do that%s%s%s", mv ? " (" : "", mv ? mv : "", mv ? ")" : "");
		else if (mv)
			snprintf(buf, len, "Illegal: %s", mv);
		else if (w == W_ICC || w == W_NOST)
			snprintf(buf, len, "Illegal move");
		else
			snprintf(buf, len, "%s tried an illegal move", who);
		break;
	case EV_IMPOSSIBLE:
		if (mv)
			snprintf(buf, len, "Impossible: %s", mv);
		else
			snprintf(buf, len, "Impossible");
		break;
	case EV_CAPTURE:
		say_capture(w, e, buf, len);
		break;
	case EV_CHECK:
		say_check(w, e, buf, len);
		break;
	case EV_PAWN_TRIES:
		if (e->count == 1)
			snprintf(buf, len, "%s has 1 pawn try", who);
		else
			snprintf(buf, len, "%s has %d pawn tries", who, e->count);
		break;
	case EV_PAWN_CAPTURES:
		snprintf(buf, len, "%s has %s pawn capture", who, e->answer ? "a" : "no");
		break;
	case EV_ANY:
		if (e->answer == ANY_NO)
			snprintf(buf, len, "No");
		else if (e->answer == ANY_TRY)
			snprintf(buf, len, "Try!");
		else if (w == W_INSURANCE)
			snprintf(buf, len, "Try"); /* seed 002: 'The Umpire says "try"' */
		else
			snprintf(buf, len, "Yes");
		break;
	case EV_ILLEGAL_COUNT:
		if (e->count == 1)
			snprintf(buf, len, "%s tried one illegal move", who);
		else
			snprintf(buf, len, "%s tried %d illegal moves", who, e->count);
		break;
	case EV_ALL_ILLEGAL:
		snprintf(buf, len, "All of %s's moves were illegal; send more", who);
		break;
	case EV_QUIET_ENDED:
		snprintf(buf, len, "%s's quiet sequence stopped; %d move%s not played", who, e->count,
		         e->count == 1 ? "" : "s");
		break;
	case EV_GAME_OVER:
		say_game_over(w, e, buf, len);
		break;
	default:
		snprintf(buf, len, "?");
		break;
	}
}
