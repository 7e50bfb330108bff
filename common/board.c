/*
 * board.c — the position: piece placement, making moves, attacks, keys,
 * views and the material rules of game end.
 */
#include "board.h"

#include <string.h>

#include "bitboard.h"
#include "zobrist.h"

/*
 * Does the en-passant square enter the key?  Only when the side to move
 * has a legal en-passant capture (see zobrist.h): positions are the same
 * when the same moves are possible (FIDE 9.2.3), so a right that a pin or
 * a check forbids to use must not keep a repetition from being one.
 */
static inline bool ep_in_key(const struct board *b)
{
	if (b->ep == SQ_NONE)
		return false;
	const int us = b->side, cap = us == WHITE ? b->ep - 8 : b->ep + 8;
	if (!(b->pieces[us ^ 1][PAWN] & bb_sq(cap)))
		return false;
	for (bb_t p = bb_pawn_attacks(us ^ 1, b->ep) & b->pieces[us][PAWN]; p;)
		if (bb_ep_safe(b, us, bb_pop(&p), b->ep))
			return true;
	return false;
}

void board_clear(struct board *b)
{
	memset(b, 0, sizeof *b);
	b->side = WHITE;
	b->ep = SQ_NONE;
	b->fullmove = 1;
	b->key = board_compute_key(b);
}

void board_start(struct board *b)
{
	static const uint8_t back[8] = { ROOK, KNIGHT, BISHOP, QUEEN, KING, BISHOP, KNIGHT, ROOK };
	board_clear(b);
	for (int f = 0; f < 8; f++) {
		board_put(b, WHITE, back[f], f);
		board_put(b, WHITE, PAWN, 8 + f);
		board_put(b, BLACK, PAWN, 48 + f);
		board_put(b, BLACK, back[f], 56 + f);
	}
	b->castling = CASTLE_WK | CASTLE_WQ | CASTLE_BK | CASTLE_BQ;
	b->key = board_compute_key(b);
}

static inline void put_piece(struct board *b, int color, int type, int sq)
{
	bb_t bit = bb_sq(sq);
	b->pieces[color][type] |= bit;
	b->occ[color] |= bit;
	b->mailbox[sq] = piece_code(color, type);
	b->key ^= zobrist_piece(color, type, sq);
}

static inline void remove_piece(struct board *b, int sq)
{
	uint8_t code = b->mailbox[sq];
	int color = piece_code_color(code), type = piece_code_type(code);
	bb_t bit = bb_sq(sq);
	b->pieces[color][type] &= ~bit;
	b->occ[color] &= ~bit;
	b->mailbox[sq] = MAILBOX_EMPTY;
	b->key ^= zobrist_piece(color, type, sq);
}

void board_put(struct board *b, int color, int type, int sq)
{
	if (sq < 0 || sq >= 64 || (color != WHITE && color != BLACK) || type < PAWN || type > KING)
		return;
	if (b->mailbox[sq] != MAILBOX_EMPTY)
		remove_piece(b, sq);
	put_piece(b, color, type, sq);
}

void board_remove(struct board *b, int sq)
{
	if (sq < 0 || sq >= 64 || b->mailbox[sq] == MAILBOX_EMPTY)
		return;
	remove_piece(b, sq);
}

void board_hand_add(struct board *b, int color, int type)
{
	if ((color != WHITE && color != BLACK) || type < PAWN || type > QUEEN ||
	    b->hand[color][type] >= HAND_MAX)
		return;
	b->hand[color][type]++;
	b->key ^= zobrist_hand(color, type, b->hand[color][type]);
}

void board_hand_take(struct board *b, int color, int type)
{
	if ((color != WHITE && color != BLACK) || type < PAWN || type > QUEEN || b->hand[color][type] == 0)
		return;
	b->key ^= zobrist_hand(color, type, b->hand[color][type]);
	b->hand[color][type]--;
}

/*
 * A drop: the man leaves the reserve for an empty square.  It resets the
 * halfmove clock because it cannot be undone (the reserve only grows again
 * by a capture, which resets the clock anyway), so no position before it
 * can come back; it takes away any en-passant right and no castling right.
 */
static void make_drop(struct board *b, move_t m)
{
	int to = move_to(m), type = move_drop_piece(m), us = b->side;
	if (m == MOVE_NONE || type > QUEEN || b->mailbox[to] != MAILBOX_EMPTY || b->hand[us][type] == 0)
		return; /* not even pseudo-legal: leave the board alone */
	if (ep_in_key(b))
		b->key ^= zobrist_ep(b->ep);
	board_hand_take(b, us, type);
	put_piece(b, us, type, to);
	b->halfmove = 0;
	b->ep = SQ_NONE;
	if (us == BLACK && b->fullmove < UINT16_MAX)
		b->fullmove++;   /* stopped at the top, not wrapped to 0 (an invalid FEN) */
	b->side = (uint8_t)(us ^ 1);
	b->key ^= zobrist_side_key;
}

/* Crazyhouse bookkeeping of a board move, before it is made: the victim to
 * the captor's reserve (a promoted man as the pawn it was), and the
 * promoted mark following its man. */
