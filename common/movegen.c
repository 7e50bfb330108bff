/*
 * movegen.c — legal move generation with check and pin masks, the
 * "possible" moves of one side seen from its own pieces, and perft.
 *
 * Legal generation never plays a move to test it: with the checkers and
 * the pinned pieces known, every move but en passant and king steps is
 * legal by construction (a non-pinned piece must land on the check mask,
 * a pinned one stays on its pin line).  King steps test the destination
 * with the king removed from the occupancy; en passant, which removes two
 * pieces from one rank, tests the king's safety on the resulting board.
 *
 * One generator body serves both a list and a bare count; perft uses the
 * count at its last ply (bulk counting), so leaves are never made.
 */
#include "movegen.h"

#include "bitboard.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))

static inline void emit(struct movelist *l, int from, int to, enum move_kind kind, int promo)
{
	l->m[l->n++] = move_make(from, to, kind, promo);
}

static inline void emit_promos(struct movelist *l, int from, int to)
{
	emit(l, from, to, MOVE_PROMOTION, QUEEN);
	emit(l, from, to, MOVE_PROMOTION, ROOK);
	emit(l, from, to, MOVE_PROMOTION, BISHOP);
	emit(l, from, to, MOVE_PROMOTION, KNIGHT);
}

/* Pawn targets shifted by `delta` back to their origins, split into
 * promotions and the rest. */
static ALWAYS_INLINE int emit_pawn_set(struct movelist *l, bb_t targets, int delta, bb_t promo_rank,
                                       bool count_only)
{
	if (count_only)
		return bb_count(targets & ~promo_rank) + 4 * bb_count(targets & promo_rank);
	for (bb_t t = targets & ~promo_rank; t;) {
		int to = bb_pop(&t);
		emit(l, to - delta, to, MOVE_NORMAL, KNIGHT);
	}
	for (bb_t t = targets & promo_rank; t;) {
		int to = bb_pop(&t);
		emit_promos(l, to - delta, to);
	}
	return 0;
}

static ALWAYS_INLINE int emit_piece(struct movelist *l, int from, bb_t targets, bool count_only)
{
	if (count_only)
		return bb_count(targets);
	while (targets)
		emit(l, from, bb_pop(&targets), MOVE_NORMAL, KNIGHT);
	return 0;
}

/*
 * Drops from `us`'s reserve onto `targets` (empty squares; pawns never on
 * the first or last rank).  Out of line: standard chess never gets here,
 * and the hot generator stays as small as it was.
 */
static __attribute__((noinline)) int emit_drops(const struct board *b, struct movelist *l, bool count_only,
                                                int us, bb_t targets)
{
	int n = 0;
	for (int t = PAWN; t <= QUEEN; t++) {
		if (!b->hand[us][t])
			continue;
		bb_t to = t == PAWN ? targets & ~(BB_RANK_1 | BB_RANK_8) : targets;
		if (count_only) {
			n += bb_count(to);
			continue;
		}
		while (to)
			l->m[l->n++] = move_make_drop(t, bb_pop(&to));
	}
	return n;
}

/*
 * The generator.  `us` is a compile-time constant in each instantiation
 * so the pawn shifts fold away.  Returns the number of moves when
 * count_only, else appends to l and returns 0.
 */
