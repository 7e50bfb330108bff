/*
 * words.c — announcements in plain words (see words.h).
 */
#include "words.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "action.h"
#include "event_json.h"
#include "ghost.h"
#include "notation.h"
#include "proto.h"
#include "ruleset.h"
#include "scrub.h"
#include "text.h"

/*
 * What the server may send fits whole (words.h).  Each sum is a sentence's
 * fixed words, its longest inserts, and the text: the longest of each
 * kind, below, must fit in the buffer its callers give it.
 */
static_assert(WORDS_TEXT_MAX == ACTION_REASON_MAX, "an umpire's reason or note, chat, a tell: 200 bytes");
#define TEXT_BUF (WORDS_TEXT_MAX + 1)   /* one such text, cleaned, with its NUL */
#define RESULT_BUF 16                   /* a game's result as shown: "1/2-1/2", or what a server wrote */
#define INT_TEXT_MAX 20                 /* the longest json_int_t: "-9223372036854775808" */
#define WHEN_BUF 40                     /* ", 2026-12-03 18:02 UTC" (words_utc: "" if longer) */
/* the umpire's longest sentences, in a log line with its number */
static_assert(sizeof "Game over: no result by the umpire's decision ()" - 1 + RESULT_BUF - 1 + sizeof ": " - 1 +
              WORDS_TEXT_MAX + WORDS_NUMBER_MAX < WORDS_MAX, "an adjudication's note");
#define DURATION_BUF 32                 /* words_duration's "106751991167d 7h" at most */
static_assert(sizeof "The umpire gave a side  more seconds (): " - 1 + INT_TEXT_MAX + DURATION_BUF - 1 +
              WORDS_TEXT_MAX + WORDS_NUMBER_MAX < WORDS_MAX, "a time's reason");
static_assert(sizeof "The umpire restarted the clocks: " - 1 + WORDS_TEXT_MAX + WORDS_NUMBER_MAX < WORDS_MAX,
              "a pause's reason");
static_assert(sizeof "Umpire's note (umpires only): " - 1 + WORDS_TEXT_MAX + WORDS_NUMBER_MAX < WORDS_MAX,
              "a note");
/* people's words */
static_assert(sizeof "A message for you: . from : \"\"" - 1 + INT_TEXT_MAX + PROTO_NAME_MAX + WHEN_BUF - 1 +
              WORDS_TEXT_MAX < WORDS_CHAT_MAX, "a message");
static_assert(sizeof " (spectator) says: \"\"" - 1 + PROTO_NAME_MAX + WORDS_TEXT_MAX < WORDS_CHAT_MAX, "chat");
static_assert(sizeof " tells you: \"\"" - 1 + PROTO_NAME_MAX + WORDS_TEXT_MAX < WORDS_CHAT_MAX, "a tell");

/* snprintf, except that words cut short are cut between characters. */
__attribute__((format(printf, 3, 4)))
static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n >= 0 && len > 0 && (size_t)n >= len)
		buf[text_whole_len(buf, len - 1)] = '\0';   /* cut short: between characters */
}

const char *words_side(int color)
{
	return color == WHITE ? "White" : color == BLACK ? "Black" : "Nobody";
}

static const char *check_words(int dir)
{
	switch (dir) {
	case CHECK_RANK: return "on the rank";
	case CHECK_FILE: return "on the file";
	case CHECK_LONG_DIAGONAL: return "on the long diagonal";
	case CHECK_SHORT_DIAGONAL: return "on the short diagonal";
	case CHECK_KNIGHT: return "by a knight";
	case CHECK_A1H8_DIAGONAL: return "on the small diagonal (a1-h8)";
	case CHECK_H1A8_DIAGONAL: return "on the large diagonal (h1-a8)";
	default: return "from an unnamed direction";
	}
}

static const char *reason_words(int reason)
{
	switch (reason) {
	case REASON_CHECKMATE: return "checkmate";
	case REASON_STALEMATE: return "stalemate";
	case REASON_REPETITION: return "threefold repetition";
	case REASON_FIFTY_MOVES: return "the fifty-move rule";
	case REASON_INSUFFICIENT: return "insufficient material";
	case REASON_RESIGNATION: return "resignation";
	case REASON_AGREEMENT: return "agreement";
	case REASON_TIME: return "time";
	case REASON_ABANDONED: return "abandonment";
	case REASON_ABORTED: return "abort";
	default: return "the umpire's decision";
	}
}

void words_ending(const char *result, const char *reason, char *buf, size_t len)
{
	int r = reason ? game_reason_parse(reason) : -1;
	if (!result)
		result = "*";
	if (r == REASON_ABORTED)
		snprintf(buf, len, "aborted");
	else if (r == REASON_TIME)
		snprintf(buf, len, "%s on time", result);
	else if (r > REASON_NONE)
		snprintf(buf, len, "%s by %s", result, reason_words(r));
	else if (reason)   /* a reason this client does not know: as it came */
		snprintf(buf, len, "%s (%s)", result, reason);
	else
		snprintf(buf, len, "%s", result);
}

static void game_over(const struct event *e, char *buf, size_t len)
{
	const char *res = game_result_name(e->result);
	if (!res)
		res = "*";
	if (e->reason == REASON_ABORTED) {   /* by whom, when the server says (an umpire's: nobody) */
		if (e->by == WHITE || e->by == BLACK)
			say(buf, len, "Game aborted by %s", words_side(e->by));
		else
			say(buf, len, "Game aborted");
		return;
	}
	char lead[64] = "";
	if (e->reason == REASON_RESIGNATION && e->by >= 0)
		snprintf(lead, sizeof lead, "%s resigned. ", words_side(e->by));
	else if (e->reason == REASON_TIME && e->by >= 0)
		snprintf(lead, sizeof lead, "%s ran out of time. ", words_side(e->by));
	else if (e->reason == REASON_ABANDONED && e->by >= 0)
		snprintf(lead, sizeof lead, "%s abandoned the game. ", words_side(e->by));

	if (e->result == RESULT_WHITE || e->result == RESULT_BLACK) {
		const char *winner = e->result == RESULT_WHITE ? "White" : "Black";
		if (lead[0])
			say(buf, len, "Game over: %s%s wins (%s)", lead, winner, res);
		else
			say(buf, len, "Game over: %s wins by %s (%s)", winner,
			         reason_words(e->reason), res);
	} else if (e->result == RESULT_DRAW) {
		if (lead[0])
			say(buf, len, "Game over: %sDrawn (%s)", lead, res);
		else
			say(buf, len, "Game over: drawn by %s (%s)", reason_words(e->reason), res);
	} else {
		say(buf, len, "Game over: %s(%s)", lead, res);
	}
}

