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

/*
 * Wording.  Where the rule sets' umpires say the same thing it is said once,
 * in ruleset_say(); a struct wording holds only the phrases that differ.
 * A phrase is a template: {name} is replaced by one value of the event
 * (see ruleset_say()), everything else is said as written.  Each phrase
 * uses only fields of the event it renders.
 */
#define NCHECK_DIRS (CHECK_H1A8_DIAGONAL + 1)

struct wording {
	const char *check_dir[NCHECK_DIRS]; /* the words of one check direction; NULL: not said */
	const char *check[2];          /* one check {check}, a double check {check} and {check2} */
	const char *check_capture[2];  /* the same when the move captured on {square}; NULL: as check */
	const char *capture;           /* {who} captured on {square} */
	const char *capture_pawn;      /* the same when the kind is said; NULL: as capture */
	const char *capture_piece;
	const char *capture_ep;        /* when en passant is said; NULL: as capture */
	const char *capture_exact;     /* the exact man said, {man} on {square}; NULL: as capture */
	const char *drop;              /* {who} dropped {a_man}; NULL: not said */
	const char *move;              /* the mover's own move: {who}, {move} */
	const char *moved;             /* the opponent's copy: {who} */
	const char *illegal;           /* the mover's refused try, {move} */
	const char *illegal_unnamed;   /* a refused try without the move, {who} */
	const char *any_yes;           /* "any?" answered yes */
	const char *impossible;        /* the mover's impossible try, {move}; NULL: "Impossible: {move}" */
	const char *impossible_unnamed; /* one without the move, {who}; NULL: "Impossible" */
	const char *stalemate_win;     /* a stalemate that wins, {Winner}; NULL: the generic win */
	const char *checkmate;         /* {winner} (or "nobody"), {Winner} (or "Nobody") */
	const char *drawn;             /* {why} */
};

static const struct wording icc_words = { /* seed 003 "Checks" */
	.check_dir = {
		[CHECK_RANK] = "along the rank",
		[CHECK_FILE] = "along the file",
		[CHECK_LONG_DIAGONAL] = "along the long diagonal",
		[CHECK_SHORT_DIAGONAL] = "along the short diagonal",
		[CHECK_KNIGHT] = "by a knight",
	},
	.check = { "Check {check}", "Double check {check} and {check2}" },
	.capture = "Capture on {square}",
	.capture_pawn = "Pawn captured on {square}",
	.capture_piece = "Piece captured on {square}",
	.move = "{who} played {move}",
	.moved = "{who} has moved",
	.illegal = "Illegal: {move}",
	.illegal_unnamed = "Illegal move",
	.any_yes = "Yes",
	.checkmate = "Checkmate: {winner} wins",
	.drawn = "Drawn by {why}",
};

static const struct wording english_words = { /* seed 001 rule 10 */
	.check_dir = {
		[CHECK_RANK] = "Rank check",
		[CHECK_FILE] = "File check",
		[CHECK_LONG_DIAGONAL] = "Long check",
		[CHECK_SHORT_DIAGONAL] = "Short check",
		[CHECK_KNIGHT] = "Knight check",
	},
	.check = { "{check}", "{check} and {check2}" },
	.capture = "Capture on {square}",
	.move = "{who}: {move}",
	.moved = "{who}",
	.illegal = "Illegal: {move}",
	.illegal_unnamed = "{who} tried an illegal move",
	.any_yes = "Yes",
	.checkmate = "Checkmate: {winner} wins",
	.drawn = "Drawn by {why}",
};

