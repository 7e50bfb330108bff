/*
 * fen.c — FEN in and out.
 *
 * The parser sits behind a socket (a FEN comes with a challenge or a
 * game setup), so it trusts nothing: every field is checked for form and
 * the position for chess sense (kings, pawns on the back ranks, more
 * promoted pieces than missing pawns, the side not to move in check,
 * checks no single move gives, castling rights without their king and
 * rook or with a promoted rook, an en-passant square no double push could
 * have made), and the first problem is reported by name.  The board is
 * built in a local copy and only copied out when everything holds, so *b
 * is untouched on error.
 */
#include "fen.h"

#include <stdio.h>
#include <string.h>

#include "bitboard.h"
#include "errbuf.h"

static const char *color_name(int c) { return c == WHITE ? "white" : "black"; }

/* Next space-separated field: [*start, *start + *len). false when none. */
static bool next_field(const char **p, const char **start, size_t *len)
{
	while (**p == ' ')
		(*p)++;
	if (**p == '\0')
		return false;
	*start = *p;
	while (**p != ' ' && **p != '\0')
		(*p)++;
	*len = (size_t)(*p - *start);
	return true;
}

/* A counter: 1-5 decimal digits, value <= max. */
static bool parse_counter(const char *s, size_t len, unsigned max, unsigned *out)
{
	if (len == 0 || len > 5)
		return false;
	unsigned v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

static int parse_placement(const char *s, size_t len, struct board *b, char *err, size_t errlen)
{
	int rank = 7, file = 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == '/') {
			if (file != 8)
				return failf(err, errlen, "rank %d has %d squares", rank + 1, file);
			if (rank == 0)
				return failf(err, errlen, "more than 8 ranks");
			rank--;
			file = 0;
		} else if (c >= '1' && c <= '8') {
			/* A FEN writer merges empty squares: "71" is malformed. */
			if (i > 0 && s[i - 1] >= '1' && s[i - 1] <= '8')
				return failf(err, errlen, "rank %d has two digits in a row", rank + 1);
			file += c - '0';
			if (file > 8)
				return failf(err, errlen, "rank %d has more than 8 squares", rank + 1);
		} else {
			/* FEN's letters are SAN's, the case being the colour. */
			int type = piece_from_letter(c);
			if (type == PIECE_NONE) {
				if (c >= 0x21 && c < 0x7f)
					return failf(err, errlen, "bad piece letter '%c'", c);
				return failf(err, errlen, "bad byte 0x%02x in placement", (unsigned char)c);
			}
			if (file >= 8)
				return failf(err, errlen, "rank %d has more than 8 squares", rank + 1);
			board_put(b, c >= 'a' ? BLACK : WHITE, type, rank * 8 + file);
			file++;
			/* Crazyhouse FEN marks a promoted man with a '~' after it. */
			if (i + 1 < len && s[i + 1] == '~') {
				if (!b->crazy)
					return failf(err, errlen, "promoted mark '~' without a reserve field");
				if (type == PAWN || type == KING)
					return failf(err, errlen, "promoted mark '~' after '%c'", c);
				b->promoted |= bb_sq(rank * 8 + file - 1);
				i++;
			}
		}
	}
	if (rank != 0)
		return failf(err, errlen, "%d ranks instead of 8", 8 - rank);
	if (file != 8)
		return failf(err, errlen, "rank 1 has %d squares", file);
	return 0;
}

/*
 * The reserve field of Crazyhouse FEN, between the brackets: a letter per
 * man held, upper case White's, lower case Black's, in any order; empty
 * (or "-") for no reserves.
 */
static int parse_hand(const char *s, size_t len, struct board *b, char *err, size_t errlen)
{
	if (len == 1 && s[0] == '-')
		return 0;
	for (size_t i = 0; i < len; i++) {
		int type = piece_from_letter(s[i]);
		if (type == PIECE_NONE || type == KING) {
			if (s[i] >= 0x21 && s[i] < 0x7f)
				return failf(err, errlen, "bad reserve letter '%c'", s[i]);
			return failf(err, errlen, "bad byte 0x%02x in reserve", (unsigned char)s[i]);
		}
		int color = s[i] >= 'a' ? BLACK : WHITE;
		if (b->hand[color][type] >= HAND_MAX)
			return failf(err, errlen, "more than %d '%c' in reserve", HAND_MAX, s[i]);
		b->hand[color][type]++;
	}
	return 0;
}