int words_half(const struct event *e)
{
	if (e->type == EV_GAME_OVER) {   /* `by` may name the other side: a stalemate's is the stalemated */
		bool by_move = e->reason == REASON_CHECKMATE || e->reason == REASON_STALEMATE ||
		               e->reason == REASON_REPETITION || e->reason == REASON_FIFTY_MOVES ||
		               e->reason == REASON_INSUFFICIENT;
		return by_move && e->ply > 0 ? e->ply : e->ply + 1;
	}
	/* A sequence stopped is said in the turn that stopped it, not beside
	 * its side's last move (the wording probe: "8." after "8..." in nost's
	 * umpire record) */
	if (e->type == EV_QUIET_ENDED)
		return e->ply + 1;
	return e->ply > 0 && e->by == (e->ply - 1) % 2 ? e->ply : e->ply + 1;
}

void words_event(const struct ruleset *rs, const struct event *e, int me, const char *san, char *buf,
                 size_t len)
{
	char mv[NOTATION_MAX] = "";
	bool mine = me >= 0 && e->by == me;
	const char *who = words_side(e->by);

	if (san && *san)
		snprintf(mv, sizeof mv, "%s", san);
	else if (e->move != MOVE_NONE)
		notation_uci(e->move, mv);

	switch (e->type) {
	case EV_MOVE:
		say(buf, len, "You played %s", mv[0] ? mv : "your move");
		break;
	case EV_MOVED:
		say(buf, len, mine ? "You have moved" : "%s has moved", who);
		break;
	case EV_ILLEGAL:
		if (mine && mv[0])
			say(buf, len, "Illegal: %s. Try again", mv);
		else if (mine)
			say(buf, len, "Your try was illegal");
		else
			say(buf, len, "%s tried an illegal move", who);
		break;
	case EV_IMPOSSIBLE:
		/* Not "your own pieces cannot make it": a pawn capture the turn's
		 * pawn information rules out is refused the same way
		 * (words_impossible says why, where the listener's view tells). */
		/* Told to both players without a move: gollon's answer to "any?"
		 * asked with no pawn left (seed 004), not a try (rules probe:
		 * "Your try was impossible" after an "any?"); a try's public
		 * copy goes to the others alone. */
		if (!mv[0] && (e->audience & AUD_WHITE) && (e->audience & AUD_BLACK))
			say(buf, len, mine ? "Impossible: you have no pawns to ask \"any?\" about"
			                        : "%s asked \"any?\" with no pawns: impossible", who);
		else if (mine && mv[0])
			say(buf, len, "Impossible: %s", mv);
		else if (mine)
			say(buf, len, "Your try was impossible");
		else
			say(buf, len, "%s tried an impossible move", who);
		break;
	case EV_CAPTURE: {
		char sq[3] = "??";
		if (e->square >= 0 && e->square < 64)
			square_name(e->square, sq);
		static const char *const man[] = { " a pawn", " a knight", " a bishop", " a rook", " a queen" };
		int exact = captured_type(e->what); /* crazykrieg names the man */
		const char *what = e->what == CAPTURED_PIECE ? " a piece"
		                 : exact >= PAWN && exact <= QUEEN ? man[exact] : "";
		say(buf, len, "%s captured%s on %s%s", who, what, sq,
		         e->en_passant ? " en passant" : "");
		break;
	}
	case EV_CHECK: {
		/* The check is on the side the mover (`by`) moved against: said with
		 * whom it is on, a sentence that reads alone (a screen reader's
		 * line, the log); an event that names no mover, as before. */
		int on = e->by == WHITE ? BLACK : e->by == BLACK ? WHITE : -1;
		char subject[32] = "";
		if (on >= 0 && on == me)
			snprintf(subject, sizeof subject, "You are");
		else if (on >= 0)
			snprintf(subject, sizeof subject, "%s is", words_side(on));
		if (subject[0] && e->checks[1] != CHECK_NONE)
			say(buf, len, "%s in double check: %s and %s", subject, check_words(e->checks[0]),
			    check_words(e->checks[1]));
		else if (subject[0])
			say(buf, len, "%s in check %s", subject, check_words(e->checks[0]));
		else if (e->checks[1] != CHECK_NONE)
			say(buf, len, "Double check: %s and %s", check_words(e->checks[0]),
			         check_words(e->checks[1]));
		else
			say(buf, len, "Check %s", check_words(e->checks[0]));
		break;
	}
	case EV_PAWN_TRIES: {
		char n[24];
		if (e->count == 0)
			snprintf(n, sizeof n, "no pawn tries");
		else
			snprintf(n, sizeof n, "%d pawn %s", e->count, e->count == 1 ? "try" : "tries");
		if (mine)
			say(buf, len, "You have %s", n);
		else
			say(buf, len, "%s has %s", who, n);
		break;
	}
	case EV_PAWN_CAPTURES:
		if (mine)
			say(buf, len, e->answer ? "You have a pawn capture" : "You have no pawn captures");
		else
			say(buf, len, e->answer ? "%s has a pawn capture" : "%s has no pawn captures", who);
		break;
	case EV_PAWN_SQUARES: {
		/* rand: the squares of the pawns that can capture */
		char from[8 * 5 + 4 + 1] = "";
		size_t f = 0;
		int total = 0, n = 0;
		for (int sq = 0; sq < 64; sq++)
			total += (int)(e->squares >> sq & 1);
		/* in the server's order (ruleset.c say_squares: a rank at a time,
		 * as the page and the PGN's announcements say them) */
		for (int sq = 0; sq < 64 && f + 6 < sizeof from; sq++) {
			if (!(e->squares >> sq & 1))
				continue;
			char name[3];
			square_name(sq, name);
			n++;
			/* "c4, d4 and e4", as the rule set says it (ruleset_say) */
			f += (size_t)snprintf(from + f, sizeof from - f, "%s%s",
			                      n == 1 ? "" : n == total ? " and " : ", ", name);
		}
		/* The squares are where the pawns stand, never where they capture:
		 * "from", not "on" (RULESETS.md, rand: "White has pawn tries from e4");
		 * to the mover in the same words as to the opponent (wording probe). */
		if (!from[0])
			say(buf, len, mine ? "You have no pawn tries" : "%s has no pawn tries", who);
		else
			say(buf, len, "%s can capture with %s from %s", mine ? "You" : who, total == 1 ? "a pawn" : "pawns",
			    from);
		break;
	}
	case EV_DROP: {
		/* crazykrieg: the man from the reserve, never the square */
		static const char *const man[] = { "a pawn", "a knight", "a bishop", "a rook", "a queen" };
		int t = captured_type(e->what);
		const char *m = t >= PAWN && t <= QUEEN ? man[t] : "a man";
		say(buf, len, mine ? "You dropped %s" : "%s dropped %s", mine ? m : who, m);
		break;
	}
	case EV_PROMOTION:
		say(buf, len, mine ? "You promoted a pawn" : "%s promoted a pawn", who);
		break;
	case EV_ANY: {
		const char *ans = e->answer == ANY_YES ? "yes" : e->answer == ANY_TRY ? "try!" : "no";
		if (mine && e->answer != ANY_NO && rs != NULL && rs->any_obliges == ANY_UNTIL_PLAYED)
			/* berkeley_any's yes binds until a pawn capture is played, a
			 * refused one included (the rules probe: "must try one first"
			 * said less) */
			say(buf, len, "Any? Yes. You have a pawn capture: only pawn captures may be tried until one "
			    "is played");
		else if (mine && e->answer != ANY_NO)
			/* a try is owed (seed 001, rule 11): said, not learnt from a refusal (first-game probe) */
			say(buf, len, "Any? %s You have a pawn capture to try, and must try one first",
			    e->answer == ANY_TRY ? "Try!" : "Yes.");
		else if (mine)
			say(buf, len, "Any? No. You have no pawn captures");
		else
			say(buf, len, "%s asked \"any?\": %s", who, ans);
		break;
	}
	case EV_ILLEGAL_COUNT:
		say(buf, len, "%s made %d illegal %s before moving", mine ? "You" : who, e->count,
		         e->count == 1 ? "try" : "tries");
		break;
	case EV_ALL_ILLEGAL:
		if (mine)
			say(buf, len, "All your tries were illegal: send more");
		else
			say(buf, len, "All of %s's tries were illegal", who);
		break;
	case EV_QUIET_ENDED:
		say(buf, len, "%s%s quiet sequence stopped with %d %s unplayed",
		         mine ? "Your" : who, mine ? "" : "'s", e->count, e->count == 1 ? "move" : "moves");
		break;
	case EV_GAME_OVER:
		game_over(e, buf, len);
		break;
	case EV_UMPIRE_MOVE:
		say(buf, len, "%s played %s", who, mv[0] ? mv : "a move");
		break;
	default:
		say(buf, len, "The umpire said something this client does not know");
		break;
	}
}

