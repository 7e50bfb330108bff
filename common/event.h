/*
 * event.h — what the umpire says, and to whom.
 *
 * The referee decides each event's audience once; every later layer
 * (store, game fan-out, protocol) only routes.  Where the rules tell
 * different listeners different things (the mover hears which try was
 * refused, the opponent only that one was), the core emits two events:
 * the detailed one for the mover and the umpire, the redacted one for the
 * opponent and spectators.  The umpire therefore sees the most detailed
 * version of everything exactly once.
 */
#ifndef KRIEG_EVENT_H
#define KRIEG_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"

enum audience {
	AUD_WHITE = 1,
	AUD_BLACK = 2,
	AUD_UMPIRE = 4,
	AUD_SPECTATOR = 8,
};
#define AUD_PUBLIC (AUD_WHITE | AUD_BLACK | AUD_UMPIRE | AUD_SPECTATOR)
#define AUD_COUNT 4
_Static_assert(AUD_PUBLIC == (1u << AUD_COUNT) - 1, "AUD_COUNT: one bit for each audience");
/* Each audience once, in the order the wire names a set of them. */
extern const unsigned audience_bits[AUD_COUNT];
static inline unsigned aud_of(int color) { return color == WHITE ? AUD_WHITE : AUD_BLACK; }

/* Wire names are in proto/PROTOCOL.md; values are stored in the database,
 * so never renumber: retire a value by leaving a gap. */
enum event_type {
	EV_NONE = 0,
	EV_MOVE = 1,          /* mover: your attempt was legal and was played (move) */
	EV_MOVED = 2,         /* opponent, spectators: `by` has moved */
	EV_ILLEGAL = 3,       /* refused try; move set only in the mover's copy */
	EV_IMPOSSIBLE = 4,    /* refused as impossible on own pieces alone; move set only in the mover's copy */
	EV_CAPTURE = 5,       /* square, what, en_passant */
	EV_CHECK = 6,         /* checks[0..1]; square: a capture everybody heard with this move, or -1 */
	EV_PAWN_TRIES = 7,    /* icc: count of legal pawn captures of `by` (to move) */
	EV_PAWN_CAPTURES = 8, /* nost: answer = yes/no: does `by` (to move) have a pawn capture */
	EV_ANY = 9,           /* answer to `by`'s "any?": ANY_NO, ANY_YES, ANY_TRY */
	EV_ILLEGAL_COUNT = 10,/* nost: `by` made count illegal tries before moving */
	EV_ALL_ILLEGAL = 11,  /* nost: every try of `by`'s preference list was illegal; send more */
	EV_QUIET_ENDED = 12,  /* nost: `by`'s "if quiet" sequence stopped (count moves left unplayed) */
	EV_GAME_OVER = 13,    /* result, reason, by (the side the reason is about, or -1) */
	EV_UMPIRE_MOVE = 14,  /* umpire only: the move played in full (move), by */
	EV_PAWN_SQUARES = 15, /* rand: `squares` = the squares of `by`'s (to move) pawns that have a
	                       * legal capture; every turn, empty included */
	EV_PROMOTION = 16,    /* rand: `by` promoted a pawn (neither square nor piece) */
	EV_DROP = 17,         /* crazykrieg: `by` dropped a man from its reserve, `what` (enum
	                       * captured_kind: which man, never the square); heard by all */
};

/* Stored in the database: never renumber.  The exact men (crazykrieg's
 * captures and drops) follow the older values; a pawn is CAPTURED_PAWN. */
enum captured_kind {
	CAPTURED_UNSAID = 0, CAPTURED_PAWN = 1, CAPTURED_PIECE = 2,
	CAPTURED_KNIGHT = 3, CAPTURED_BISHOP = 4, CAPTURED_ROOK = 5, CAPTURED_QUEEN = 6,
};

/* The exact kind of a man PAWN..QUEEN, and back (PIECE_NONE for a kind that names no one man). */
static inline uint8_t captured_exact(int type)
{
	return type == PAWN ? CAPTURED_PAWN : type >= KNIGHT && type <= QUEEN ? (uint8_t)(CAPTURED_KNIGHT + type - KNIGHT)
	                                                                     : CAPTURED_UNSAID;
}
static inline int captured_type(int what)
{
	return what == CAPTURED_PAWN ? PAWN : what >= CAPTURED_KNIGHT && what <= CAPTURED_QUEEN
	                                          ? KNIGHT + what - CAPTURED_KNIGHT : PIECE_NONE;
}

/* Check directions, from the checked king's point of view. */
enum check_dir {
	CHECK_NONE = 0,
	CHECK_RANK = 1,
	CHECK_FILE = 2,
	CHECK_LONG_DIAGONAL = 3,   /* the diagonal through the king with more squares */
	CHECK_SHORT_DIAGONAL = 4,  /* the one with fewer (equal: see RULESETS.md) */
	CHECK_KNIGHT = 5,
	CHECK_A1H8_DIAGONAL = 6,   /* gollon: the card's "small diagonal" (a1-h8 direction) */
	CHECK_H1A8_DIAGONAL = 7,   /* gollon: the card's "large diagonal" (h1-a8 direction) */
};

enum any_answer { ANY_NO = 0, ANY_YES = 1, ANY_TRY = 2 };

enum game_result { RESULT_NONE = 0, RESULT_WHITE = 1, RESULT_BLACK = 2, RESULT_DRAW = 3 };