static const struct wording insurance_words = { /* seed 002 rule 5 */
	.check_dir = {
		[CHECK_RANK] = "on the rank",
		[CHECK_FILE] = "on the file",
		[CHECK_LONG_DIAGONAL] = "on the long diagonal",
		[CHECK_SHORT_DIAGONAL] = "on the short diagonal",
		[CHECK_KNIGHT] = "with a knight",
	},
	/* The whole move in one sentence: "White has moved giving check on
	 * the rank", "White has captured on [square] giving check ...".  The
	 * check is the move's last announcement, so its words carry the
	 * sentence (the event holds the square of a capture everybody heard). */
	.check = { "{who} has moved giving check {check}", "{who} has moved giving check {check} and {check2}" },
	.check_capture = { "{who} has captured on {square} giving check {check}",
	                   "{who} has captured on {square} giving check {check} and {check2}" },
	.capture = "{who} has captured on {square}",
	.move = "{who} played {move}",
	.moved = "{who} has moved",
	.illegal = "You cannot do that ({move})",
	.illegal_unnamed = "You cannot do that",
	.any_yes = "Try", /* seed 002: 'The Umpire says "try"' */
	.checkmate = "{Winner} has given checkmate",
	.drawn = "The game is drawn ({why})",
};

static const struct wording nost_words = { /* seed 000 rule 9 */
	.check_dir = {
		[CHECK_RANK] = "on the rank",
		[CHECK_FILE] = "on the file",
		[CHECK_LONG_DIAGONAL] = "on the long diagonal",
		[CHECK_SHORT_DIAGONAL] = "on the short diagonal",
		[CHECK_KNIGHT] = "from a knight",
	},
	.check = { "{checked} is in check {check}", "{checked} is in double check {check} and {check2}" },
	.capture = "{who} captured at {square}",
	.move = "You moved {move}",
	.moved = "{who} has moved",
	.illegal = "Illegal: {move}",
	.illegal_unnamed = "Illegal move",
	.any_yes = "Yes",
	.checkmate = "Checkmate: {winner} wins",
	.drawn = "Drawn by {why}",
};

static const struct wording gollon_words = { /* seed 004 "Check" */
	.check_dir = {
		[CHECK_RANK] = "along a rank",
		[CHECK_FILE] = "along a file",
		[CHECK_A1H8_DIAGONAL] = "along the small diagonal",
		[CHECK_H1A8_DIAGONAL] = "along the large diagonal",
		[CHECK_KNIGHT] = "by a knight",
	},
	.check = { "Check {check}", "Double check {check} and {check2}" },
	.capture = "{who} has captured on {square}",
	.capture_ep = "{who} has taken en passant on {square}",
	.move = "{who} played {move}",
	.moved = "{who} has moved",
	.illegal = "Illegal: {move}",
	.illegal_unnamed = "{who} tried an illegal move",
	.any_yes = "Yes",
	.checkmate = "Checkmate: {winner} wins",
	.drawn = "Drawn by {why}",
};

/* kriegspiel.org's Berkeley rules (Kriegspiel/ks-game; RULESETS.md): the
 * square of a capture alone, "impossible" said to the mover only. */
static const struct wording berkeley_words = {
	.check_dir = {
		[CHECK_RANK] = "on the rank",
		[CHECK_FILE] = "on the file",
		[CHECK_LONG_DIAGONAL] = "on the long diagonal",
		[CHECK_SHORT_DIAGONAL] = "on the short diagonal",
		[CHECK_KNIGHT] = "by a knight",
	},
	.check = { "Check {check}", "Double check {check} and {check2}" },
	.capture = "Capture on {square}",
	.move = "{who} played {move}",
	.moved = "{who} has moved",
	.illegal = "Illegal: {move}",
	.illegal_unnamed = "{who} tried an illegal move",
	.any_yes = "Yes",
	.checkmate = "Checkmate: {winner} wins",
	.drawn = "Drawn by {why}",
};

/* Cincinnati and RAND (ks-game; RULESETS.md): a pawn or a piece, and
 * "nonsense" heard by both for a try the mover could know is impossible. */
