/*
 * pgn.h — Kriegspiel PGN out and in (proto/PGN.md is the format).
 *
 * A game's record is the ordered list of actions applied to the referee
 * (struct action, action.h; what server/store.h keeps): tries, nost
 * preference lists and "if quiet" sequences, "any?" asks, draw offers and
 * endings from outside the board.  pgn_write replays them through a fresh
 * referee (referee_apply, the one way an action is applied) and writes the University of
 * Maryland form `SAN {(K:refused tries:what the opponent heard) ...}` with
 * the umpire's announcements after the (K:...) block, and a `[%krieg ...]`
 * command holding the exact actions wherever the UMD block alone could not
 * give them back.  pgn_read recovers the exact action list from such a
 * text, replays it, and refuses a PGN whose recorded moves, tries or
 * announcements differ from the replay.
 *
 * Pure: no I/O; the output is a malloc'd string, the input a string.
 * Code: pgn_log.c (the replayed game log both directions share),
 * pgn_write.c, pgn_read.c (also a file of several games, pgn_read_next);
 * pgn_priv.h is their private header.
 */
#ifndef KRIEG_PGN_H
#define KRIEG_PGN_H

#include <stddef.h>

#include "action.h"
#include "event.h"
#include "fen.h"
#include "referee.h"

#define PGN_TAG_MAX 256           /* a tag value kept in a pgn_header field, with its NUL: the
                                   * PGN standard's 255 characters (it was 128: a longer Site
                                   * refused the game; the PGN probe) */
#define PGN_LINE_MAX 255          /* the standard's longest line (a tag pair's, written) */
#define PGN_INPUT_MAX (8u << 20)  /* pgn_read refuses longer texts unread */
#define PGN_ACTIONS_MAX 50000     /* = the server's GAME_ACTIONS_MAX */

/* The tag pairs.  Empty strings are written as "?" (Date "????.??.??").
 * rules: a ruleset name (empty = RULESET_DEFAULT); fen: empty for the
 * standard start.  result and termination are filled by pgn_read from the
 * tags; pgn_write writes them from the replay and ignores these fields. */
struct pgn_header {
	char event[PGN_TAG_MAX];
	char site[PGN_TAG_MAX];
	char date[PGN_TAG_MAX];
	char round[PGN_TAG_MAX];
	char white[PGN_TAG_MAX];
	char black[PGN_TAG_MAX];
	char result[8];
	char termination[PGN_TAG_MAX];
	char rules[PGN_TAG_MAX];
	char time_control[PGN_TAG_MAX]; /* TimeControl: "300+2", "1/259200" (days a move: PGN's
	                                 * moves/seconds), "-" untimed; "" none known (not written) */
	char fen[FEN_INPUT_MAX + 1];
	char utc_time[16];              /* UTCTime "HH:MM:SS", written with UTCDate (= date) when
	                                 * set (kriegd: the game's start); "" none */
};

/*
 * Write the PGN of a game whose actions are a[0..n) (a leading "begin",
 * as the server stores it, is skipped).  view: AUD_UMPIRE for the full
 * record (every move, try and announcement; replayable), or AUD_WHITE /
 * AUD_BLACK / AUD_SPECTATOR for the filtered record of that audience: only
 * the events it received, "??" for every move it did not make, no [%krieg]
 * actions.  Returns 0 with *out a malloc'd NUL-terminated text (free it),
 * or -1 with *out NULL and a message in err (an unknown rule set, a bad
 * FEN, an action referee_apply refuses — e.g. a list of more than
 * REFEREE_LIST_MAX moves, never cut — a text that cannot be written).
 */
int pgn_write(const struct pgn_header *h, const struct action *a, size_t n, unsigned view,
              char **out, char *err, size_t errlen);

/*
 * Read one full-record Kriegspiel PGN: fills *h, and *a / *n with the
 * exact action list (malloc'd; free(*a)), which replays to the same events.
 * Returns 0, or -1 with *a NULL, *n 0 and a message in err naming the move, e.g.
 * "move 5 (white) exd3: PGN says \"Check along the file\", replay says ...".
 * A filtered PGN (KriegView tag, "??" moves) is refused: it cannot be
 * replayed; so is an action kriegd would not have taken in the game's
 * state (action_record_refusal: an agreement with no offer standing, a
 * move while paused, ...).  A plain UMD PGN without [%krieg] commands reads too: each
 * (K:...) attempt becomes a try, then the move.  A text holding no game
 * (nothing but blanks and escape lines) is refused: "no game in the text".
 */
int pgn_read(const char *text, struct pgn_header *h, struct action **a, size_t *n, char *err,
             size_t errlen);

/*
 * A text of several games, PGN's export form (each game its tags, its
 * movetext and the result token that ends it; krieg-bot arena --pgn writes
 * one): p is where the next game to read begins, line its line in the
 * whole text (1 at its start), so that messages name the text's lines.
 */
struct pgn_pos {
	const char *p;
	int line;
};

/*
 * Read the game at pos as pgn_read reads a whole text, except that the
 * game ends at its result token: what follows is the next game's.  Once
 * the game's text is read, pos moves past it and the blank and escape
 * (%) lines after it, to the next game or to the end (*pos->p == '\0'),
 * also when its replay is then refused (-1): the next game can still be
 * read.  A text that does not read (-1) sets pos->p to NULL: where the
 * next game begins is not known (pgn_resync finds where it may).  A text
 * holding no game (nothing but blanks and escape lines) is refused, as by
 * pgn_read: stop at the end.  The text's length is the caller's to bound
 * (PGN_INPUT_MAX, as pgn_read).
 */
int pgn_read_next(struct pgn_pos *pos, struct pgn_header *h, struct action **a, size_t *n, char *err,
                  size_t errlen);

/*
 * After pgn_read_next refused a game whose text does not read (pos->p
 * NULL), where the next game may begin, found as pgn-extract finds it:
 * the first line after the unread game's own tag pairs that starts with
 * a tag pair ('[' and a tag name).  game and line are where the unread
 * game began (pos before the call); pos is set past it, to the end of the
 * text (*pos->p == '\0') when no such line follows.
 */
void pgn_resync(struct pgn_pos *pos, const char *game, int line);

/* Fill h with defaults ("?" fields, Result "*", rules RULESET_DEFAULT). */
void pgn_header_init(struct pgn_header *h);

#endif