static ALWAYS_INLINE int generate(const struct board *b, struct movelist *l, bool count_only,
                                  const int us)
{
	const int them = us ^ 1;
	const bb_t own = b->occ[us], enemy = b->occ[them], occ = own | enemy;
	const bb_t *mine = b->pieces[us], *theirs = b->pieces[them];
	int n = 0;

	if (!mine[KING])
		return 0; /* a view board without its king: nothing is legal */
	const int ksq = bb_lsb(mine[KING]);
	const bb_t checkers = bb_attackers(b, ksq, them, occ);

	/* King steps: the destination must be safe with the king gone from
	 * its square, so it cannot retreat along a checking ray. */
	{
		bb_t occ_nok = occ ^ bb_sq(ksq);
		for (bb_t t = bb_king(ksq) & ~own; t;) {
			int to = bb_pop(&t);
			if (bb_attackers(b, to, them, occ_nok))
				continue;
			if (count_only)
				n++;
			else
				emit(l, ksq, to, MOVE_NORMAL, KNIGHT);
		}
	}
	if (bb_several(checkers))
		return n; /* double check: only the king moves */

	bb_t checkmask = ~0ULL;
	if (checkers)
		checkmask = checkers | bb_between(ksq, bb_lsb(checkers));
	const bb_t target = ~own & checkmask;

	/* Pinned pieces: an own piece alone between the king and an enemy slider. */
	bb_t pinned = 0;
	{
		bb_t snipers = (bb_rook(ksq, enemy) & (theirs[ROOK] | theirs[QUEEN])) |
		               (bb_bishop(ksq, enemy) & (theirs[BISHOP] | theirs[QUEEN]));
		while (snipers) {
			bb_t between = bb_between(ksq, bb_pop(&snipers)) & occ;
			if (between && !bb_several(between) && (between & own))
				pinned |= between;
		}
	}

	/* Knights: a pinned knight never moves. */
	for (bb_t p = mine[KNIGHT] & ~pinned; p;) {
		int from = bb_pop(&p);
		n += emit_piece(l, from, bb_knight(from) & target, count_only);
	}
	/* Sliders; a pinned one keeps to its pin line.  In check a pinned piece
	 * can never help (it would leave one line for another), so skip them. */
	const bb_t pin_ok = checkers ? 0 : pinned;
	for (bb_t p = (mine[BISHOP] | mine[QUEEN]) & (~pinned | pin_ok); p;) {
		int from = bb_pop(&p);
		bb_t t = bb_bishop(from, occ) & target;
		if (pinned & bb_sq(from))
			t &= bb_line(ksq, from);
		n += emit_piece(l, from, t, count_only);
	}
	for (bb_t p = (mine[ROOK] | mine[QUEEN]) & (~pinned | pin_ok); p;) {
		int from = bb_pop(&p);
		bb_t t = bb_rook(from, occ) & target;
		if (pinned & bb_sq(from))
			t &= bb_line(ksq, from);
		n += emit_piece(l, from, t, count_only);
	}

	/* Pawns, free ones in bulk. */
	{
		const int up = us == WHITE ? 8 : -8;
		const bb_t rank3 = us == WHITE ? BB_RANK_3 : BB_RANK_6;
		const bb_t last = us == WHITE ? BB_RANK_8 : BB_RANK_1;
		const bb_t empty = ~occ;
		bb_t free = mine[PAWN] & ~pinned;
		bb_t push1 = bb_forward(us, free) & empty;
		bb_t push2 = bb_forward(us, push1 & rank3) & empty & checkmask;
		push1 &= checkmask;
		bb_t capw, cape; /* towards the a-file / the h-file */
		if (us == WHITE) {
			capw = ((free & ~BB_FILE_A) << 7) & enemy & checkmask;
			cape = ((free & ~BB_FILE_H) << 9) & enemy & checkmask;
		} else {
			capw = ((free & ~BB_FILE_A) >> 9) & enemy & checkmask;
			cape = ((free & ~BB_FILE_H) >> 7) & enemy & checkmask;
		}
		n += emit_pawn_set(l, push1, up, last, count_only);
		n += emit_pawn_set(l, push2, 2 * up, 0, count_only);
		n += emit_pawn_set(l, capw, us == WHITE ? 7 : -9, last, count_only);
		n += emit_pawn_set(l, cape, us == WHITE ? 9 : -7, last, count_only);

		/* Pinned pawns one by one, along their pin line. */
		for (bb_t p = mine[PAWN] & pin_ok; p;) {
			int from = bb_pop(&p);
			bb_t line = bb_line(ksq, from);
			bb_t one = bb_forward(us, bb_sq(from)) & empty;
			bb_t t = one | (bb_forward(us, one & rank3) & empty);
			t |= bb_pawn_attacks(us, from) & enemy;
			t &= line;
			for (; t;) {
				int to = bb_pop(&t);
				if (bb_sq(to) & last) {
					if (count_only)
						n += 4;
					else
						emit_promos(l, from, to);
				} else if (count_only) {
					n++;
				} else {
					emit(l, from, to, MOVE_NORMAL, KNIGHT);
				}
			}
		}

		/* En passant: test the resulting board, as two pawns leave one rank. */
		if (b->ep != SQ_NONE) {
			int ep = b->ep;
			int cap = ep - up;
			if (theirs[PAWN] & bb_sq(cap)) {
				for (bb_t p = bb_pawn_attacks(them, ep) & mine[PAWN]; p;) {
					int from = bb_pop(&p);
					if (!bb_ep_safe(b, us, from, ep))
						continue;
					if (count_only)
						n++;
					else
						emit(l, from, ep, MOVE_EN_PASSANT, KNIGHT);
				}
			}
		}
	}

	/* Castling: the right, the king and rook at home, the squares between
	 * empty, and the king neither in, through nor into check. */
	if (!checkers) {
		const int base = us == WHITE ? 0 : 56;
		const int rk = us == WHITE ? CASTLE_WK : CASTLE_BK;
		const int rq = us == WHITE ? CASTLE_WQ : CASTLE_BQ;
		if ((b->castling & rk) && ksq == base + 4 && (mine[ROOK] & bb_sq(base + 7)) &&
		    !(occ & (bb_sq(base + 5) | bb_sq(base + 6))) &&
		    !bb_attackers(b, base + 5, them, occ) && !bb_attackers(b, base + 6, them, occ)) {
			if (count_only)
				n++;
			else
				emit(l, ksq, base + 6, MOVE_CASTLING, KNIGHT);
		}
		if ((b->castling & rq) && ksq == base + 4 && (mine[ROOK] & bb_sq(base)) &&
		    !(occ & (bb_sq(base + 1) | bb_sq(base + 2) | bb_sq(base + 3))) &&
		    !bb_attackers(b, base + 3, them, occ) && !bb_attackers(b, base + 2, them, occ)) {
			if (count_only)
				n++;
			else
				emit(l, ksq, base + 2, MOVE_CASTLING, KNIGHT);
		}
	}

	/* Drops (crazykrieg): a dropped man never uncovers its king, so any
	 * empty square will do, and in check only one between the king and
	 * its (single, sliding) checker. */
	if (board_hand_any(b, us))
		n += emit_drops(b, l, count_only, us,
		                ~occ & (checkers ? bb_between(ksq, bb_lsb(checkers)) : ~0ULL));
	return n;
}

