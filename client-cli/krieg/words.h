/*
 * words.h — announcements in plain words, from the listener's side.
 *
 * The umpire's own formula for a rule set is ruleset_say() (it rides on
 * the wire as "say"); these are the client's sentences: "White captured a
 * pawn on d5", "Check on the long diagonal", "You have 2 pawn tries".
 * They say no more than the event holds.
 */
#ifndef KRIEG_WORDS_H
#define KRIEG_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "event.h"

struct ruleset;

/*
 * Room for words, with its NUL: every text the server may send fits whole
 * in the sentence it is shown in (words.c checks the sums: static_assert).
 * Its limits (PROTOCOL.md): an umpire's reason or note, chat, a tell, a
 * message, a declined offer's reason, a kick's reason: WORDS_TEXT_MAX
 * bytes (= ACTION_REASON_MAX); names PROTO_NAME_MAX; an admin's notice and
 * the message of the day WORDS_NOTICE_TEXT_MAX.  More than that (a hostile
 * server) is cut, between characters, never inside one (words_clean).
 */
#define WORDS_TEXT_MAX 200          /* a person's or an umpire's words, in bytes (= ACTION_REASON_MAX) */
#define WORDS_NOTICE_TEXT_MAX 500   /* an admin's notice or the message of the day, in bytes */
/* The most bytes of a sentence around one text: "A message for you: 9007199254740993.
 * from NAME, 2026-12-03 18:02 UTC: "TEXT"" with the longest name, number and year;
 * "Game over: no result by the umpire's decision (RESULT): TEXT". */
#define WORDS_LEAD_MAX 120
#define WORDS_NUMBER_MAX 16         /* a log line's number before the words: "12345... " */
/* An announcement or an umpire's action: its words, and room for the log's number before them. */
#define WORDS_MAX (WORDS_LEAD_MAX + WORDS_TEXT_MAX + WORDS_NUMBER_MAX)
#define WORDS_CHAT_MAX (WORDS_LEAD_MAX + WORDS_TEXT_MAX + 1)   /* a line of chat, a tell, a message */
#define WORDS_NOTICE_MAX (WORDS_NOTICE_TEXT_MAX + 12)         /* a notice or the motd, cleaned */

/*
 * An event in a game of rule set rs (NULL: not known), with what that rule
 * set makes of it (berkeley_any's yes to "any?" binds until a pawn capture
 * is played).  me is the listener's colour (WHITE/BLACK) or -1 for an
 * umpire or spectator.  san, if non-NULL and non-empty, names the move of
 * an EV_MOVE / EV_ILLEGAL / EV_IMPOSSIBLE / EV_UMPIRE_MOVE; else the move
 * is written in coordinates.
 */
void words_event(const struct ruleset *rs, const struct event *e, int me, const char *san, char *buf,
                 size_t len);
/* The half-move (from 1) an announcement is numbered by, as chess numbers
 * them ("12." White's, "12..." Black's): the one just played when it is
 * its mover's (a capture, a check, a mate or another end a move made),
 * else the one in progress (tries, pawn-try counts, a resignation, a
 * flag: rules probe, "4. White resigns" on Black's turn). */
int words_half(const struct event *e);

/* Why the listener's own try was refused as impossible, as far as their own view tells. */
enum words_why {
	WHY_UNSAID = 0,      /* not known here (a record): no reason given */
	WHY_OWN_PIECES,      /* no own piece can make it */
	WHY_PAWN_INFO,       /* a pawn capture the turn's pawn announcement rules out (pawn_info_binds:
	                      * cincinnati's "no pawn captures", rand's squares, "No" to "any?") */
};

/*
 * The mover's own impossible try (an EV_IMPOSSIBLE that names the move) in
 * rule set rs's word for it, as its umpire says it (ruleset_say:
 * "Impossible: e2e5"; cincinnati's, rand's and crazykrieg's "Nonsense:
 * e7d6"), and why when `why` knows it.
 */
void words_impossible(const struct ruleset *rs, const struct event *e, enum words_why why, char *buf,
                      size_t len);

/* "White" / "Black" / "Nobody". */
const char *words_side(int color);