void words_impossible(const struct ruleset *rs, const struct event *e, enum words_why why, char *buf,
                      size_t len)
{
	/* The rule set's own word and the move as its umpire says them to the
	 * mover: "Impossible: e2e5", cincinnati's and rand's "Nonsense: e7d6". */
	char said[WORDS_MAX];
	ruleset_say(rs, e, said, sizeof said);
	if (why == WHY_OWN_PIECES)
		say(buf, len, "%s (your own pieces cannot make it)", said);
	else if (why == WHY_PAWN_INFO)
		say(buf, len, "%s (this turn's pawn announcement rules it out)", said);
	else
		say(buf, len, "%s", said);
}

/* --- the umpire's chair, and the umpire's actions --------------------------------- */

void words_umpire(const struct event *e, char *buf, size_t len)
{
	char mv[NOTATION_MAX] = "";
	if (e->san[0])
		snprintf(mv, sizeof mv, "%s", e->san);
	else if (e->move != MOVE_NONE)
		notation_uci(e->move, mv);
	if ((e->type == EV_ILLEGAL || e->type == EV_IMPOSSIBLE) && mv[0])
		say(buf, len, "%s tried %s: %s", words_side(e->by), mv,
		         e->type == EV_ILLEGAL ? "illegal" : "impossible");
	else
		words_event(NULL, e, -1, e->san, buf, len);
}

void words_heard(const struct event *e, char *buf, size_t len)
{
	bool side = e->by == WHITE || e->by == BLACK;
	unsigned mover = side ? aud_of(e->by) : 0;
	unsigned others = e->audience & (AUD_WHITE | AUD_BLACK | AUD_SPECTATOR) & ~mover;
	if (!side || e->type == EV_UMPIRE_MOVE || (e->move == MOVE_NONE && !e->san[0]) || !(e->audience & mover) ||
	    !others) {
		words_audience(e->audience, buf, len);
		return;
	}
	char rest[48];
	words_audience(others, rest, sizeof rest);
	say(buf, len, "%s; %s without the move", words_side(e->by), rest);
}