static const struct wording cincinnati_words = {
	.check_dir = {
		[CHECK_RANK] = "on the rank",
		[CHECK_FILE] = "on the file",
		[CHECK_LONG_DIAGONAL] = "on the long diagonal",
		[CHECK_SHORT_DIAGONAL] = "on the short diagonal",
		[CHECK_KNIGHT] = "by a knight",
	},
	.check = { "Check {check}", "Double check {check} and {check2}" },
	.capture = "Capture on {square}",
	.capture_pawn = "Pawn captured on {square}",
	.capture_piece = "Piece captured on {square}",
	.move = "{who} played {move}",
	.moved = "{who} has moved",
	.illegal = "Illegal: {move}",
	.illegal_unnamed = "{who} tried an illegal move",
	.any_yes = "Yes",
	.impossible = "Nonsense: {move}",
	.impossible_unnamed = "{who} tried nonsense",
	.checkmate = "Checkmate: {winner} wins",
	.drawn = "Drawn by {why}",
};

/* RAND (Ferguson's announcements, ks-game's rules): "Pawn gone", "Piece gone". */
static const struct wording rand_words = {
	.check_dir = {
		[CHECK_RANK] = "on the rank",
		[CHECK_FILE] = "on the file",
		[CHECK_LONG_DIAGONAL] = "on the long diagonal",
		[CHECK_SHORT_DIAGONAL] = "on the short diagonal",
		[CHECK_KNIGHT] = "by a knight",
	},
	.check = { "Check {check}", "Double check {check} and {check2}" },
	.capture = "Capture on {square}",
	.capture_pawn = "Pawn gone on {square}",
	.capture_piece = "Piece gone on {square}",
	.move = "{who} played {move}",
	.moved = "{who} has moved",
	.illegal = "No: {move}",
	.illegal_unnamed = "No",
	.any_yes = "Yes",
	.impossible = "Nonsense: {move}",
	.impossible_unnamed = "{who} tried nonsense",
	.stalemate_win = "Stalemate: {Winner} wins",
	.checkmate = "Checkmate: {winner} wins",
	.drawn = "Drawn by {why}",
};

static const struct wording crazykrieg_words = { /* ks-game's answers, as berkeley's */
	.check_dir = {
		[CHECK_RANK] = "on the rank",
		[CHECK_FILE] = "on the file",
		[CHECK_LONG_DIAGONAL] = "on the long diagonal",
		[CHECK_SHORT_DIAGONAL] = "on the short diagonal",
		[CHECK_KNIGHT] = "by a knight",
	},
	.check = { "Check {check}", "Double check {check} and {check2}" },
	.capture = "Capture on {square}",
	.capture_exact = "{Man} captured on {square}",
	.drop = "{who} dropped {a_man}",
	.move = "{who} played {move}",
	.moved = "{who} has moved",
	.illegal = "Illegal: {move}",
	.illegal_unnamed = "{who} tried an illegal move",
	.any_yes = "Yes",
	.impossible = "Nonsense: {move}",
	.impossible_unnamed = "{who} tried nonsense",
	.checkmate = "Checkmate: {winner} wins",
	.drawn = "Drawn by {why}",
};