/* A finished game's result and reason as the wire names them ("0-1",
 * "resignation") in words: "0-1 by resignation", "1-0 on time",
 * "aborted"; a reason this client does not know is shown as it came. */
void words_ending(const char *result, const char *reason, char *buf, size_t len);

/*
 * The umpire's reading of an event from the chair: as words_event() for a
 * listener who is neither side, except that a try the umpire's copy names
 * is named ("White tried e2e5: illegal").
 */
void words_umpire(const struct event *e, char *buf, size_t len);

/* Who heard a copy, for the umpire: "everyone", "White", "Black and spectators", "umpire only". */
void words_audience(unsigned audience, char *buf, size_t len);
/* Who heard announcement e, as the chair's log says it: its audience, or,
 * for the detailed copy of a try the others heard without its move (a
 * refused try told to both: PROTOCOL.md's `audience`), "White; Black and
 * spectators without the move" (the browser probe: "everyone" beside
 * "No: Qe8" read as if everyone had heard Qe8). */
void words_heard(const struct event *e, char *buf, size_t len);

/*
 * The umpire's actions as they reach players, spectators and umpires
 * (clock_paused, clock_unpaused, time_added, umpire_note), and the
 * players' adjournment notices, which read the same way (adjourn_offer,
 * adjourn_declined, adjourned, unadjourned): their words
 * into buf and 0, or -1 for any other object.  The umpire's free text is
 * copied with its control characters replaced (words_clean).
 */
int words_umpire_action(const json_t *msg, char *buf, size_t len);

/*
 * words_umpire_action() as player `me` (WHITE/BLACK; -1 for anyone else,
 * who reads words_umpire_action's) hears it: an offer to adjourn is "You
 * offered to adjourn" to its maker, and, `live` (not a view's replayed
 * copy), tells the opponent how to answer it.  0 and the words, or -1 for
 * an object words_umpire_action() does not read.
 */
int words_notice(const json_t *msg, int me, bool live, char *buf, size_t len);

/*
 * A draw offer or its decline (draw_offer, draw_declined: PROTOCOL.md,
 * "draw"), as a record or a seat reads it: "White offers a draw", "Black
 * declined the draw"; as player `me` (WHITE or BLACK; else -1) reads it:
 * "You offered a draw", "Black declined your draw offer".  0 and the
 * words, or -1 for any other object.
 */
int words_draw(const json_t *msg, int me, char *buf, size_t len);
/*
 * The colour whose draw offer still stands after event e, from `offer`
 * (-1: none): an offer lapses with a move of the side it was made to (one
 * made for them counts: nost's quiet list), and no event says so
 * (PROTOCOL.md, draw).  A player's view and a seat both read it here.
 */
int words_offer_after(int offer, const struct event *e);

/*
 * A game_over an umpire decided (reason "adjudication", or "aborted" with
 * a "note"): "Game over: the umpire adjudicated 1-0 (REASON)".  0 and the
 * words, or -1 for any other object.
 */
int words_umpire_end(const json_t *msg, char *buf, size_t len);

/*
 * event_from_json(), except that a game_over whose reason this build does
 * not name (an umpire's "adjudication") still reads, as REASON_NONE:
 * words_umpire_end() says it.  0, or -1.
 */
int words_read_event(const json_t *msg, struct event *e);

/* Free text from the server made one safe line for a terminal: control characters
 * (scrub.h), tabs and newlines become '?', and so does a byte that starts no UTF-8
 * character.  What does not fit in out (len bytes with the NUL) is left off, a
 * whole character at a time: a cut never splits one.  in may be out. */
void words_clean(const char *in, char *out, size_t len);

/* How many bytes of s (UTF-8) fit in `room` bytes, cut between characters:
 * strlen(s) if all of it does. */
size_t words_fit(const char *s, size_t room);

/*
 * A `chat` event (PROTOCOL.md, "Chat") in words that are plainly a
 * person's, never the umpire's: quoted, and led by who said it:
 *   alice (White) says: "good luck"      a player, on the game's channel
 *   You say: "good luck"                 the listener's own words (me)
 *   carol (spectator) says: "nice"       the spectators' channel
 * white and black name the players (NULL: unknown); me is the listener's
 * colour, or -1.  0 and the words, or -1 for any other object.
 */