void words_audience(unsigned aud, char *buf, size_t len)
{
	unsigned heard = aud & (AUD_WHITE | AUD_BLACK | AUD_SPECTATOR);
	if (heard == (AUD_WHITE | AUD_BLACK | AUD_SPECTATOR)) {
		say(buf, len, "everyone");
		return;
	}
	if (!heard) {
		say(buf, len, "umpire only");
		return;
	}
	const char *names[3] = { "", "", "" };
	int n = 0;
	if (heard & AUD_WHITE)
		names[n++] = "White";
	if (heard & AUD_BLACK)
		names[n++] = "Black";
	if (heard & AUD_SPECTATOR)
		names[n++] = "spectators";
	if (n == 1)
		say(buf, len, "%s", names[0]);
	else if (n == 2)
		say(buf, len, "%s and %s", names[0], names[1]);
	else
		say(buf, len, "%s, %s and %s", names[0], names[1], names[2]);
}

void words_clean(const char *in, char *out, size_t len)
{
	if (len == 0)
		return;
	const unsigned char *p = (const unsigned char *)(in ? in : "");
	size_t avail = strlen((const char *)p), n = 0;
	for (size_t i = 0; i < avail;) {
		size_t k = text_utf8_seq(p + i, avail - i);
		if (n + (k ? k : 1) >= len)
			break;   /* a character that does not fit: none after it either */
		if (k == 0 || (k == 1 && (p[i] == '\n' || p[i] == '\t'))) {
			out[n++] = '?';   /* not UTF-8 (a server's own cut), or a line's end */
			i++;
			continue;
		}
		memmove(out + n, p + i, k);   /* n <= i: in may be out */
		n += k;
		i += k;
	}
	out[n] = '\0';
	scrub_text(out, n);
}

size_t words_fit(const char *s, size_t room)
{
	size_t n = strnlen(s, room < SIZE_MAX ? room + 1 : room);
	return n <= room ? n : text_whole_len(s, room);
}

/* The umpire's text of a message (`reason`, `text` or `note`), cleaned; "" when absent. */
static void umpire_text(const json_t *msg, const char *key, char *out, size_t len)
{
	words_clean(json_string_value(json_object_get(msg, key)), out, len);
}

int words_umpire_action(const json_t *msg, char *buf, size_t len)
{
	const char *name = json_string_value(json_object_get(msg, "event"));
	char text[TEXT_BUF];
	if (!name)
		return -1;
	if (!strcmp(name, "clock_paused") || !strcmp(name, "clock_unpaused")) {
		umpire_text(msg, "reason", text, sizeof text);
		say(buf, len, "The umpire %s the clocks%s%s", name[6] == 'p' ? "paused" : "restarted",
		         text[0] ? ": " : "", text);
		return 0;
	}
	/* Adjournment (PROTOCOL.md "Adjournment"): the players', not the umpire's. */
	const char *by = json_string_value(json_object_get(msg, "by"));
	const char *side = by && !strcmp(by, "white") ? "White" : by && !strcmp(by, "black") ? "Black"
	                                                                                     : "A player";
	if (!strcmp(name, "adjourn_offer")) {
		say(buf, len, "%s offers to adjourn", side);   /* how to answer: words_notice, to the opponent */
		return 0;
	}
	if (!strcmp(name, "adjourn_declined")) {
		say(buf, len, "%s declined to adjourn", side);
		return 0;
	}
	if (!strcmp(name, "adjourned")) {
		say(buf, len, "Adjourned (%s agreed): the clocks are stopped until \"unadjourn\"", side);
		return 0;
	}
	if (!strcmp(name, "unadjourned")) {
		say(buf, len, "%s resumed the adjourned game: the clocks run again", side);
		return 0;
	}
	if (!strcmp(name, "time_added")) {
		const char *color = json_string_value(json_object_get(msg, "color"));
		json_int_t secs = json_integer_value(json_object_get(msg, "seconds"));
		umpire_text(msg, "reason", text, sizeof text);
		/* more than a minute also as a clock says it ("86400 more seconds (1d 0h)") */
		char dur[DURATION_BUF] = "";
		if (secs > 60 && secs <= 1000000000)
			words_duration((long long)secs * 1000, dur, sizeof dur);
		say(buf, len, "The umpire gave %s %lld more second%s%s%s%s%s%s",
		         color && !strcmp(color, "black") ? "Black" : color && !strcmp(color, "white") ? "White" : "a side",
		         (long long)secs, secs == 1 ? "" : "s", dur[0] ? " (" : "", dur, dur[0] ? ")" : "",
		         text[0] ? ": " : "", text);
		return 0;
	}
	if (!strcmp(name, "umpire_note")) {
		umpire_text(msg, "text", text, sizeof text);
		if (json_is_true(json_object_get(msg, "private")))
			say(buf, len, "Umpire's note (umpires only): %s", text);
		else
			say(buf, len, "The umpire says: %s", text);
		return 0;
	}
	return -1;
}

int words_notice(const json_t *msg, int me, bool live, char *buf, size_t len)
{
	if (words_umpire_action(msg, buf, len) != 0)
		return -1;
	const char *name = json_string_value(json_object_get(msg, "event"));
	const char *by = json_string_value(json_object_get(msg, "by"));
	int col = by && !strcmp(by, "white") ? WHITE : by && !strcmp(by, "black") ? BLACK : -1;
	if ((me != WHITE && me != BLACK) || col < 0)
		return 0;
	/* An offer's instructions are for the one who answers it; its maker
	 * is told it was made (as "draw" says "Draw offered.").  A replayed
	 * offer has none: it is history, likely answered a line below (the
	 * friends probe). */
	if (!strcmp(name, "adjourn_offer") && col == me)
		say(buf, len, "You offered to adjourn");
	else if (!strcmp(name, "adjourn_offer") && live)
		say(buf, len, "%s offers to adjourn (\"adjourn\" accepts, \"adjourn decline\" declines)",
		         words_side(col));
	else if (!strcmp(name, "adjourn_declined") && col == me)
		say(buf, len, "You declined to adjourn");
	/* one's own acceptance and resumption (the friends probe: "Adjourned
	 * (White agreed)" to White, who had typed it) */
	else if (!strcmp(name, "adjourned") && col == me)
		say(buf, len, "Adjourned (you agreed): the clocks are stopped until \"unadjourn\"");
	else if (!strcmp(name, "unadjourned") && col == me)
		say(buf, len, "You resumed the adjourned game: the clocks run again");
	return 0;
}

