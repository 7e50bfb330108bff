/*
 * board.h — the chess position: bitboards, a mailbox, and the state FEN
 * carries.  Pure: no I/O, no globals.  Squares are 0..63, a1 = 0, h1 = 7,
 * a8 = 56; file = sq & 7, rank = sq >> 3.
 *
 * Moves are 16 bits (the Stockfish layout):
 *   bits 0-5 from, 6-11 to, 12-13 promotion piece (0 N, 1 B, 2 R, 3 Q),
 *   14-15 kind (MOVE_NORMAL, MOVE_PROMOTION, MOVE_EN_PASSANT, MOVE_CASTLING).
 * Castling is encoded as the king's own move (e1g1, e1c1, e8g8, e8c8).
 * A Crazyhouse drop (crazykrieg) has from == to, which no board move has:
 * bits 0-5 and 6-11 both the square, bits 12-14 the piece type dropped
 * (PAWN..QUEEN), bit 15 clear; move_kind() means nothing for it, so code
 * that looks at a move's kind asks move_is_drop() first.  MOVE_NONE reads
 * as a pawn dropped on a1, never legal (no pawn on the first rank).
 */
#ifndef KRIEG_BOARD_H
#define KRIEG_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint64_t bb_t;
typedef uint16_t move_t;

enum color { WHITE = 0, BLACK = 1 };
enum piece_type { PAWN = 0, KNIGHT, BISHOP, ROOK, QUEEN, KING, PIECE_NONE };

#define SQ_NONE 64
#define MOVE_NONE ((move_t)0)

enum move_kind {
	MOVE_NORMAL = 0,
	MOVE_PROMOTION = 1,
	MOVE_EN_PASSANT = 2,
	MOVE_CASTLING = 3,
};

enum castle_right {
	CASTLE_WK = 1, CASTLE_WQ = 2, CASTLE_BK = 4, CASTLE_BQ = 8,
};

/*
 * A castling right needs its king and its rook on their first squares
 * (K: e1 and h1, Q: e1 and a1, k: e8 and h8, q: e8 and a8).  The rule is
 * stated here once: making a move (board_castle_keep), reading a FEN,
 * a player's own view and krieg-bot's belief all take it from here.
 */
static inline int castle_king_square(unsigned right) { return right & (CASTLE_WK | CASTLE_WQ) ? 4 : 60; }
static inline int castle_rook_square(unsigned right)
{
	return (right & (CASTLE_WK | CASTLE_BK) ? 7 : 0) + (right & (CASTLE_WK | CASTLE_WQ) ? 0 : 56);
}
static inline unsigned castle_rights_of(int color) { return color == WHITE ? CASTLE_WK | CASTLE_WQ : CASTLE_BK | CASTLE_BQ; }

/* The rights that survive a move touching sq (as origin or destination): a
 * king or rook leaving its first square, or a rook captured there, loses the
 * matching right.  (A switch of constants: board_make calls it twice a move.) */
static inline unsigned board_castle_keep(int sq)
{
	switch (sq) {
	case 0: return 15u & ~(unsigned)CASTLE_WQ;                  /* a1 */
	case 4: return 15u & ~(unsigned)(CASTLE_WK | CASTLE_WQ);    /* e1 */
	case 7: return 15u & ~(unsigned)CASTLE_WK;                  /* h1 */
	case 56: return 15u & ~(unsigned)CASTLE_BQ;                 /* a8 */
	case 60: return 15u & ~(unsigned)(CASTLE_BK | CASTLE_BQ);   /* e8 */
	case 63: return 15u & ~(unsigned)CASTLE_BK;                 /* h8 */
	default: return 15u;
	}
}

static inline move_t move_make(int from, int to, enum move_kind kind, int promo)
{
	return (move_t)(from | (to << 6) | ((promo - KNIGHT) & 3) << 12 | kind << 14);
}
static inline int move_from(move_t m) { return m & 63; }
static inline int move_to(move_t m) { return (m >> 6) & 63; }
static inline enum move_kind move_kind(move_t m) { return (enum move_kind)(m >> 14); }
/* Promotion piece type (KNIGHT..QUEEN); meaningful only for MOVE_PROMOTION. */
static inline int move_promo(move_t m) { return KNIGHT + ((m >> 12) & 3); }
static inline move_t move_make_drop(int type, int to)
{
	return (move_t)(to | (to << 6) | (type & 7) << 12);
}
static inline bool move_is_drop(move_t m) { return (m & 63) == ((m >> 6) & 63) && m != MOVE_NONE; }
/* The piece type a drop puts down (PAWN..QUEEN); meaningful only for a drop. */
static inline int move_drop_piece(move_t m) { return (m >> 12) & 7; }