int words_chat(const json_t *msg, const char *white, const char *black, int me, char *buf, size_t len);

/* A `tell` event: `bob tells you: "hello"`; a `message` event: `A message
 * for you: 7. from bob, 2026-12-03 18:02 UTC: "hello"`.  0, or -1 for any
 * other object. */
int words_tell(const json_t *msg, char *buf, size_t len);

/* One message left for the user (a `messages` item): `7. from bob, DATE: "hello"`. */
void words_message(const json_t *m, char *buf, size_t len);

/* o's `key`, Unix seconds, as UTC through strftime's fmt; "" when absent or 0. */
void words_utc(const json_t *o, const char *key, const char *fmt, char *buf, size_t len);
/* The same of a moment in seconds since the epoch. */
void words_utc_at(long long secs, const char *fmt, char *buf, size_t len);
/* "White's time runs out 2026-01-02 01:00 UTC": side's deadline at at_ms
 * (wall ms); "" when it cannot be said. */
void words_runs_out(int side, long long at_ms, char *buf, size_t len);

/* A time control ({"base","inc"} / {"days"} / NULL) in words: "5+2", "0.5+0" (base in minutes, as
 * seek takes it), "0:20+0" (a base no decimal of minutes is exact for), "3 days a move", "untimed". */
void words_time(const json_t *time, char *buf, size_t len);

/*
 * An offer's terms (a seek, a challenge, a `seeks` item) in words, for the
 * user `me`: "alice (1500?): icc, 5+2, rated, you play Black, ratings
 * 1400..1800".  The offer's `color` is its owner's; a provisional rating
 * has a '?'.
 */
void words_offer(const json_t *offer, const char *me, char *buf, size_t len);

/* A rating object ({"rating","rd","provisional"}) in words: "1612", "1500?"
 * (provisional); "" when it holds no rating. */
void words_rating(const json_t *rating, char *buf, size_t len);

/* How many watch a game (a `spectators` count), after `lead`: ", 3 watching";
 * "" when none (or no count). */
void words_watching(const json_t *spectators, const char *lead, char *buf, size_t len);

/* Does a game's summary or view (its "bots": game_start, a view, a seat's
 * reply, `live`, `history`) say a bot account plays `color` (WHITE/BLACK)? */
bool words_bot(const json_t *game, int color);
/* ", a bot" when it does, else "": after the side, "robo (Black, a bot)". */
const char *words_bot_mark(const json_t *game, int color);

/* A director's pairing named by a summary (`games`, `live`, `history`
 * entries: "tournament", "round"), after `lead`: ", Club Open round 3",
 * ", round 2.1"; "" when it names neither. */
void words_pairing(const json_t *summary, const char *lead, char *buf, size_t len);

/* A span of time: "0:45", "1:02:03", "2d 3h" (a day or more); negative as "0:00". */
void words_duration(long long ms, char *buf, size_t len);

/* One's own men by square, for `pieces`: "White: king e1, queen d1, rooks a1
 * h1, bishops c1 f1, knights b1 g1, pawns a2 b2 c2 d2 e2 f2 g2 h2", a file at a
 * time, then (crazykrieg) "; in reserve: 2 pawns, 1 knight". */
struct board;
void words_pieces(const struct board *own, int color, char *buf, size_t len);

/* The ghosts placed: "Your ghosts: black knight f6, black pawn e5"; "" when none. */
struct ghosts;
void words_ghosts(const struct ghosts *g, char *buf, size_t len);

/* "pawn", "knight" ... "king", by piece_type. */
const char *words_man(int type);

/*
 * `help RULES`: what a rule set's umpire says, in a few lines, after
 * proto/RULESETS.md (which gives every option with its source).  The name
 * in any case; kriegspiel.org's "wild16" is icc.  NULL for a word that
 * names no rule set.  Every row of the core's table has its lines
 * (test_client_words: an eleventh row without them fails).
 */
const char *words_rules_help(const char *name);
void words_rules_list(char *out, size_t len);

#endif