int words_draw(const json_t *msg, int me, char *buf, size_t len)
{
	const char *name = json_string_value(json_object_get(msg, "event"));
	const char *by = json_string_value(json_object_get(msg, "by"));
	int col = by && !strcmp(by, "white") ? WHITE : by && !strcmp(by, "black") ? BLACK : -1;
	if (!name || (strcmp(name, "draw_offer") != 0 && strcmp(name, "draw_declined") != 0))
		return -1;
	bool offer = name[5] == 'o';
	const char *who = col >= 0 ? words_side(col) : "A player";
	if ((me == WHITE || me == BLACK) && col == me)
		say(buf, len, "%s", offer ? "You offered a draw" : "You declined the draw");
	else if ((me == WHITE || me == BLACK) && col >= 0 && !offer)
		say(buf, len, "%s declined your draw offer", who);
	else if (offer)
		say(buf, len, "%s offers a draw", who);
	else
		say(buf, len, "%s declined the draw", who);
	return 0;
}

int words_offer_after(int offer, const struct event *e)
{
	bool moved = e->type == EV_MOVE || e->type == EV_MOVED || e->type == EV_UMPIRE_MOVE;
	return offer >= 0 && moved && (e->by == WHITE || e->by == BLACK) && e->by != offer ? -1 : offer;
}

int words_umpire_end(const json_t *msg, char *buf, size_t len)
{
	const char *name = json_string_value(json_object_get(msg, "event"));
	const char *reason = json_string_value(json_object_get(msg, "reason"));
	const char *result = json_string_value(json_object_get(msg, "result"));
	char note[TEXT_BUF];
	if (!name || strcmp(name, "game_over") != 0)
		return -1;
	umpire_text(msg, "note", note, sizeof note);
	bool adjudged = reason && !strcmp(reason, "adjudication");
	if (!adjudged && !note[0])
		return -1;   /* an ordinary end: words_event says it */
	if (!adjudged && reason && !strcmp(reason, "aborted")) {
		say(buf, len, "Game aborted by the umpire: %s", note);
		return 0;
	}
	const char *who = !result ? "no result"
	                : !strcmp(result, "1-0") ? "White wins"
	                : !strcmp(result, "0-1") ? "Black wins"
	                : !strcmp(result, "1/2-1/2") ? "drawn" : "no result";
	char res[RESULT_BUF];
	words_clean(result ? result : "*", res, sizeof res);
	say(buf, len, "Game over: %s by the umpire's decision (%s)%s%s", who, res, note[0] ? ": " : "", note);
	return 0;
}

int words_read_event(const json_t *msg, struct event *e)
{
	if (event_from_json(msg, e) == 0)
		return 0;
	const char *name = json_string_value(json_object_get(msg, "event"));
	if (!name || strcmp(name, "game_over") != 0 || !json_object_get(msg, "reason"))
		return -1;
	/* a reason newer than this build (the umpire's "adjudication"): the rest still reads */
	json_t *copy = json_copy((json_t *)msg);
	json_object_del(copy, "reason");
	int rc = event_from_json(copy, e);
	json_decref(copy);
	return rc;
}

int words_chat(const json_t *msg, const char *white, const char *black, int me, char *buf, size_t len)
{
	const char *name = json_string_value(json_object_get(msg, "event"));
	const char *channel = json_string_value(json_object_get(msg, "channel"));
	if (!name || strcmp(name, "chat") != 0 || !channel)
		return -1;
	char text[TEXT_BUF], who[PROTO_NAME_MAX + 1];
	words_clean(json_string_value(json_object_get(msg, "text")), text, sizeof text);
	if (!strcmp(channel, "spectators")) {
		words_clean(json_string_value(json_object_get(msg, "user")), who, sizeof who);
		say(buf, len, "%s (spectator) says: \"%s\"", who[0] ? who : "a spectator", text);
		return 0;
	}
	const char *col = json_string_value(json_object_get(msg, "color"));
	int c = col && !strcmp(col, "white") ? WHITE : col && !strcmp(col, "black") ? BLACK : -1;
	if (c < 0)
		return -1;
	if (c == me) {
		say(buf, len, "You say: \"%s\"", text);
		return 0;
	}
	const char *n = c == WHITE ? white : black;
	words_clean(n, who, sizeof who);
	if (who[0])
		say(buf, len, "%s (%s) says: \"%s\"", who, words_side(c), text);
	else
		say(buf, len, "%s says: \"%s\"", words_side(c), text);
	return 0;
}

void words_utc_at(long long secs, const char *fmt, char *buf, size_t len)
{
	time_t t = (time_t)secs;
	struct tm tm;
	buf[0] = '\0';
	if (t > 0 && gmtime_r(&t, &tm) && strftime(buf, len, fmt, &tm) == 0)
		buf[0] = '\0';
}

void words_runs_out(int side, long long at_ms, char *buf, size_t len)
{
	char at[48];
	words_utc_at(at_ms / 1000, "%Y-%m-%d %H:%M UTC", at, sizeof at);
	if (at[0])
		say(buf, len, "%s's time runs out %s", words_side(side), at);
	else
		say(buf, len, "%s", "");
}

void words_utc(const json_t *o, const char *key, const char *fmt, char *buf, size_t len)
{
	words_utc_at((long long)json_integer_value(json_object_get(o, key)), fmt, buf, len);
}

void words_message(const json_t *m, char *buf, size_t len)
{
	char text[TEXT_BUF], who[PROTO_NAME_MAX + 1], when[WHEN_BUF];
	words_clean(json_string_value(json_object_get(m, "text")), text, sizeof text);
	words_clean(json_string_value(json_object_get(m, "from")), who, sizeof who);
	words_utc(m, "sent", ", %Y-%m-%d %H:%M UTC", when, sizeof when);
	say(buf, len, "%lld. from %s%s: \"%s\"", (long long)json_integer_value(json_object_get(m, "message")),
	         who[0] ? who : "someone", when, text);
}