/* mailbox encoding: 0 empty, else 1 + type + 8 * color */
#define MAILBOX_EMPTY 0
static inline uint8_t piece_code(int color, int type) { return (uint8_t)(1 + type + 8 * color); }
static inline int piece_code_type(uint8_t code) { return code ? (code - 1) & 7 : PIECE_NONE; }
static inline int piece_code_color(uint8_t code) { return (code - 1) >> 3; }

struct board {
	bb_t pieces[2][6];     /* by colour, then type */
	bb_t occ[2];           /* all pieces of a colour */
	uint8_t mailbox[64];   /* piece_code() per square */
	uint8_t side;          /* enum color to move */
	uint8_t castling;      /* enum castle_right bits */
	uint8_t ep;            /* en-passant target square, or SQ_NONE */
	uint16_t halfmove;     /* plies since the last capture or pawn move */
	uint16_t fullmove;     /* starts at 1, incremented after Black moves */
	uint64_t key;          /* Zobrist key of everything above but the clocks and `promoted` */
	/* Crazyhouse (crazykrieg): with `crazy` set, a captured man goes to its
	 * captor's reserve (a promoted one as a pawn).  Reserves are counts by
	 * type, hand[colour][PAWN..QUEEN] (index 5..7 always 0, so that one
	 * 64-bit load tells whether a side holds anything).  Drops are
	 * generated from whatever a hand holds, crazy or not (a player's view
	 * board keeps its hands without making moves). */
	uint8_t hand[2][8];
	bb_t promoted;         /* crazy: the men that were pawns */
	uint8_t crazy;
};

#define HAND_MAX 16 /* most men of one type a reserve can hold (pawns: all sixteen) */

static inline bool board_hand_any(const struct board *b, int color)
{
	uint64_t v;
	memcpy(&v, b->hand[color], sizeof v);
	return v != 0;
}

/* The standard starting position. */
void board_start(struct board *b);

/* An empty board (no pieces, White to move, no rights); the building block of FEN and of views. */
void board_clear(struct board *b);

/* Put / remove a piece, keeping bitboards, mailbox and key in step. */
void board_put(struct board *b, int color, int type, int sq);
void board_remove(struct board *b, int sq);

/* Add one man of `type` (PAWN..QUEEN) to / take one from `color`'s
 * reserve, keeping the key; nothing happens beyond 0..HAND_MAX. */
void board_hand_add(struct board *b, int color, int type);
void board_hand_take(struct board *b, int color, int type);

/* Play a move known to be legal (or at least pseudo-legal: movegen checks legality). */
void board_make(struct board *b, move_t m);

/* Pieces of the side not to move that attack the king of the side to move. */
bb_t board_checkers(const struct board *b);
static inline bool board_in_check(const struct board *b) { return board_checkers(b) != 0; }

/* Is sq attacked by any piece of colour `by`, given occupancy `occ`? */
bool board_attacked(const struct board *b, int sq, int by, bb_t occ);

/* Of `rights`, those whose king and rook stand on their first squares in b. */
unsigned board_castling_in_place(const struct board *b, unsigned rights);

/* The king square of a colour (SQ_NONE if absent, possible only on view boards). */
int board_king(const struct board *b, int color);

/* Recompute the key from scratch (FEN parsing, consistency checks in tests). */
uint64_t board_compute_key(const struct board *b);

/* A copy holding only `color`'s pieces, with that side's castling rights:
 * the board a player sees.  The side to move is kept, and so are both
 * reserves and `crazy` (crazykrieg's reserves are public). */
void board_own_view(const struct board *b, int color, struct board *out);

/* Insufficient mating material: K v K, K+minor v K, and any number of
 * bishops all on one square colour with no other pieces. */
bool board_insufficient_material(const struct board *b);

/* Can `color` ever mate with the material it has (used for a time forfeit
 * against a side that cannot mate: that is a draw). */
bool board_can_mate(const struct board *b, int color);

/* Piece letters, P N B R Q K in enum piece_type order.  piece_from_letter
 * reads either case and gives PIECE_NONE for any other character: where the
 * case means something (in SAN a lower-case b is a file, in FEN the case is
 * the colour) the caller looks at it.  piece_letter writes upper case, '?'
 * for anything but PAWN..KING. */
int piece_from_letter(char c);
char piece_letter(int type);

/* Square names: "e4" into buf[3]; parse returns SQ_NONE on bad input. */
void square_name(int sq, char buf[3]);
int square_parse(const char *s);

#endif