enum game_reason {
	REASON_NONE = 0,
	REASON_CHECKMATE = 1,
	REASON_STALEMATE = 2,
	REASON_REPETITION = 3,
	REASON_FIFTY_MOVES = 4,
	REASON_INSUFFICIENT = 5,
	REASON_RESIGNATION = 6,
	REASON_AGREEMENT = 7,
	REASON_TIME = 8,             /* `by` ran out of time; a draw if the other side cannot mate */
	REASON_ABANDONED = 9,        /* `by` stayed away past the grace period */
	REASON_ABORTED = 10,         /* before both sides moved (or by an umpire, any time); no result */
	REASON_ADJUDICATION = 11,    /* an umpire decided the result (action.h, "adjudge"); by -1 */
};

#define EVENT_SAN_MAX 12  /* = NOTATION_MAX: longest SAN with its NUL */

struct event {
	uint8_t type;        /* enum event_type */
	uint8_t audience;    /* enum audience bits */
	int8_t by;           /* WHITE, BLACK, or -1 */
	int8_t square;       /* EV_CAPTURE: square announced to this audience; EV_CHECK: the public
	                      * capture square of the same move (insurance says both in one sentence) */
	move_t move;         /* EV_MOVE, EV_UMPIRE_MOVE, detailed EV_ILLEGAL/EV_IMPOSSIBLE; else MOVE_NONE */
	uint8_t what;        /* EV_CAPTURE, EV_DROP: enum captured_kind */
	bool en_passant;     /* EV_CAPTURE: announced as en passant (gollon only) */
	uint8_t checks[2];   /* EV_CHECK: one or two enum check_dir; 0 = none */
	int16_t count;       /* EV_PAWN_TRIES, EV_ILLEGAL_COUNT, EV_QUIET_ENDED */
	uint8_t answer;      /* EV_ANY: enum any_answer; EV_PAWN_CAPTURES: 0 no, 1 yes */
	uint8_t result;      /* EV_GAME_OVER: enum game_result */
	uint8_t reason;      /* EV_GAME_OVER: enum game_reason */
	uint16_t ply;        /* plies played when the event was emitted (0 before White's first move) */
	char san[EVENT_SAN_MAX]; /* with `move`: its SAN as this audience may read it (own-view SAN for
	                          * the mover, with the capture and check marks the mover is told:
	                          * "Nxe5", "Bxf2+"; full SAN with +/# for EV_UMPIRE_MOVE); else "" */
	uint64_t squares;    /* EV_PAWN_SQUARES: bit i = square i (a1 = 0); else 0 */
};

/* A growable list of events; the referee appends, the caller reads and frees. */
struct evlist {
	struct event *v;
	size_t n, cap;
};

void evlist_init(struct evlist *l);
void evlist_push(struct evlist *l, const struct event *e); /* aborts on out-of-memory */
void evlist_clear(struct evlist *l);                        /* n = 0, keeps the storage */
/* Every field the same (a replay, a copy of a referee, a record read back
 * must give the same events; field by field, so padding never counts). */
bool event_equal(const struct event *a, const struct event *b);
void evlist_free(struct evlist *l);

/* Who heard the announcement that l->v[i] is a copy of.  The referee
 * splits one announcement into two copies where the mover may hear more
 * than the others (a refused try's move where both hear of it, a split en
 * passant's square): the mover's with the umpire, then the others', of the
 * same type and by the same side.  The umpire reads only the first, and is
 * shown who heard it all (an english try told to both is not the icc try
 * told to the mover alone: rules probe).  Any other event: its audience. */
unsigned event_heard(const struct evlist *l, size_t i);
/* The audience a copy of an announcement says it had, to whoever reads
 * it.  A capture told in two copies (nost's en passant: each side hears
 * its own square) says who heard either, as an ordinary capture does: its
 * own audience told its reader that the capture was en passant, which
 * rule 8 hides from both players (a probe read it from
 * "audience":["black","spectator"]).  Any other copy says its own: who
 * hears what of a refused try is the rule set's, known to both. */
unsigned event_told(const struct evlist *l, size_t i);
/* Do the copies of e's announcement each say who heard either (a capture)? */
bool event_told_whole(const struct event *e);
/* Is `next`, the event after e in its action's list, the others' copy of
 * e's announcement (event_heard)? */
bool event_copies(const struct event *e, const struct event *next);

/* Stable lower-case wire names ("move", "illegal", "rank", "long_diagonal",
 * "checkmate", ...); NULL for an unknown value. */
const char *event_type_name(int type);
const char *check_dir_name(int dir);
const char *game_reason_name(int reason);
const char *game_result_name(int result);  /* "1-0", "0-1", "1/2-1/2", "*" */
const char *captured_kind_name(int what);   /* "pawn", "piece", "knight", ... "queen"; NULL for
                                             * CAPTURED_UNSAID */
const char *any_answer_name(int answer);    /* "no", "yes", "try" */
const char *audience_name(unsigned bit);    /* "white", "black", "umpire", "spectator" (one bit) */

/* Reverse look-ups: the value, or -1 for an unknown name. */
int event_type_parse(const char *name);
int check_dir_parse(const char *name);
int game_reason_parse(const char *name);
int game_result_parse(const char *name);
int captured_kind_parse(const char *name);  /* CAPTURED_UNSAID is never a name */
int any_answer_parse(const char *name);
int audience_parse(const char *name);       /* one AUD_ bit */

#endif