static void crazy_account(struct board *b, int from, int to, enum move_kind kind, int us)
{
	if (kind == MOVE_EN_PASSANT) {
		board_hand_add(b, us, PAWN);
	} else if (kind != MOVE_CASTLING && b->mailbox[to] != MAILBOX_EMPTY) {
		bool was_pawn = (b->promoted & bb_sq(to)) != 0;
		board_hand_add(b, us, was_pawn ? PAWN : piece_code_type(b->mailbox[to]));
		b->promoted &= ~bb_sq(to);
	}
	if (b->promoted & bb_sq(from))
		b->promoted ^= bb_sq(from) | bb_sq(to);
	if (kind == MOVE_PROMOTION)
		b->promoted |= bb_sq(to);
}

void board_make(struct board *b, move_t m)
{
	int from = move_from(m), to = move_to(m);
	if (from == to) {
		make_drop(b, m);
		return;
	}
	enum move_kind kind = move_kind(m);
	int us = b->side, them = us ^ 1;
	uint8_t code = b->mailbox[from];
	if (code == MAILBOX_EMPTY)
		return; /* not even pseudo-legal: leave the board alone */
	int type = piece_code_type(code);
	if (b->crazy)
		crazy_account(b, from, to, kind, us);

	if (ep_in_key(b))
		b->key ^= zobrist_ep(b->ep);
	b->key ^= zobrist_castle(b->castling);

	if (b->halfmove < UINT16_MAX)
		b->halfmove++;
	if (kind == MOVE_EN_PASSANT) {
		remove_piece(b, us == WHITE ? to - 8 : to + 8);
		b->halfmove = 0;
	} else if (b->mailbox[to] != MAILBOX_EMPTY && kind != MOVE_CASTLING) {
		remove_piece(b, to);
		b->halfmove = 0;
	}
	remove_piece(b, from);
	put_piece(b, us, kind == MOVE_PROMOTION ? move_promo(m) : type, to);
	if (kind == MOVE_CASTLING) {
		bool king_side = to > from;
		int rfrom = king_side ? from + 3 : from - 4, rto = king_side ? from + 1 : from - 1;
		if (b->mailbox[rfrom] != MAILBOX_EMPTY) {
			remove_piece(b, rfrom);
			put_piece(b, us, ROOK, rto);
		}
	}
	if (type == PAWN)
		b->halfmove = 0;

	b->castling &= (uint8_t)(board_castle_keep(from) & board_castle_keep(to));
	b->ep = (type == PAWN && (to - from == 16 || from - to == 16)) ? (uint8_t)((from + to) / 2)
	                                                                : SQ_NONE;
	if (us == BLACK && b->fullmove < UINT16_MAX)
		b->fullmove++;   /* stopped at the top, not wrapped to 0 (an invalid FEN) */
	b->side = (uint8_t)them;
	b->key ^= zobrist_side_key;
	b->key ^= zobrist_castle(b->castling);
	if (ep_in_key(b))
		b->key ^= zobrist_ep(b->ep);
}

unsigned board_castling_in_place(const struct board *b, unsigned rights)
{
	unsigned out = 0;
	for (unsigned r = CASTLE_WK; r <= CASTLE_BQ; r <<= 1) {
		int color = r & castle_rights_of(WHITE) ? WHITE : BLACK;
		if ((rights & r) && (b->pieces[color][KING] >> castle_king_square(r) & 1) &&
		    (b->pieces[color][ROOK] >> castle_rook_square(r) & 1))
			out |= r;
	}
	return out;
}

int board_king(const struct board *b, int color)
{
	bb_t k = b->pieces[color][KING];
	return k ? bb_lsb(k) : SQ_NONE;
}

bb_t board_checkers(const struct board *b)
{
	int ksq = board_king(b, b->side);
	if (ksq == SQ_NONE)
		return 0;
	return bb_attackers(b, ksq, b->side ^ 1, b->occ[WHITE] | b->occ[BLACK]);
}

bool board_attacked(const struct board *b, int sq, int by, bb_t occ)
{
	return bb_attackers(b, sq, by, occ) != 0;
}

uint64_t board_compute_key(const struct board *b)
{
	uint64_t key = 0;
	for (int c = 0; c < 2; c++)
		for (int t = PAWN; t <= KING; t++)
			for (bb_t p = b->pieces[c][t]; p;)
				key ^= zobrist_piece(c, t, bb_pop(&p));
	key ^= zobrist_castle(b->castling);
	if (ep_in_key(b))
		key ^= zobrist_ep(b->ep);
	if (b->side == BLACK)
		key ^= zobrist_side_key;
	for (int c = 0; c < 2; c++)
		for (int t = PAWN; t <= QUEEN; t++)
			for (int n = 1; n <= b->hand[c][t] && n <= HAND_MAX; n++)
				key ^= zobrist_hand(c, t, n);
	return key;
}