static const struct ruleset rulesets[] = {
	{
		.name = "icc",
		.wording = &icc_words,
		.title = "ICC / Computer Olympiad: pawn-try counts, pawn or piece captured, silent illegal tries",
		.illegal = ILLEGAL_MOVER,
		.impossible = IMPOSSIBLE_PRIVATE,
		.pawn_info = PAWN_INFO_COUNT,
		.any_answers_try = false,
		.any_after_first_move = false,
		.any_obliges = ANY_FREE,
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
		.wording = &english_words,
		.title = "English rules of the Gambit Club, London (1933): \"any?\" on request, illegal tries announced",
		.illegal = ILLEGAL_BOTH,
		.impossible = IMPOSSIBLE_IS_ILLEGAL,
		.pawn_info = PAWN_INFO_ASK,
		.any_answers_try = false,
		.any_after_first_move = false,
		.any_obliges = ANY_ONE_TRY,
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
		.wording = &insurance_words,
		.title = "Insurance Chess Club (1993): \"any?\" after the first move, \"you cannot do that\"",
		.illegal = ILLEGAL_BOTH,
		.impossible = IMPOSSIBLE_IS_ILLEGAL,
		.pawn_info = PAWN_INFO_ASK,
		.any_answers_try = false,
		.any_after_first_move = true,
		.any_obliges = ANY_ONE_TRY,
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
		.wording = &nost_words,
		.title = "NOST postal (1995): preference lists, \"if quiet\" sequences, illegal-try counts",
		.illegal = ILLEGAL_COUNTED,
		.impossible = IMPOSSIBLE_UNCOUNTED,
		.pawn_info = PAWN_INFO_YESNO,
		.any_answers_try = false,
		.any_after_first_move = false,
		.any_obliges = ANY_FREE,
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
		.wording = &gollon_words,
		.title = "Gollon / Pritchard card: \"Any?\" answered \"Try!\", \"Impossible\", en passant named",
		.illegal = ILLEGAL_BOTH,
		.impossible = IMPOSSIBLE_PUBLIC,
		.pawn_info = PAWN_INFO_ASK,
		.any_answers_try = true,
		.any_after_first_move = false,
		.any_obliges = ANY_ONE_TRY,
		.any_no_pawns_impossible = true,
		.capture_kind = false,
		.ep = EP_NAMED_LANDING,
		.checks = CHECK_STYLE_GOLLON,
		.preference_lists = false,
		.quiet_sequences = false,
		.draw_repetition = true,
		.draw_fifty = true,
		.draw_insufficient = true,
	},
	{
		.name = "berkeley",
		.wording = &berkeley_words,
		.title = "Berkeley (kriegspiel.org): illegal tries heard by both, capture square only, no \"any?\"",
		.illegal = ILLEGAL_BOTH,
		.impossible = IMPOSSIBLE_PRIVATE,
		.pawn_info = PAWN_INFO_NONE,
		.any_answers_try = false,
		.any_after_first_move = false,
		.any_obliges = ANY_FREE,
		.pawn_info_binds = false,
		.capture_kind = false,
		.promotion_said = false,
		.stalemate_loses = false,
		.ep = EP_VICTIM_SQUARE,
		.checks = CHECK_STYLE_LENGTH,
		.preference_lists = false,
		.quiet_sequences = false,
		.draw_repetition = true,
		.draw_fifty = true,
		.draw_insufficient = true,
	},
	{
		.name = "berkeley_any",
		.wording = &berkeley_words,
		.title = "Berkeley + Any (kriegspiel.org): \"any?\" binds to pawn captures until one is played",
		.illegal = ILLEGAL_BOTH,
		.impossible = IMPOSSIBLE_PRIVATE,
		.pawn_info = PAWN_INFO_ASK,
		.any_answers_try = false,
		.any_after_first_move = false,
		.any_obliges = ANY_UNTIL_PLAYED,
		.pawn_info_binds = true,
		.capture_kind = false,
		.promotion_said = false,
		.stalemate_loses = false,
		.ep = EP_VICTIM_SQUARE,
		.checks = CHECK_STYLE_LENGTH,
		.preference_lists = false,
		.quiet_sequences = false,
		.draw_repetition = true,
		.draw_fifty = true,
		.draw_insufficient = true,
	},
	{
		.name = "cincinnati",
		.wording = &cincinnati_words,
		.title = "Cincinnati (kriegspiel.org): pawn capture yes/no each turn, pawn or piece, \"nonsense\"",
		.illegal = ILLEGAL_BOTH,
		.impossible = IMPOSSIBLE_PUBLIC,
		.pawn_info = PAWN_INFO_YESNO,
		.any_answers_try = false,
		.any_after_first_move = false,
		.any_obliges = ANY_FREE,
		.pawn_info_binds = true,
		.capture_kind = true,
		.promotion_said = false,
		.stalemate_loses = false,
		.ep = EP_VICTIM_SQUARE,
		.checks = CHECK_STYLE_LENGTH,
		.preference_lists = false,
		.quiet_sequences = false,
		.draw_repetition = true,
		.draw_fifty = true,
		.draw_insufficient = true,
	},
	{
		.name = "rand",
		.wording = &rand_words,
		.title = "RAND (kriegspiel.org): pawn-try squares each turn, promotion said, stalemate loses",
		.illegal = ILLEGAL_BOTH,
		.impossible = IMPOSSIBLE_PUBLIC,
		.pawn_info = PAWN_INFO_SQUARES,
		.any_answers_try = false,
		.any_after_first_move = false,
		.any_obliges = ANY_FREE,
		.pawn_info_binds = true,
		.capture_kind = true,
		.promotion_said = true,
		.stalemate_loses = true,
		.ep = EP_VICTIM_SQUARE,
		.checks = CHECK_STYLE_LENGTH,
		.preference_lists = false,
		.quiet_sequences = false,
		.draw_repetition = true,
		.draw_fifty = true,
		.draw_insufficient = true,
	},	{
		.name = "crazykrieg",
		.wording = &crazykrieg_words,
		.title = "CrazyKrieg (kriegspiel.org): Crazyhouse drops, exact captures, \"any?\", \"nonsense\"",
		.illegal = ILLEGAL_BOTH,
		.impossible = IMPOSSIBLE_PUBLIC,
		.pawn_info = PAWN_INFO_ASK,
		.any_answers_try = false,
		.any_after_first_move = false,
		.any_obliges = ANY_ONE_TRY,
		.pawn_info_binds = true,
		.capture_kind = false,
		.capture_exact = true,
		.drops = true,
		.promotion_said = false,
		.stalemate_loses = false,
		.ep = EP_VICTIM_SQUARE,
		.checks = CHECK_STYLE_LENGTH,
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

void ruleset_names(char *out, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	out[0] = '\0';
	for (size_t i = 0; i < NRULESETS && used < len; i++) {
		int n = snprintf(out + used, len - used, "%s%s", i ? ", " : "", rulesets[i].name);
		used += n > 0 ? (size_t)n : 0;
	}
}

/* ------------------------------------------------------------------ */
/* Saying one event.                                                   */

static const char *side_name(int by)
{
	return by == WHITE ? "White" : by == BLACK ? "Black" : "Nobody";
}

static const char *check_dir_words(const struct wording *w, int dir)
{
	if (dir >= 0 && dir < NCHECK_DIRS && w->check_dir[dir] != NULL)
		return w->check_dir[dir];
	return "in an unknown direction";
}

/* The values a phrase may name, in the order of var_names. */
enum { V_WHO, V_CHECKED, V_MOVE, V_SQUARE, V_CHECK, V_CHECK2, V_WINNER, V_WINNER_CAP, V_REASON, V_WHY,
       V_MAN_CAP, V_A_MAN, NVARS };
static const char *const var_names[NVARS] = {
	"who", "checked", "move", "square", "check", "check2", "winner", "Winner", "reason", "why",
	"Man", "a_man",
};

/* Write phrase t into buf as snprintf would (truncated, always ended). */
static void expand(char *buf, size_t len, const char *t, const char *const val[NVARS])
{
	size_t n = 0;
	while (*t != '\0') {
		const char *s = t, *end = t + 1;
		if (*t == '{') {
			for (int i = 0; i < NVARS; i++) {
				size_t k = strlen(var_names[i]);
				if (strncmp(t + 1, var_names[i], k) == 0 && t[1 + k] == '}') {
					s = val[i];
					end = s + strlen(s);
					t += k + 1;
					break;
				}
			}
		}
		t++;
		for (; s < end && n + 1 < len; s++)
			buf[n++] = *s;
	}
	buf[n] = '\0';
}

static const char *game_over_phrase(const struct wording *w, const struct event *e)
{
	switch (e->reason) {
	case REASON_CHECKMATE:
		return w->checkmate;
	case REASON_STALEMATE:
		if (w->stalemate_win && (e->result == RESULT_WHITE || e->result == RESULT_BLACK))
			return w->stalemate_win;
		break;
	case REASON_RESIGNATION:
		return "{who} resigns";
	case REASON_TIME:
		if (e->result == RESULT_WHITE || e->result == RESULT_BLACK)
			return "{who} lost on time";
		return "{who} ran out of time; drawn, the other side cannot mate";
	case REASON_ABANDONED:
		return "{who} abandoned the game";
	case REASON_ABORTED:
		return "Game aborted";
	case REASON_ADJUDICATION:
		return e->result == RESULT_DRAW ? "The umpire adjudicates a draw"
		                                : "The umpire adjudicates: {Winner} wins";
	default:
		break;
	}
	return e->result == RESULT_DRAW ? w->drawn : "{Winner} wins ({reason})";
}

/* rand: "White has pawn tries from c4 and e4" / "White has no pawn tries". */
static void say_squares(char *buf, size_t len, const char *who, uint64_t squares)
{
	int n = 0, total = 0;
	for (int sq = 0; sq < 64; sq++)
		total += (int)(squares >> sq & 1);
	if (total == 0) {
		snprintf(buf, len, "%s has no pawn tries", who);
		return;
	}
	size_t k = (size_t)snprintf(buf, len, "%s has pawn tries from", who);
	for (int sq = 0; sq < 64 && k < len; sq++) {
		if (!(squares >> sq & 1))
			continue;
		char name[3];
		square_name(sq, name);
		n++;
		const char *sep = n == 1 ? " " : n == total ? " and " : ", ";
		k += (size_t)snprintf(buf + k, len - k, "%s%s", sep, name);
	}
}

unsigned ruleset_told_later(const struct ruleset *rs, const struct evlist *out)
{
	unsigned told = 0;
	if (rs->illegal != ILLEGAL_COUNTED)
		return 0;
	for (size_t i = 0; i < out->n; i++) {
		const struct event *e = &out->v[i];
		if ((e->type == EV_ILLEGAL || e->type == EV_ALL_ILLEGAL) && (e->by == WHITE || e->by == BLACK))
			told |= e->by == WHITE ? AUD_BLACK : AUD_WHITE;
	}
	return told;
}

void ruleset_say(const struct ruleset *rs, const struct event *e, char *buf, size_t len)
{
	const struct wording *w = (rs != NULL ? rs : ruleset_default())->wording;
	int checked = e->by == WHITE ? BLACK : e->by == BLACK ? WHITE : -1;
	const char *winner = e->result == RESULT_WHITE ? "White" : e->result == RESULT_BLACK ? "Black" : NULL;
	static const char *const why[] = {
		[REASON_STALEMATE] = "stalemate",
		[REASON_REPETITION] = "threefold repetition",
		[REASON_FIFTY_MOVES] = "the fifty-move rule",
		[REASON_INSUFFICIENT] = "insufficient material",
		[REASON_AGREEMENT] = "agreement",
	};
	static const char *const man_cap[6] = { "Pawn", "Knight", "Bishop", "Rook", "Queen", "Man" };
	static const char *const a_man[6] = { "a pawn", "a knight", "a bishop", "a rook", "a queen", "a man" };
	const char *reason = game_reason_name(e->reason);
	if (reason == NULL)
		reason = "unknown reason";
	bool on_board = e->square >= 0 && e->square < 64;
	char sq[3] = "??";
	if (on_board)
		square_name(e->square, sq);
	/* The move is spoken only when this copy carries it. */
	char uci[NOTATION_MAX];
	const char *mv = NULL;
	if (e->move != MOVE_NONE) {
		notation_uci(e->move, uci);
		if (e->san[0] == '\0' && move_kind(e->move) == MOVE_CASTLING)
			snprintf(uci, sizeof uci, "%s", move_to(e->move) > move_from(e->move) ? "O-O" : "O-O-O");
		mv = e->san[0] ? e->san : uci;
	}
	const char *val[NVARS] = {
		[V_WHO] = side_name(e->by),
		[V_CHECKED] = side_name(checked),
		[V_MOVE] = mv ? mv : "",
		[V_SQUARE] = sq,
		[V_CHECK] = check_dir_words(w, e->checks[0]),
		[V_CHECK2] = check_dir_words(w, e->checks[1]),
		[V_WINNER] = winner ? winner : "nobody",
		[V_WINNER_CAP] = winner ? winner : "Nobody",
		[V_REASON] = reason,
		[V_WHY] = e->reason < sizeof why / sizeof why[0] && why[e->reason] ? why[e->reason] : reason,
		[V_MAN_CAP] = man_cap[captured_type(e->what) <= QUEEN ? captured_type(e->what) : KING],
		[V_A_MAN] = a_man[captured_type(e->what) <= QUEEN ? captured_type(e->what) : KING],
	};

	if (len == 0)
		return;
	buf[0] = '\0';
	const char *t = NULL;
	bool dbl = e->checks[1] != CHECK_NONE;
	switch (e->type) {
	case EV_MOVE:
		t = w->move;
		break;
	case EV_MOVED:
		t = w->moved;
		break;
	case EV_UMPIRE_MOVE:
		t = "{who} played {move}";
		break;
	case EV_ILLEGAL:
		t = mv ? w->illegal : w->illegal_unnamed;
		break;
	case EV_IMPOSSIBLE:
		if (mv)
			t = w->impossible ? w->impossible : "Impossible: {move}";
		else
			t = w->impossible_unnamed ? w->impossible_unnamed : "Impossible";
		break;
	case EV_PAWN_SQUARES:
		say_squares(buf, len, val[V_WHO], e->squares);
		break;
	case EV_PROMOTION:
		t = "{who} promoted a pawn";
		break;
	case EV_DROP:
		t = w->drop ? w->drop : "{who} dropped {a_man}";
		break;
	case EV_CAPTURE:
		t = w->capture_exact && captured_type(e->what) != PIECE_NONE ? w->capture_exact
		    : e->what == CAPTURED_PAWN && w->capture_pawn ? w->capture_pawn
		    : e->what == CAPTURED_PIECE && w->capture_piece ? w->capture_piece
		    : e->en_passant && w->capture_ep ? w->capture_ep
		    : w->capture;
		break;
	case EV_CHECK:
		t = on_board && w->check_capture[dbl] ? w->check_capture[dbl] : w->check[dbl];
		break;
	case EV_PAWN_TRIES:
		if (e->count == 1)
			snprintf(buf, len, "%s has 1 pawn try", val[V_WHO]);
		else
			snprintf(buf, len, "%s has %d pawn tries", val[V_WHO], e->count);
		break;
	case EV_PAWN_CAPTURES:
		snprintf(buf, len, "%s has %s pawn capture", val[V_WHO], e->answer ? "a" : "no");
		break;
	case EV_ANY:
		t = e->answer == ANY_NO ? "No" : e->answer == ANY_TRY ? "Try!" : w->any_yes;
		break;
	case EV_ILLEGAL_COUNT:
		if (e->count == 1)
			snprintf(buf, len, "%s tried one illegal move", val[V_WHO]);
		else
			snprintf(buf, len, "%s tried %d illegal moves", val[V_WHO], e->count);
		break;
	case EV_ALL_ILLEGAL:
		t = "All of {who}'s moves were illegal; send more";
		break;
	case EV_QUIET_ENDED:
		snprintf(buf, len, "%s's quiet sequence stopped; %d move%s not played", val[V_WHO], e->count,
		         e->count == 1 ? "" : "s");
		break;
	case EV_GAME_OVER:
		t = game_over_phrase(w, e);
		break;
	default:
		t = "?";
		break;
	}
	if (t != NULL)
		expand(buf, len, t, val);
}
