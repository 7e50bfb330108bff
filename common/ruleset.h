/*
 * ruleset.h — Kriegspiel has no single rulebook; each rule set is one row
 * of a constant table of named options.  proto/RULESETS.md cites, for every
 * option of every row, the seed sentence it comes from.
 */
#ifndef KRIEG_RULESET_H
#define KRIEG_RULESET_H

#include <stdbool.h>
#include <stddef.h>

#include "event.h"

#define RULESET_DEFAULT "icc"

/* Who hears that a try was refused as illegal. */
enum illegal_audience {
	ILLEGAL_MOVER = 0,     /* icc: the mover alone */
	ILLEGAL_BOTH = 1,      /* english, insurance, gollon, berkeley(_any), cincinnati, rand: both
	                        * (opponent without the move) */
	ILLEGAL_COUNTED = 2,   /* nost: mover per try; the opponent hears the count with the move */
};

/* What happens to an attempt impossible on the mover's own pieces alone. */
enum impossible_mode {
	IMPOSSIBLE_IS_ILLEGAL = 0,  /* english, insurance: just another illegal try */
	IMPOSSIBLE_PRIVATE = 1,     /* icc, berkeley(_any): refused to the mover only, not a try */
	IMPOSSIBLE_UNCOUNTED = 2,   /* nost: refused to the mover, left out of the count */
	IMPOSSIBLE_PUBLIC = 3,      /* gollon: "Impossible"; cincinnati, rand: "Nonsense"; heard by both */
};

/* How pawn-capture information reaches the players. */
enum pawn_info {
	PAWN_INFO_COUNT = 0,  /* icc: count announced to both at every turn start */
	PAWN_INFO_YESNO = 1,  /* nost: yes/no announced to both at every turn start */
	PAWN_INFO_ASK = 2,    /* english, insurance, gollon, berkeley_any: "any?" on request */
	PAWN_INFO_NONE = 3,   /* berkeley: nothing is said about pawn captures */
	PAWN_INFO_SQUARES = 4,/* rand: the squares of the pawns that can capture, at every turn start */
};

/* How long a yes to "any?" binds the asker to pawn-capture tries. */
enum any_obligation {
	ANY_FREE = 0,          /* icc, nost, cincinnati, rand, berkeley: no obligation (or no "any?") */
	ANY_ONE_TRY = 1,       /* english, insurance, gollon, crazykrieg: until one pawn capture has
	                        * been tried */
	ANY_UNTIL_PLAYED = 2,  /* berkeley_any: until a pawn capture is played (a refused one does not free) */
};

enum ep_style {
	EP_VICTIM_SQUARE = 0,   /* an ordinary capture on the square the taken pawn stood on */
	EP_SPLIT = 1,           /* nost: capturer hears the landing square, victim the pawn's square */
	EP_NAMED_LANDING = 2,   /* gollon: "taken en passant on" the landing square, to both */
};

enum check_style {
	CHECK_STYLE_LENGTH = 0,    /* rank, file, long/short diagonal, knight */
	CHECK_STYLE_GOLLON = 1,    /* rank, file, a1-h8 "small" / h1-a8 "large" diagonal, knight */
};

struct wording; /* the umpire's phrases (ruleset.c) */

struct ruleset {
	const char *name;            /* "icc", "english", ..., "rand" (the table in ruleset.c) */
	const char *title;           /* one line for lobbies and PGN */
	const struct wording *wording; /* how its umpire says each event (ruleset_say()) */
	enum illegal_audience illegal;
	enum impossible_mode impossible;
	enum pawn_info pawn_info;
	bool any_answers_try;        /* "Try!" instead of "Yes" (gollon) */
	bool any_after_first_move;   /* "any?" only once the asker has made a first move (insurance) */
	enum any_obligation any_obliges; /* what a yes to "any?" obliges */
	bool pawn_info_binds;        /* a pawn-capture try the turn's pawn information rules out (no
	                              * capture said, or not from a square said) is impossible */
	bool capture_kind;           /* captures say pawn or piece (icc, cincinnati, rand) */
	bool capture_exact;          /* captures say the exact man taken (crazykrieg) */
	bool drops;                  /* Crazyhouse: captured men go to the captor's reserve and may
	                              * be dropped; a drop is told by man, not square (crazykrieg) */
	bool any_no_pawns_impossible;/* "any?" without pawns is answered "Impossible" (gollon) */
	bool promotion_said;         /* EV_PROMOTION after a promoting move (rand) */
	bool stalemate_loses;        /* the stalemated side loses (rand) */
	enum ep_style ep;
	enum check_style checks;
	bool preference_lists;       /* several tries per message, first legal one played (nost) */
	bool quiet_sequences;        /* "if quiet" sequences over several turns (nost) */
	bool draw_repetition;        /* umpire declares threefold repetition */
	bool draw_fifty;             /* umpire declares the fifty-move rule */
	bool draw_insufficient;      /* umpire declares insufficient material */
};

/* NULL for an unknown name. */
const struct ruleset *ruleset_find(const char *name);
const struct ruleset *ruleset_default(void);
size_t ruleset_count(void);
const struct ruleset *ruleset_at(size_t i);
/* Every rule set's name, in the table's order, ", " between them (the
 * words an "unknown rule set" refusal offers): into out, cut short at
 * len.  RULESET_NAMES_MAX holds them all. */
#define RULESET_NAMES_MAX 160
void ruleset_names(char *out, size_t len);

/*
 * The umpire's words for one event as its audience hears them, in the
 * rule set's wording (english: "White"; insurance: "White has captured on
 * e4"; icc: "Pawn captured on e4").  Never says more than the event holds.
 */
void ruleset_say(const struct ruleset *rs, const struct event *e, char *buf, size_t len);

/*
 * Which players (AUD_WHITE, AUD_BLACK) are told of an action later, though
 * none of its own events (out) reached them: nost's refused tries, whose
 * number the opponent hears with the mover's next move (ILLEGAL_COUNTED).
 * Their view of the game from then on depends on it (a player's PGN of a
 * live game is made from what they heard or were told of: server/game.c).
 */
struct evlist;
unsigned ruleset_told_later(const struct ruleset *rs, const struct evlist *out);

#endif