static int count_white(const struct board *b) { return generate(b, NULL, true, WHITE); }
static int count_black(const struct board *b) { return generate(b, NULL, true, BLACK); }

static void list_white(const struct board *b, struct movelist *l) { generate(b, l, false, WHITE); }
static void list_black(const struct board *b, struct movelist *l) { generate(b, l, false, BLACK); }

void movegen_legal(const struct board *b, struct movelist *out)
{
	out->n = 0;
	if (b->side == WHITE)
		list_white(b, out);
	else
		list_black(b, out);
}

int movegen_count(const struct board *b)
{
	return b->side == WHITE ? count_white(b) : count_black(b);
}

bool movegen_is_legal(const struct board *b, move_t m)
{
	if (m == MOVE_NONE)
		return false;
	struct movelist l;
	movegen_legal(b, &l);
	for (int i = 0; i < l.n; i++)
		if (l.m[i] == m)
			return true;
	return false;
}

/* Same origin, destination and (for promotions) piece; the kind follows. */
static bool same_attempt(move_t a, move_t b)
{
	if (move_is_drop(a) || move_is_drop(b))
		return a == b;
	if (move_from(a) != move_from(b) || move_to(a) != move_to(b))
		return false;
	bool pa = move_kind(a) == MOVE_PROMOTION, pb = move_kind(b) == MOVE_PROMOTION;
	return pa == pb && (!pa || move_promo(a) == move_promo(b));
}

move_t movegen_find_legal(const struct board *b, move_t m)
{
	struct movelist l;
	movegen_legal(b, &l);
	for (int i = 0; i < l.n; i++)
		if (same_attempt(l.m[i], m))
			return l.m[i];
	return MOVE_NONE;
}

