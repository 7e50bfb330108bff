/*
 * referee.h — the umpire of one game.  It holds the true board and rules
 * on every attempt, emitting events each addressed to its audience.
 *
 * Every call either succeeds (REF_OK, events appended to `out`) or fails
 * with a status, leaves the state exactly as it was and appends nothing;
 * referee_error() then gives a short message that mentions nothing the
 * caller may not know.  The referee is deterministic: replaying the same
 * calls from the same start reproduces the same events, which is how the
 * server recovers a game, how PGN replays, and how the tests run.
 */
#ifndef KRIEG_REFEREE_H
#define KRIEG_REFEREE_H

#include "board.h"
#include "event.h"
#include "movegen.h"
#include "ruleset.h"

#define REFEREE_LIST_MAX 16     /* tries in one preference list / quiet sequence */

enum referee_status {
	REF_OK = 0,
	REF_E_GAME_OVER = 1,        /* the game has ended */
	REF_E_NOT_YOUR_TURN = 2,
	REF_E_SYNTAX = 3,           /* not a move in any accepted notation */
	REF_E_NO_PIECE = 4,         /* no own piece can make that move (resolution on own pieces) */
	REF_E_AMBIGUOUS = 5,        /* several own pieces could */
	REF_E_UNSUPPORTED = 6,      /* this rule set has no such action (e.g. lists outside nost) */
	REF_E_MUST_TRY_CAPTURE = 7, /* after a yes to "any?" a pawn capture must be tried first */
	REF_E_ANY_ALREADY = 8,      /* "any?" asked already this turn */
	REF_E_ANY_TOO_EARLY = 9,    /* insurance: not before the asker's first move */
	REF_E_ALREADY_TRIED = 10,   /* that try (origin and destination) was refused already this turn */
	REF_E_TOO_MANY = 11,        /* list longer than REFEREE_LIST_MAX, or empty */
	REF_E_BAD_ARGUMENT = 12,    /* bad FEN, bad colour, ... */
};

/* REF_E_ALREADY_TRIED's words, the referee's and its callers' (kriegd's
 * and krieg-referee's refusal of an impossible try sent again). */
#define REFEREE_SAY_ALREADY_TRIED "that try was refused already this turn"

struct referee;

/* fen NULL means the standard start.  NULL with a message in err on a bad FEN. */
struct referee *referee_new(const struct ruleset *rs, const char *fen, char *err, size_t errlen);
void referee_free(struct referee *r);

/* An independent copy of r that rules every later action exactly as r
 * would (the same events, the same ending).  The positions that can no
 * longer repeat (those before the last capture or pawn move) are not
 * copied, so a copy is small however long the game, and its
 * referee_state_hash differs from r's. */
struct referee *referee_copy(const struct referee *r);

/* The opening announcements (e.g. icc's pawn-try count for White), or the
 * end of the game if the starting position is already terminal.  Call
 * once, before anything else: other calls fail with REF_E_BAD_ARGUMENT
 * until it has been. */
int referee_begin(struct referee *r, struct evlist *out);

/* One attempt in any accepted notation (notation.h). */
int referee_attempt(struct referee *r, int color, const char *text, struct evlist *out);

/* nost: a preference list; the first legal try is played.  If all are
 * illegal, EV_ALL_ILLEGAL and the turn stays with `color`. */
int referee_attempt_list(struct referee *r, int color, const char *const *texts, size_t n,
                         struct evlist *out);

/* nost: "if quiet" — play texts[0] now (as one attempt) and the rest on the
 * following turns until a check, a capture, an available pawn capture for
 * either side, or an illegal move ends the sequence (EV_QUIET_ENDED). */
int referee_quiet(struct referee *r, int color, const char *const *texts, size_t n,
                  struct evlist *out);

/* "Any?" — where the rule set has it. */
int referee_any(struct referee *r, int color, struct evlist *out);

/* End the game from outside the board: REASON_RESIGNATION (`color`
 * resigns), REASON_AGREEMENT, REASON_TIME (`color` flagged; a draw when
 * the other side cannot mate), REASON_ABANDONED (`color` left),
 * REASON_ABORTED. */
int referee_end(struct referee *r, enum game_reason reason, int color, struct evlist *out);

/* A notice between the players that the referee announces nothing for
 * (a draw offer or its decline, action.h): REF_OK while the game is in
 * progress and color is a side; else a failure with its message.  It
 * changes nothing either way. */
int referee_notice(struct referee *r, int color);

/* An umpire's notice (a clock pause or resumption, added time, a note:
 * action.h): REF_OK while the game is in progress; it changes nothing. */
int referee_umpire_notice(struct referee *r);

/* An umpire ends the game at any point: REASON_ADJUDICATION with result
 * RESULT_WHITE, RESULT_BLACK or RESULT_DRAW, or REASON_ABORTED with
 * RESULT_NONE.  EV_GAME_OVER to everyone, by -1. */
int referee_umpire_end(struct referee *r, enum game_result result, enum game_reason reason,
                       struct evlist *out);

/* The moves `color` may still attempt this turn as seen from its own
 * pieces alone: movegen_possible() minus tries already refused this turn
 * (a try is an origin and a destination: a refused promotion takes every
 * promotion piece with it), only pawn captures while a yes to "any?"
 * obliges one, and no pawn capture the turn's pawn information rules out
 * (a zero count, a "no", a square not named), bound or not. */
void referee_possible(const struct referee *r, int color, struct movelist *out);

int referee_side_to_move(const struct referee *r);
int referee_plies(const struct referee *r);              /* moves played so far */
bool referee_over(const struct referee *r);
enum game_result referee_result(const struct referee *r);
enum game_reason referee_reason(const struct referee *r);
const struct board *referee_board(const struct referee *r);
const struct ruleset *referee_ruleset(const struct referee *r);
const char *referee_error(const struct referee *r);       /* message of the last failure */
const char *referee_status_name(int status);              /* stable wire code, e.g. "not_your_turn" */

/* The check directions the umpire announces when the side to move in `b`
 * is in check, in announcement order (CHECK_NONE where fewer): the one
 * rule of naming a check, shared with krieg-bot's belief, which predicts
 * what the umpire would say for each position it holds possible. */
void referee_check_dirs(const struct ruleset *rs, const struct board *b, uint8_t dirs[2]);

/*
 * Would `color`'s try `text` ask again a try ruled impossible this turn?
 * The server refuses it, as it does an illegal try sent again
 * (PROTOCOL.md: refused without being announced or counted again; where
 * impossible tries are public each repeat was told to the opponent).
 * The referee itself rules it again, so that records made before hold
 * such repeats and replay.  Changes nothing (its last error included).
 */
bool referee_impossible_again(struct referee *r, int color, const char *text);
/* Has `color`, to move in a game going on, had a try ruled impossible
 * this turn?  (Nearly never: what spares the question above its work.) */
bool referee_impossible_tried(const struct referee *r, int color);

/* Is `color`'s next try obliged to be a pawn capture (a yes to "any?")? */
bool referee_must_try_capture(const struct referee *r);

/* A hash of the whole game state (board, clocks, turn state, pending
 * sequences, position history), for tests that a failing call changed
 * nothing and for replay checks.  Not stable across versions. */
uint64_t referee_state_hash(const struct referee *r);

#endif
