/*
 * notation.h — reading a player's attempt, and writing moves.
 *
 * Accepted input forms (a leading piece letter upper case as in SAN, since
 * a lower-case b is a file; files and ranks lower case; a promotion letter
 * in either case):
 *   coordinates   e2e4  e7e8q  e1g1
 *   SAN           e4  Pe4  Nf3  exd5  Nbd7  R1e2  O-O  O-O-O  e8=Q  exd8=N  Qh4+  Qxf7#
 *   seed forms    e2-e4  e5:f6  Nb8c6  Ng8-f6  Qd1xe2  (piece letter + both squares)
 *   drops        N@f3  P@e4  @e4 (a pawn)   (crazykrieg: a man from the reserve)
 *   also 0-0 / 0-0-0 / o-o / o-o-o; surrounding spaces, a trailing + # ! ? and
 *   an "ep"/"e.p." suffix are ignored; at most NOTATION_INPUT_MAX characters.
 * This grammar lives in notation_lex() alone; every reader of move text
 * (notation_parse, the referee's raw attempts, the PGN reader) goes through it.
 *
 * Resolution is against the mover's own pieces only (a board_own_view()),
 * never the true board: which of my knights can reach f3, is this pawn
 * move a push or a capture, is a promotion piece needed.  A capture mark
 * ("x", ":") is optional and never consults enemy pieces.  Omitted promotion
 * piece means queen.  The result is a move that is *possible* on the
 * player's own board (movegen_possible), or an error.
 */
#ifndef KRIEG_NOTATION_H
#define KRIEG_NOTATION_H

#include "board.h"

#define NOTATION_INPUT_MAX 32  /* longer attempts are rejected unread */
#define NOTATION_MAX 12        /* longest SAN/UCI written, with NUL */

enum notation_status {
	NOTATION_OK = 0,
	NOTATION_SYNTAX,      /* not a move in any accepted form */
	NOTATION_NO_PIECE,    /* no own piece of that kind can make that move */
	NOTATION_AMBIGUOUS,   /* several own pieces could (SAN without disambiguation) */
};

/*
 * The shape of a move text, before any board is looked at.  notation_lex()
 * holds the whole grammar above; the readers differ only in what they
 * resolve the parts against (a player's own pieces, an umpire's raw
 * attempt, the legal moves of a PGN record's true board).
 */
enum notation_castle {
	NOTATION_CASTLE_NONE = 0,
	NOTATION_CASTLE_SHORT,  /* O-O, 0-0, o-o */
	NOTATION_CASTLE_LONG,   /* O-O-O, 0-0-0, o-o-o */
};

struct notation_parts {
	enum notation_castle castle; /* when not NONE, nothing below is set */
	int piece;                   /* type named by a leading letter, or PIECE_NONE */
	int from_file;               /* origin file 0..7 if written, else -1 */
	int from_rank;               /* origin rank 0..7 if written, else -1 */
	int from;                    /* origin square if both were written, else SQ_NONE */
	int to;                      /* destination square; SQ_NONE when castling */
	int promo;                   /* KNIGHT..QUEEN if written, else PIECE_NONE */
	bool capture;                /* an 'x' or ':' was written (never required) */
	bool drop;                   /* "N@f3": piece (PAWN..QUEEN) dropped on `to`; no origin */
};

/*
 * Split `text` into parts.  NOTATION_OK, or NOTATION_SYNTAX with a short
 * message in err ("empty move", "move text too long", "not a move");
 * *out is written only on NOTATION_OK.  err may be NULL.
 */
enum notation_status notation_lex(const char *text, struct notation_parts *out, char *err,
                                  size_t errlen);

/*
 * Resolve parts as an attempt by `color` on `own` (a board_own_view() of
 * color): the same rules and messages as notation_parse(), which is
 * notation_lex() followed by this.
 */
enum notation_status notation_resolve(const struct board *own, int color,
                                      const struct notation_parts *p, move_t *out, char *err,
                                      size_t errlen);

/*
 * The moves parts could name as notation_resolve() reads them on `own`, one
 * per origin square, into *l (the candidates of a NOTATION_AMBIGUOUS
 * text, to list them); their number (0 for castling and drops).
 */
struct movelist;
int notation_candidates(const struct board *own, int color, const struct notation_parts *p,
                        struct movelist *l);

/*
 * Resolve parts against the legal moves of the side to move on the true
 * board b, leniently as a PGN reader should: superfluous disambiguation, a
 * missing capture mark, a pawn capture without its file ("xd5") and a
 * missing promotion piece (= queen) are accepted, and coordinates without
 * a letter ("g1f3") move the man on the origin; a king move means castling
 * only as UCI writes it (e1g1), never as Kg1 or Ke1g1.  NOTATION_NO_PIECE when no legal move fits, NOTATION_AMBIGUOUS
 * when several do; *out is written only on NOTATION_OK.
 */
enum notation_status notation_resolve_legal(const struct board *b, const struct notation_parts *p,
                                            move_t *out);

/*
 * Parse `text` as an attempt by `color`, resolved on `own` (a board whose
 * only pieces are `color`'s; use board_own_view()).  On NOTATION_OK, *out
 * is a move in movegen_possible(own, color).  On error err gets a short
 * message that never names anything but the player's own pieces.
 */
enum notation_status notation_parse(const struct board *own, int color, const char *text,
                                    move_t *out, char *err, size_t errlen);

/* Coordinates: "e2e4", "e7e8q"; a drop as in Crazyhouse UCI, "N@f3". */
void notation_uci(move_t m, char buf[NOTATION_MAX]);

/*
 * SAN of m.  With own_view false, b is the true board: disambiguation among
 * legal moves and a + or # mark ("Nf3", "exd5", "O-O", "e8=Q+"), for PGN,
 * logs and the umpire.  With own_view true, b is a player's own view:
 * disambiguation among movegen_possible() moves and no marks, so the text
 * told to a player never depends on enemy pieces (a pin must not change
 * "Nbd7" into "Nd7").  A drop is "N@f3" ("P@e4" for a pawn), with its
 * mark on the true board.
 */
void notation_san(const struct board *b, move_t m, bool own_view, char buf[NOTATION_MAX]);

/* Is w a stand-alone en-passant word, "e.p." or "ep" (marks + # ! ? allowed)? */
bool notation_is_ep_word(const char *w);

/*
 * Join the words of a preference list or "if quiet" sequence into buf,
 * space-separated, attaching a stand-alone "e.p."/"ep" word to the word
 * before it ("exd6" "e.p." is the one attempt "exd6e.p.", which the lexer
 * reads as exd6); a leading one stays a word of its own.  Returns the
 * number of attempts, or -1 if buf is too small.
 */
int notation_join_list(const char *const *items, size_t n, char *buf, size_t len);

#endif