int words_tell(const json_t *msg, char *buf, size_t len)
{
	const char *name = json_string_value(json_object_get(msg, "event"));
	if (name && strcmp(name, "message") == 0) {
		char line[WORDS_CHAT_MAX];
		words_message(msg, line, sizeof line);
		say(buf, len, "A message for you: %s", line);
		return 0;
	}
	if (!name || strcmp(name, "tell") != 0)
		return -1;
	char text[TEXT_BUF], who[PROTO_NAME_MAX + 1];
	words_clean(json_string_value(json_object_get(msg, "text")), text, sizeof text);
	words_clean(json_string_value(json_object_get(msg, "from")), who, sizeof who);
	say(buf, len, "%s tells you: \"%s\"", who[0] ? who : "someone", text);
	return 0;
}

void words_duration(long long ms, char *buf, size_t len)
{
	long long s = ms > 0 ? (ms + 999) / 1000 : 0;   /* a deadline: round up, never early */
	if (s >= 86400)
		say(buf, len, "%lldd %lldh", s / 86400, s % 86400 / 3600);
	else if (s >= 3600)
		say(buf, len, "%lld:%02lld:%02lld", s / 3600, s % 3600 / 60, s % 60);
	else
		say(buf, len, "%lld:%02lld", s / 60, s % 60);
}

/* ms as seconds: "2", "0.5" (the fraction's trailing zeros dropped). */
static void seconds_text(long long ms, char *buf, size_t len)
{
	int frac = (int)(ms % 1000), digits = 3;
	for (; frac && frac % 10 == 0; frac /= 10)
		digits--;
	if (frac)
		say(buf, len, "%lld.%0*d", ms / 1000, digits, frac);
	else
		say(buf, len, "%lld", ms / 1000);
}

/*
 * The base in minutes as seek and challenge take it: "5", "0.5", "1.25"
 * (a whole number of seconds divisible by 3 is an exact decimal of
 * minutes); any other base, as a clock shows it: "0:20", "0:00.6".
 * Integers only, not %g: main.c sets the locale, and %g would write
 * "0,5" where the decimal mark is a comma, which seek does not read.
 */
static void base_text(long long ms, char *buf, size_t len)
{
	char sec[32];
	if (ms % 1000 == 0 && ms / 1000 % 3 == 0) {
		long long hundredths = ms / 1000 * 5 / 3;   /* of a minute */
		if (hundredths % 100 == 0)
			say(buf, len, "%lld", hundredths / 100);
		else if (hundredths % 10 == 0)
			say(buf, len, "%lld.%lld", hundredths / 100, hundredths / 10 % 10);
		else
			say(buf, len, "%lld.%02lld", hundredths / 100, hundredths % 100);
		return;
	}
	seconds_text(ms % 60000, sec, sizeof sec);
	say(buf, len, "%lld:%s%s", ms / 60000, ms % 60000 < 10000 ? "0" : "", sec);
}

/* A wire number of seconds (>= 0) in whole ms, rounded. */
static long long wire_ms(const json_t *v)
{
	double s = json_number_value(v);
	return s > 0 && s < 1e12 ? (long long)(s * 1000 + 0.5) : 0;
}

void words_time(const json_t *t, char *buf, size_t len)
{
	json_t *days = json_object_get(t, "days"), *base = json_object_get(t, "base");
	char b[72], inc[32];
	if (json_is_integer(days)) {
		say(buf, len, "%lld day%s a move", (long long)json_integer_value(days),
		         json_integer_value(days) == 1 ? "" : "s");
	} else if (json_is_number(base)) {
		base_text(wire_ms(base), b, sizeof b);
		seconds_text(wire_ms(json_object_get(t, "inc")), inc, sizeof inc);
		say(buf, len, "%s+%s", b, inc);
	} else {
		say(buf, len, "untimed");
	}
}

void words_rating(const json_t *r, char *buf, size_t len)
{
	if (!json_is_integer(json_object_get(r, "rating"))) {
		say(buf, len, "%s", "");
		return;
	}
	say(buf, len, "%lld%s", (long long)json_integer_value(json_object_get(r, "rating")),
	         json_is_true(json_object_get(r, "provisional")) ? "?" : "");
}

void words_watching(const json_t *spectators, const char *lead, char *buf, size_t len)
{
	json_int_t n = json_integer_value(spectators);
	if (n > 0)
		say(buf, len, "%s%lld watching", lead, (long long)n);
	else
		say(buf, len, "%s", "");
}

bool words_bot(const json_t *game, int color)
{
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(game, "bots"), i, x) {
		const char *s = json_string_value(x);
		if (s && !strcmp(s, color == WHITE ? "white" : "black"))
			return true;
	}
	return false;
}

const char *words_bot_mark(const json_t *game, int color)
{
	return words_bot(game, color) ? ", a bot" : "";
}

void words_pairing(const json_t *o, const char *lead, char *buf, size_t len)
{
	/* both names come from the director, through the server: cleaned */
	char tour[PROTO_TOURNAMENT_MAX + 1], round[PROTO_ROUND_MAX + 1];
	words_clean(json_string_value(json_object_get(o, "tournament")), tour, sizeof tour);
	words_clean(json_string_value(json_object_get(o, "round")), round, sizeof round);
	if (tour[0] || round[0])
		say(buf, len, "%s%s%s%s%s", lead, tour, tour[0] && round[0] ? " " : "", round[0] ? "round " : "", round);
	else
		say(buf, len, "%s", "");
}