/*
 * Crazyhouse material: men change sides, so the counts that hold are of
 * both sides together, board and reserves: at most the initial 16 pawns
 * (with every promoted man, which was one), 4 knights, 4 bishops (on any
 * square colour: a bishop may be dropped anywhere), 4 rooks and 2 queens
 * not promoted; one king each, and no pawn on the first or last rank.
 */
static int check_crazy_material(const struct board *b, char *err, size_t errlen)
{
	static const int initial[5] = { 16, 4, 4, 4, 2 };
	static const char *const names[5] = { "pawns", "knights", "bishops", "rooks", "queens" };
	for (int c = WHITE; c <= BLACK; c++) {
		int kings = bb_count(b->pieces[c][KING]);
		if (kings == 0)
			return failf(err, errlen, "no %s king", color_name(c));
		if (kings > 1)
			return failf(err, errlen, "%d %s kings", kings, color_name(c));
		bb_t back = b->pieces[c][PAWN] & (BB_RANK_1 | BB_RANK_8);
		if (back) {
			char sq[3];
			square_name(bb_lsb(back), sq);
			return failf(err, errlen, "%s pawn on %s", color_name(c), sq);
		}
	}
	for (int t = PAWN; t <= QUEEN; t++) {
		int n = b->hand[WHITE][t] + b->hand[BLACK][t];
		bb_t on = b->pieces[WHITE][t] | b->pieces[BLACK][t];
		n += bb_count(t == PAWN ? on | b->promoted : on & ~b->promoted);
		if (n > initial[t])
			return failf(err, errlen, "more than %d %s on the board and in reserve", initial[t], names[t]);
	}
	return 0;
}

static int check_material(const struct board *b, char *err, size_t errlen)
{
	if (b->crazy)
		return check_crazy_material(b, err, errlen);
	for (int c = WHITE; c <= BLACK; c++) {
		const bb_t *p = b->pieces[c];
		int kings = bb_count(p[KING]);
		if (kings == 0)
			return failf(err, errlen, "no %s king", color_name(c));
		if (kings > 1)
			return failf(err, errlen, "%d %s kings", kings, color_name(c));
		bb_t back = p[PAWN] & (BB_RANK_1 | BB_RANK_8);
		if (back) {
			char sq[3];
			square_name(bb_lsb(back), sq);
			return failf(err, errlen, "%s pawn on %s", color_name(c), sq);
		}
		int pawns = bb_count(p[PAWN]);
		if (pawns > 8)
			return failf(err, errlen, "%d %s pawns", pawns, color_name(c));
		/* Pieces beyond the initial set must have been pawns.  The initial
		 * bishops are one on each square colour, so a second bishop on
		 * one colour is a promoted one even with the other bishop gone. */
		int extra = 0;
		static const int initial[5] = { 0, 2, 0, 2, 1 };
		for (int t = KNIGHT; t <= QUEEN; t++) {
			int k = bb_count(p[t]);
			if (t != BISHOP && k > initial[t])
				extra += k - initial[t];
		}
		int light = bb_count(p[BISHOP] & BB_LIGHT), dark = bb_count(p[BISHOP] & BB_DARK);
		extra += (light > 1 ? light - 1 : 0) + (dark > 1 ? dark - 1 : 0);
		if (pawns + extra > 8)
			return failf(err, errlen, "too many %s pieces for the pawns promoted", color_name(c));
	}
	return 0;
}

static int parse_castling(const char *s, size_t len, struct board *b, char *err, size_t errlen)
{
	if (len == 1 && s[0] == '-')
		return 0;
	if (len > 4)
		return failf(err, errlen, "castling field too long");
	for (size_t i = 0; i < len; i++) {
		unsigned right;
		switch (s[i]) {
		case 'K': right = CASTLE_WK; break;
		case 'Q': right = CASTLE_WQ; break;
		case 'k': right = CASTLE_BK; break;
		case 'q': right = CASTLE_BQ; break;
		default:
			if (s[i] >= 0x21 && s[i] < 0x7f)
				return failf(err, errlen, "bad castling letter '%c'", s[i]);
			return failf(err, errlen, "bad byte 0x%02x in castling", (unsigned char)s[i]);
		}
		if (b->castling & right)
			return failf(err, errlen, "castling right %c given twice", s[i]);
		char sq[3];
		int color = right & castle_rights_of(WHITE) ? WHITE : BLACK;
		int king_sq = castle_king_square(right), rook_sq = castle_rook_square(right);
		if (!(b->pieces[color][KING] & bb_sq(king_sq))) {
			square_name(king_sq, sq);
			return failf(err, errlen, "castling right %c without the king on %s", s[i], sq);
		}
		if (!(b->pieces[color][ROOK] & bb_sq(rook_sq))) {
			square_name(rook_sq, sq);
			return failf(err, errlen, "castling right %c without a rook on %s", s[i], sq);
		}
		/* A promoted rook came to its corner by moving (or by a drop, after
		 * the first rook left it), and either cost the right. */
		if (b->promoted & bb_sq(rook_sq)) {
			square_name(rook_sq, sq);
			return failf(err, errlen, "castling right %c with a promoted rook on %s", s[i],
			             sq);
		}
		b->castling |= (uint8_t)right;
	}
	return 0;
}