void movegen_possible(const struct board *b, int color, struct movelist *out)
{
	out->n = 0;
	if (color != WHITE && color != BLACK)
		return;
	const bb_t own = b->occ[color];
	const bb_t *mine = b->pieces[color];
	const bb_t last = color == WHITE ? BB_RANK_8 : BB_RANK_1;
	const bb_t rank3 = color == WHITE ? BB_RANK_3 : BB_RANK_6;

	for (bb_t p = mine[PAWN]; p;) {
		int from = bb_pop(&p);
		bb_t one = bb_forward(color, bb_sq(from)) & ~own;
		bb_t t = one | (bb_forward(color, one & rank3) & ~own);
		t |= bb_pawn_attacks(color, from) & ~own;
		while (t) {
			int to = bb_pop(&t);
			if (bb_sq(to) & last)
				emit_promos(out, from, to);
			else
				emit(out, from, to, MOVE_NORMAL, KNIGHT);
		}
	}
	for (bb_t p = mine[KNIGHT]; p;) {
		int from = bb_pop(&p);
		emit_piece(out, from, bb_knight(from) & ~own, false);
	}
	for (bb_t p = mine[BISHOP] | mine[QUEEN]; p;) {
		int from = bb_pop(&p);
		emit_piece(out, from, bb_bishop(from, own) & ~own, false);
	}
	for (bb_t p = mine[ROOK] | mine[QUEEN]; p;) {
		int from = bb_pop(&p);
		emit_piece(out, from, bb_rook(from, own) & ~own, false);
	}
	if (mine[KING]) {
		int ksq = bb_lsb(mine[KING]);
		emit_piece(out, ksq, bb_king(ksq) & ~own, false);
		const int base = color == WHITE ? 0 : 56;
		const int rk = color == WHITE ? CASTLE_WK : CASTLE_BK;
		const int rq = color == WHITE ? CASTLE_WQ : CASTLE_BQ;
		if ((b->castling & rk) && ksq == base + 4 && (mine[ROOK] & bb_sq(base + 7)) &&
		    !(own & (bb_sq(base + 5) | bb_sq(base + 6))))
			emit(out, ksq, base + 6, MOVE_CASTLING, KNIGHT);
		if ((b->castling & rq) && ksq == base + 4 && (mine[ROOK] & bb_sq(base)) &&
		    !(own & (bb_sq(base + 1) | bb_sq(base + 2) | bb_sq(base + 3))))
			emit(out, ksq, base + 2, MOVE_CASTLING, KNIGHT);
	}
	/* Drops: onto any square the player's own men leave empty. */
	if (board_hand_any(b, color))
		emit_drops(b, out, false, color, ~own);
}

bool movegen_is_possible(const struct board *b, int color, move_t m)
{
	if (m == MOVE_NONE)
		return false;
	struct movelist l;
	movegen_possible(b, color, &l);
	for (int i = 0; i < l.n; i++)
		if (l.m[i] == m)
			return true;
	return false;
}

int movegen_pawn_captures(const struct board *b)
{
	struct movelist l;
	movegen_legal(b, &l);
	int n = 0;
	for (int i = 0; i < l.n; i++) {
		move_t m = l.m[i];
		if (piece_code_type(b->mailbox[move_from(m)]) != PAWN)
			continue;
		if ((move_from(m) & 7) == (move_to(m) & 7))
			continue;
		if (move_kind(m) == MOVE_PROMOTION && move_promo(m) != QUEEN)
			continue;
		n++;
	}
	return n;
}

uint64_t movegen_pawn_capture_squares(const struct board *b)
{
	struct movelist l;
	movegen_legal(b, &l);
	uint64_t from = 0;
	for (int i = 0; i < l.n; i++) {
		move_t m = l.m[i];
		if (piece_code_type(b->mailbox[move_from(m)]) == PAWN && (move_from(m) & 7) != (move_to(m) & 7))
			from |= 1ULL << move_from(m);
	}
	return from;
}

static uint64_t perft_rec(const struct board *b, int depth)
{
	if (depth == 1)
		return (uint64_t)movegen_count(b);
	struct movelist l;
	movegen_legal(b, &l);
	uint64_t n = 0;
	for (int i = 0; i < l.n; i++) {
		struct board c = *b;
		board_make(&c, l.m[i]);
		n += perft_rec(&c, depth - 1);
	}
	return n;
}

uint64_t perft(const struct board *b, int depth)
{
	if (depth <= 0)
		return 1;
	return perft_rec(b, depth);
}