void words_offer(const json_t *o, const char *me, char *buf, size_t len)
{
	char who[PROTO_NAME_MAX + 1], rules[32], tc[48], rating[40] = "", side[48], range[48] = "", r[24];
	words_clean(json_string_value(json_object_get(o, "user")), who, sizeof who);
	words_clean(json_string_value(json_object_get(o, "rules")), rules, sizeof rules);
	words_time(json_object_get(o, "time"), tc, sizeof tc);
	words_rating(json_object_get(o, "rating"), r, sizeof r);
	bool bot = json_is_true(json_object_get(o, "bot"));   /* an account flagged as a bot */
	if (r[0])
		snprintf(rating, sizeof rating, " (%s%s)", bot ? "a bot, " : "", r);
	else if (bot)
		snprintf(rating, sizeof rating, " (a bot)");
	const char *col = json_string_value(json_object_get(o, "color"));
	int owner = col && !strcmp(col, "white") ? WHITE : col && !strcmp(col, "black") ? BLACK : -1;
	bool mine = me && me[0] && !strcmp(who, me);
	if (owner < 0)
		snprintf(side, sizeof side, "colours drawn at random");
	else
		snprintf(side, sizeof side, "you play %s", words_side(mine ? owner : !owner));
	if (json_is_integer(json_object_get(o, "rating_max")))
		snprintf(range, sizeof range, ", ratings %lld..%lld",
		         (long long)json_integer_value(json_object_get(o, "rating_min")),
		         (long long)json_integer_value(json_object_get(o, "rating_max")));
	say(buf, len, "%s%s: %s, %s, %s, %s%s", who[0] ? who : "?", rating, rules[0] ? rules : "?", tc,
	         json_is_true(json_object_get(o, "rated")) ? "rated" : "unrated", side, range);
}

/* The names of the men, singular and plural, by piece_type. */
static const char *const man_one[] = { "pawn", "knight", "bishop", "rook", "queen", "king" };
static const char *const man_many[] = { "pawns", "knights", "bishops", "rooks", "queens", "kings" };

void words_pieces(const struct board *own, int color, char *buf, size_t len)
{
	static const int order[] = { KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN };
	size_t n = 0;
	buf[0] = '\0';
	say(buf, len, "%s:", words_side(color));
	n = strlen(buf);
	bool first = true;
	for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
		uint8_t code = piece_code(color, order[k]);
		char squares[64 * 3 + 1] = "";
		size_t used = 0;
		int count = 0;
		for (int file = 0; file < 8; file++)   /* a file at a time: "a2 b2 c2", "rooks a1 h1" */
			for (int rank = 0; rank < 8; rank++) {
				int sq = rank * 8 + file;
				if (own->mailbox[sq] != code)
					continue;
				char name[3];
				square_name(sq, name);
				used += (size_t)snprintf(squares + used, sizeof squares - used, " %s", name);
				count++;
			}
		if (count == 0 || n + 1 >= len)
			continue;
		say(buf + n, len - n, "%s %s%s", first ? "" : ",", count == 1 ? man_one[order[k]] : man_many[order[k]],
		    squares);
		n += strlen(buf + n);
		first = false;
	}
	/* crazykrieg: one's own reserve, which the board shows under it */
	bool lead = true;
	for (int t = PAWN; t <= QUEEN && n + 1 < len; t++) {
		int k = own->hand[color][t];
		if (k == 0)
			continue;
		say(buf + n, len - n, "%s %d %s", lead ? "; in reserve:" : ",", k, k == 1 ? man_one[t] : man_many[t]);
		n += strlen(buf + n);
		lead = false;
	}
}

void words_ghosts(const struct ghosts *g, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int file = 0; file < 8; file++)
		for (int rank = 0; rank < 8 && n + 1 < len; rank++) {
			int sq = rank * 8 + file;
			uint8_t code = g->sq[sq];
			if (code == MAILBOX_EMPTY)
				continue;
			char name[3];
			square_name(sq, name);
			say(buf + n, len - n, "%s%s %s %s", n ? ", " : "Your ghosts: ",
			    piece_code_color(code) == WHITE ? "white" : "black", man_one[piece_code_type(code)], name);
			n += strlen(buf + n);
		}
}

const char *words_man(int type)
{
	return type >= PAWN && type <= KING ? man_one[type] : "man";
}

/* The rule sets in a few lines each: proto/RULESETS.md shortened (what the
 * umpire says, to whom, and what "any?" and the pawn tries mean there),
 * quoted as this client writes it (words_event), with the umpire's own
 * word where the rule set is known by it (a play probe: the help quoted
 * the seeds' words, "Long check", "You cannot do that", which the screen
 * never shows). */