/* The en-passant square must be behind a pawn of the side not to move that
 * could just have come from two squares further back. */
static int parse_ep(const char *s, size_t len, struct board *b, char *err, size_t errlen)
{
	if (len == 1 && s[0] == '-')
		return 0;
	char name[3] = { len > 0 ? s[0] : 0, len > 1 ? s[1] : 0, 0 };
	int sq = len == 2 ? square_parse(name) : SQ_NONE;
	if (sq == SQ_NONE)
		return failf(err, errlen, "bad en passant field");
	int mover = b->side ^ 1; /* who made the double push */
	int want_rank = mover == WHITE ? 2 : 5;
	int pawn_sq = mover == WHITE ? sq + 8 : sq - 8;
	int origin = mover == WHITE ? sq - 8 : sq + 8;
	if ((sq >> 3) != want_rank || !(b->pieces[mover][PAWN] & bb_sq(pawn_sq)) ||
	    b->mailbox[sq] != MAILBOX_EMPTY || b->mailbox[origin] != MAILBOX_EMPTY)
		return failf(err, errlen, "en passant square %s without a pawn that just moved two squares",
		             name);
	b->ep = (uint8_t)sq;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Checks a single move can give                                       */

static bool is_slider(const struct board *b, int sq)
{
	int t = piece_code_type(b->mailbox[sq]);
	return t == BISHOP || t == ROOK || t == QUEEN;
}

/*
 * The empty squares the piece of colour `mover` on `sq` can have just come
 * from: along its own moves, or, for a pawn, one or two squares back or a
 * capture diagonal back; a piece on the mover's last rank may also be a
 * promoted pawn.  (Squares now empty: the piece left them.)
 */
static bb_t origins(const struct board *b, int sq, int mover)
{
	const bb_t occ = b->occ[WHITE] | b->occ[BLACK];
	const int back = mover == WHITE ? -8 : 8; /* one square towards the mover's side */
	const bool last = (sq >> 3) == (mover == WHITE ? 7 : 0);
	bb_t o = 0;
	switch (piece_code_type(b->mailbox[sq])) {
	case KNIGHT: o = bb_knight(sq); break;
	case BISHOP: o = bb_bishop(sq, occ); break;
	case ROOK: o = bb_rook(sq, occ); break;
	case QUEEN: o = bb_queen(sq, occ); break;
	case PAWN: {
		bool fourth = (sq >> 3) == (mover == WHITE ? 3 : 4);
		if (!(occ & bb_sq(sq + back))) {
			o |= bb_sq(sq + back);
			if (fourth)
				o |= bb_sq(sq + 2 * back);
		}
		o |= bb_pawn_attacks(mover ^ 1, sq); /* where a capturing pawn came from */
		break;
	}
	default: break;
	}
	if (last && piece_code_type(b->mailbox[sq]) != PAWN && piece_code_type(b->mailbox[sq]) != KING)
		o |= bb_sq(sq + back) | bb_pawn_attacks(mover ^ 1, sq);
	return o & ~occ;
}

/* Is every checker of `checkers` either the piece on `landed` or a slider
 * whose line to the king crosses `vacated`? */
static bool explained(const struct board *b, bb_t checkers, int ksq, int landed, bb_t vacated)
{
	for (bb_t c = checkers; c;) {
		int sq = bb_pop(&c);
		if (sq == landed)
			continue;
		if (!is_slider(b, sq) || !(bb_between(sq, ksq) & vacated))
			return false;
	}
	return true;
}

/*
 * Could one move of `mover` have given the double check `checkers`?  A
 * move can check with the piece that moved and discover a check from a
 * slider whose line crosses the square it left; only an en-passant capture
 * vacates two squares, so only it can discover two checks at once (or
 * check with the pawn and discover through the taken pawn's square).  Two
 * knights, two pawns, a pawn and a knight, or two sliders on one line can
 * never check together.
 */
static bool double_check_possible(const struct board *b, bb_t checkers, int ksq, int mover)
{
	int a = bb_lsb(checkers), c = bb_lsb(checkers & (checkers - 1));
	if (is_slider(b, c) && (origins(b, a, mover) & bb_between(c, ksq)))
		return true;
	if (is_slider(b, a) && (origins(b, c, mover) & bb_between(a, ksq)))
		return true;
	/* en passant: a pawn of the mover on its sixth rank, the taken pawn's
	 * square behind it and the capturing pawn's origin beside that empty */
	const bb_t occ = b->occ[WHITE] | b->occ[BLACK];
	const bb_t sixth = mover == WHITE ? BB_RANK_6 : BB_RANK_3;
	for (bb_t p = b->pieces[mover][PAWN] & sixth; p;) {
		int to = bb_pop(&p);
		int cap = mover == WHITE ? to - 8 : to + 8;
		if (occ & bb_sq(cap))
			continue;
		for (int side = -1; side <= 1; side += 2) {
			int file = (cap & 7) + side;
			if (file < 0 || file > 7 || (occ & bb_sq(cap + side)))
				continue;
			if (explained(b, checkers, ksq, to, bb_sq(cap) | bb_sq(cap + side)))
				return true;
		}
	}
	return false;
}

/* The checks on the side to move must be ones the last move could give. */
static int check_checks(const struct board *b, char *err, size_t errlen)
{
	const int mover = b->side ^ 1, ksq = board_king(b, b->side);
	const bb_t checkers = board_checkers(b);
	char s1[3], s2[3];
	if (!checkers)
		return 0;
	if (bb_count(checkers) > 2)
		return failf(err, errlen, "side to move is in check by more than two pieces");
	if (b->ep != SQ_NONE) {
		/* The last move is known: the double step to the pawn in front of
		 * the en-passant square.  It checks with that pawn or discovers a
		 * check through the square the pawn left. */
		int pawn_sq = mover == WHITE ? b->ep + 8 : b->ep - 8;
		int origin = mover == WHITE ? b->ep - 8 : b->ep + 8;
		for (bb_t c = checkers; c;) {
			int sq = bb_pop(&c);
			if (!explained(b, bb_sq(sq), ksq, pawn_sq, bb_sq(origin))) {
				square_name(b->ep, s1);
				square_name(sq, s2);
				return failf(err, errlen,
				             "en passant square %s with a check from %s the double step cannot give", s1,
				            s2);
			}
		}
		return 0;
	}
	if (bb_several(checkers) && !double_check_possible(b, checkers, ksq, mover)) {
		square_name(bb_lsb(checkers), s1);
		square_name(bb_lsb(checkers & (checkers - 1)), s2);
		return failf(err, errlen, "impossible double check from %s and %s: no single move gives both",
		             s1, s2);
	}
	return 0;
}

int fen_parse(const char *fen, struct board *out, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!fen)
		return failf(err, errlen, "no FEN");
	size_t total = strnlen(fen, FEN_INPUT_MAX + 1);
	if (total > FEN_INPUT_MAX)
		return failf(err, errlen, "FEN longer than %d bytes", FEN_INPUT_MAX);
	for (size_t i = 0; i < total; i++)
		if ((unsigned char)fen[i] < 0x20 || (unsigned char)fen[i] >= 0x7f)
			return failf(err, errlen, "bad byte 0x%02x in FEN", (unsigned char)fen[i]);

	struct board b;
	board_clear(&b);
	const char *p = fen, *f;
	size_t len;

	if (!next_field(&p, &f, &len))
		return failf(err, errlen, "empty FEN");
	/* Crazyhouse: the placement ends in the reserves, "...RNBQKBNR[Qp]". */
	const char *open = memchr(f, '[', len);
	if (open != NULL) {
		size_t plen = (size_t)(open - f);
		if (f[len - 1] != ']' || len - plen < 2)
			return failf(err, errlen, "reserve field without its ']'");
		b.crazy = 1;
		if (parse_hand(open + 1, len - plen - 2, &b, err, errlen) < 0)
			return -1;
		len = plen;
	}
	if (parse_placement(f, len, &b, err, errlen) < 0)
		return -1;
	if (check_material(&b, err, errlen) < 0)
		return -1;

	if (!next_field(&p, &f, &len))
		return failf(err, errlen, "missing side to move");
	if (len != 1 || (f[0] != 'w' && f[0] != 'b'))
		return failf(err, errlen, "side to move must be w or b");
	b.side = f[0] == 'w' ? WHITE : BLACK;

	if (!next_field(&p, &f, &len))
		return failf(err, errlen, "missing castling field");
	if (parse_castling(f, len, &b, err, errlen) < 0)
		return -1;

	if (!next_field(&p, &f, &len))
		return failf(err, errlen, "missing en passant field");
	if (parse_ep(f, len, &b, err, errlen) < 0)
		return -1;

	/* The counters as far as the board holds them (board.h: uint16_t,
	 * which board_make stops at): whatever fen_format writes reads back. */
	unsigned v;
	if (next_field(&p, &f, &len)) {
		if (!parse_counter(f, len, UINT16_MAX, &v))
			return failf(err, errlen, "bad halfmove clock");
		b.halfmove = (uint16_t)v;
		if (next_field(&p, &f, &len)) {
			if (!parse_counter(f, len, UINT16_MAX, &v) || v == 0)
				return failf(err, errlen, "bad fullmove number");
			b.fullmove = (uint16_t)v;
		}
		if (next_field(&p, &f, &len))
			return failf(err, errlen, "extra text after the FEN");
	}
	if (b.ep != SQ_NONE && b.halfmove != 0)
		return failf(err, errlen, "halfmove clock must be 0 after a double pawn push");

	/* The side that just moved cannot have left its king in check. */
	int other = b.side ^ 1;
	bb_t occ = b.occ[WHITE] | b.occ[BLACK];
	if (board_attacked(&b, board_king(&b, other), b.side, occ))
		return failf(err, errlen, "side not to move is in check");
	if (check_checks(&b, err, errlen) < 0)
		return -1;

	b.key = board_compute_key(&b);
	*out = b;
	return 0;
}