/*
 * The view keeps what the player knows: own pieces, own castling rights,
 * whose turn, the move number.  The en-passant square and the halfmove
 * clock are dropped: both can reveal an enemy pawn move the player was not
 * told of.
 */
void board_own_view(const struct board *b, int color, struct board *out)
{
	struct board v;
	board_clear(&v);
	for (int t = PAWN; t <= KING; t++)
		for (bb_t p = b->pieces[color][t]; p;)
			put_piece(&v, color, t, bb_pop(&p));
	v.side = b->side;
	v.castling = b->castling & castle_rights_of(color);
	v.fullmove = b->fullmove;
	memcpy(v.hand, b->hand, sizeof v.hand);
	v.crazy = b->crazy;
	v.promoted = b->promoted & b->occ[color];
	v.key = board_compute_key(&v);
	*out = v;
}

/*
 * Crazyhouse: a captured man changes sides, so what one side holds is
 * what either may come to hold.  Dead only with nothing in either reserve
 * and at most one knight or bishop on the whole board: a lone minor piece
 * cannot mate, whoever ends up with it.  Unless it was a pawn: taken, a
 * promoted man goes to the reserve as the pawn it was, which can promote
 * again and mate (rules probe: K+N~ v K was drawn at once; ks-game's
 * python-chess board is never dead with a promoted man).
 */
static bool crazy_dead(const struct board *b)
{
	if (board_hand_any(b, WHITE) || board_hand_any(b, BLACK))
		return false;
	bb_t heavy = 0, minor = 0;
	for (int c = 0; c < 2; c++) {
		heavy |= b->pieces[c][PAWN] | b->pieces[c][ROOK] | b->pieces[c][QUEEN];
		minor |= b->pieces[c][KNIGHT] | b->pieces[c][BISHOP];
	}
	return heavy == 0 && !bb_several(minor) && (minor & b->promoted) == 0;
}

/*
 * Can `color` ever give mate, with any help from the opponent?  The rule,
 * exact for the material classes it names and deliberately generous
 * beyond them (pawns, rooks, queens and any two minor pieces of different
 * kinds or colours are assumed able to mate; blocked pawn chains are not
 * analysed):
 *   - a bare king cannot mate;
 *   - a king and one knight mates only with an enemy piece or pawn to
 *     block its own king's flight (e.g. Ka8, black piece a7, Kc7, Nb6#),
 *     so it cannot mate a bare king;
 *   - a king and bishops all on one square colour can mate only if the
 *     opponent has something able to stand on the other colour: a pawn, a
 *     knight, a rook, a queen, or a bishop of the other colour;
 *   - anything else can mate.
 */
bool board_can_mate(const struct board *b, int color)
{
	if (b->crazy)
		return !crazy_dead(b);
	const bb_t *p = b->pieces[color];
	const bb_t *o = b->pieces[color ^ 1];
	if (p[PAWN] | p[ROOK] | p[QUEEN])
		return true;
	int knights = bb_count(p[KNIGHT]);
	bb_t bishops = p[BISHOP];
	if (knights == 0 && bishops == 0)
		return false;
	if (knights >= 2 || (knights && bishops))
		return true;
	if ((bishops & BB_LIGHT) && (bishops & BB_DARK))
		return true;
	bb_t others = o[PAWN] | o[KNIGHT] | o[BISHOP] | o[ROOK] | o[QUEEN];
	if (knights == 1)
		return others != 0;
	/* bishops on one colour only */
	bb_t shade = (bishops & BB_LIGHT) ? BB_DARK : BB_LIGHT; /* the other colour */
	return (o[PAWN] | o[KNIGHT] | o[ROOK] | o[QUEEN]) != 0 || (o[BISHOP] & shade) != 0;
}

/* Dead by material: neither side can mate (K v K, K+minor v K, bishops all
 * on one colour however many and whoever owns them). */
bool board_insufficient_material(const struct board *b)
{
	if (b->crazy)
		return crazy_dead(b);
	return !board_can_mate(b, WHITE) && !board_can_mate(b, BLACK);
}

void square_name(int sq, char buf[3])
{
	if (sq < 0 || sq >= 64) {
		buf[0] = '-';
		buf[1] = '-';
		buf[2] = '\0';
		return;
	}
	buf[0] = (char)('a' + (sq & 7));
	buf[1] = (char)('1' + (sq >> 3));
	buf[2] = '\0';
}

int square_parse(const char *s)
{
	if (!s || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' || s[2] != '\0')
		return SQ_NONE;
	return (s[1] - '1') * 8 + (s[0] - 'a');
}

/* The one table of piece letters: SAN's, and FEN's in upper case. */
static const char PIECE_LETTERS[] = "PNBRQK";

int piece_from_letter(char c)
{
	if (c >= 'a' && c <= 'z')
		c = (char)(c - 'a' + 'A');
	const char *p = c != '\0' ? strchr(PIECE_LETTERS, c) : NULL;
	return p ? (int)(p - PIECE_LETTERS) : PIECE_NONE;
}

char piece_letter(int type)
{
	return type >= PAWN && type <= KING ? PIECE_LETTERS[type] : '?';
}