static const struct {
	const char *name;
	const char *text;
} rules_help[] = {
	{ "icc",
	  "Rule set icc (the default; ICC wild 16, the Computer Olympiad; kriegspiel.org's wild16):\n"
	  "  Each turn starts with the number of pawn captures the side to move has, en passant\n"
	  "  included (\"Black has 2 pawn tries\"); there is no \"any?\".\n"
	  "  A refused try is told to its mover alone (\"Illegal: Nf3. Try again\"); the opponent\n"
	  "  hears only \"White has moved\" once a move is made.  A try impossible on your own board\n"
	  "  (\"Impossible: a1a5\") is yours alone too, and no try.\n"
	  "  Captures: the square, and pawn or piece (\"White captured a pawn on e4\"), never which\n"
	  "  piece.  Checks by direction (\"Black is in check on the long diagonal\")." },
	{ "english",
	  "Rule set english (the Gambit Club, London, 1933):\n"
	  "  \"any?\" (the command any), once a turn, the first included: can any of your pawns\n"
	  "  capture?  Answered yes or no, heard by both (\"White asked \"any?\": yes\").  After\n"
	  "  a yes you must try a pawn capture first; if it is refused you may move any man.\n"
	  "  A refused try, impossible ones included, is announced to both: \"Illegal: Bd3. Try\n"
	  "  again\" to you, \"White tried an illegal move\" to the opponent.\n"
	  "  Captures by their square alone (\"White captured on e4\"); checks by direction\n"
	  "  (\"Black is in check on the long diagonal\"; the umpire: \"White\", \"Long check\")." },
	{ "insurance",
	  "Rule set insurance (the Insurance Chess Club, 1993):\n"
	  "  \"any?\" (the command any) once a turn, from your second move on; a yes (the umpire's\n"
	  "  \"Try\") is heard by both, and you must then try at least one pawn capture first.\n"
	  "  A refused try, impossible ones included, is heard by both (\"White tried an illegal\n"
	  "  move\"; the umpire: \"You cannot do that\").\n"
	  "  Captures by their square alone (\"White captured on e4\"); checks by direction; the\n"
	  "  umpire says each move in one sentence (\"White has moved giving check on the rank\")." },
	{ "nost",
	  "Rule set nost (NOST postal rules, 1995):\n"
	  "  Each turn starts with whether the side to move has a pawn capture, told to both\n"
	  "  (\"Black has a pawn capture\" / \"Black has no pawn captures\"); no \"any?\", and no\n"
	  "  capture need be tried.\n"
	  "  You hear each refused try; the opponent hears how many (\"White made 1 illegal try\n"
	  "  before moving\").  Tries impossible on your own board are not counted.\n"
	  "  Several tries on a line are a preference list (the first legal one is played);\n"
	  "  \"quiet\" sends an \"if quiet\" sequence, played on later turns until a capture, a\n"
	  "  check or a pawn capture.  Captures by their square alone (\"White captured on d5\");\n"
	  "  en passant is hidden: each side hears its own square." },
	{ "gollon",
	  "Rule set gollon (the Gollon / Pritchard card, chessvariants):\n"
	  "  \"any?\" once a turn, before any try or between them: \"Try!\" when a pawn capture\n"
	  "  exists (then you must try one first), else \"No\"; impossible with no pawns.\n"
	  "  Every announcement is heard by both: an illegal try is announced, and so is a try\n"
	  "  impossible on your own board (\"White tried an impossible move\").\n"
	  "  Captures by their square alone; en passant is named (\"Black captured on f3 en\n"
	  "  passant\").  Diagonal checks by direction: the \"small\" (a1-h8) and the \"large\" (h1-a8)." },
	{ "berkeley",
	  "Rule set berkeley (Berkeley, as kriegspiel.org plays it):\n"
	  "  Nothing is said about pawn captures, and there is no \"any?\".\n"
	  "  An illegal try is heard by both (\"White tried an illegal move\"); a try impossible on\n"
	  "  your own board (\"Impossible: a1a5\") is yours alone, and no try.\n"
	  "  Captures by their square alone (\"White captured on d5\"); checks by direction." },
	{ "berkeley_any",
	  "Rule set berkeley_any (Berkeley with \"any?\", as kriegspiel.org plays it):\n"
	  "  As berkeley, and \"any?\" once a turn, answered yes or no, heard by both.\n"
	  "  After a yes only pawn captures may be tried until one is played (a refused one does\n"
	  "  not free you); after a no a pawn capture is impossible (to you alone)." },
	{ "cincinnati",
	  "Rule set cincinnati (Cincinnati, as kriegspiel.org plays it):\n"
	  "  Each turn starts with whether the side to move has a pawn capture, told to both\n"
	  "  (\"White has a pawn capture\" / \"White has no pawn captures\"); no \"any?\".  After\n"
	  "  a no, a pawn capture try is impossible (the umpire's \"nonsense\").\n"
	  "  An illegal try is heard by both; so is a try impossible on your own board (\"White\n"
	  "  tried an impossible move\").\n"
	  "  Captures: the square, and pawn or piece (\"White captured a pawn on d5\")." },
	{ "rand",
	  "Rule set rand (RAND rules, as kriegspiel.org plays them):\n"
	  "  Each turn starts with the squares of the pawns that can capture (\"White can capture\n"
	  "  with pawns from c4 and e4\"); a capture by a pawn not named is impossible.  No \"any?\".\n"
	  "  An illegal try is heard by both (\"White tried an illegal move\"; the umpire: \"No\");\n"
	  "  so is one impossible on your own board (\"White tried an impossible move\").\n"
	  "  Captures: the square, and pawn or piece (\"White captured a pawn on d5\").  A\n"
	  "  promotion is said (\"White promoted a pawn\"), not its piece or square.  Stalemate\n"
	  "  loses: the stalemated side loses." },
	{ "crazykrieg",
	  "Rule set crazykrieg (Kriegspiel with Crazyhouse drops, as kriegspiel.org plays it):\n"
	  "  A man you capture goes to your reserve, which both see, and may be dropped instead\n"
	  "  of a move on an empty square (\"N@f3\", \"P@e4\"; no pawn on the first or last rank).\n"
	  "  A drop is told to both by its man, never its square (\"White dropped a knight\").\n"
	  "  Captures name the man taken (\"White captured a knight on a5\").\n"
	  "  \"any?\" once a turn, yes or no, heard by both: after a yes try one pawn capture\n"
	  "  first; after a no a pawn capture is impossible.  Illegal and impossible tries are\n"
	  "  heard by both." },
};

/* The rule sets a line each, each by its help's first line ("icc (the
 * default; ...)"), into out (the newcomer probe: no help named them). */
void words_rules_list(char *out, size_t len)
{
	size_t used = (size_t)snprintf(out, len, "Rule sets (seek, challenge and pair take the name; \"help NAME\" "
	                               "says what its umpire tells):");
	for (size_t i = 0; i < sizeof rules_help / sizeof rules_help[0] && used < len; i++) {
		const char *t = rules_help[i].text + strlen("Rule set ");
		int n = (int)strcspn(t, "\n");
		if (n > 0 && t[n - 1] == ':')
			n--;
		used += (size_t)snprintf(out + used, len - used, "\n  %.*s", n, t);
	}
}

const char *words_rules_help(const char *name)
{
	if (!name)
		return NULL;
	if (strcasecmp(name, "wild16") == 0)
		name = "icc";   /* kriegspiel.org's name for it (RULESETS.md) */
	for (size_t i = 0; i < sizeof rules_help / sizeof rules_help[0]; i++)
		if (strcasecmp(rules_help[i].name, name) == 0)
			return rules_help[i].text;
	return NULL;
}