void fen_format(const struct board *b, char *buf, size_t len)
{
	char tmp[FEN_MAX + 16];
	size_t n = 0;
	static const int hand_order[5] = { QUEEN, ROOK, BISHOP, KNIGHT, PAWN };
	for (int rank = 7; rank >= 0; rank--) {
		int empty = 0;
		for (int file = 0; file < 8; file++) {
			uint8_t code = b->mailbox[rank * 8 + file];
			if (code == MAILBOX_EMPTY) {
				empty++;
				continue;
			}
			if (empty)
				tmp[n++] = (char)('0' + empty);
			empty = 0;
			char c = piece_letter(piece_code_type(code));
			tmp[n++] = piece_code_color(code) == WHITE ? c : (char)(c - 'A' + 'a');
			if (b->crazy && (b->promoted & bb_sq(rank * 8 + file)))
				tmp[n++] = '~';
		}
		if (empty)
			tmp[n++] = (char)('0' + empty);
		if (rank)
			tmp[n++] = '/';
	}
	if (b->crazy) {
		tmp[n++] = '[';
		for (int c = WHITE; c <= BLACK; c++)
			for (int i = 0; i < 5; i++)
				for (int k = 0; k < b->hand[c][hand_order[i]] && k < HAND_MAX; k++) {
					char l = piece_letter(hand_order[i]);
					tmp[n++] = c == WHITE ? l : (char)(l - 'A' + 'a');
				}
		tmp[n++] = ']';
	}
	tmp[n++] = ' ';
	tmp[n++] = b->side == WHITE ? 'w' : 'b';
	tmp[n++] = ' ';
	if (!b->castling)
		tmp[n++] = '-';
	if (b->castling & CASTLE_WK)
		tmp[n++] = 'K';
	if (b->castling & CASTLE_WQ)
		tmp[n++] = 'Q';
	if (b->castling & CASTLE_BK)
		tmp[n++] = 'k';
	if (b->castling & CASTLE_BQ)
		tmp[n++] = 'q';
	tmp[n++] = ' ';
	if (b->ep < 64) {
		square_name(b->ep, tmp + n);
		n += 2;
	} else {
		tmp[n++] = '-';
	}
	tmp[n] = '\0';
	snprintf(buf, len, "%s %u %u", tmp, (unsigned)b->halfmove, (unsigned)b->fullmove);
}
