/*
 * notation.c — a player's attempt in, SAN and coordinates out.
 *
 * Reading is split in two.  notation_lex() holds the whole grammar: strip
 * what carries no meaning (annotation marks, "e.p."), then recognise the
 * shape (castling, or an optional piece letter, an optional origin
 * file/rank/square, an optional capture or dash mark, a destination square,
 * an optional promotion piece).  The resolvers then find the move the parts
 * name: notation_resolve() among the mover's own pieces alone (the
 * candidates are the movegen_possible() moves that fit; since the enemy
 * pieces never enter, neither the result nor any error message can depend
 * on them), notation_resolve_legal() among the legal moves of a true board
 * (PGN records).
 */
#include "notation.h"

#include <stdio.h>
#include <string.h>

#include "bitboard.h"
#include "movegen.h"

static const char *const PIECE_NAME[6] = { "pawn", "knight", "bishop", "rook", "queen", "king" };

static enum notation_status fail(enum notation_status st, char *err, size_t errlen,
                                 const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
	return st;
}

static bool is_file(char c) { return c >= 'a' && c <= 'h'; }
static bool is_rank(char c) { return c >= '1' && c <= '8'; }

/* A promotion piece letter, either case (after a rank a b cannot be a file). */
static bool is_promo_letter(char c)
{
	int t = piece_from_letter(c);
	return t >= KNIGHT && t <= QUEEN;
}

static void trim(char *s, size_t *len)
{
	size_t start = 0;
	while (start < *len && s[start] == ' ')
		start++;
	while (*len > start && s[*len - 1] == ' ')
		(*len)--;
	memmove(s, s + start, *len - start);
	*len -= start;
	s[*len] = '\0';
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* Drop trailing + # ! ? and an "e.p." / "ep" suffix, in any order. */
static void strip_marks(char *s, size_t *len)
{
	for (bool changed = true; changed;) {
		changed = false;
		trim(s, len);
		while (*len > 0 && strchr("+#!?", s[*len - 1])) {
			(*len)--;
			changed = true;
		}
		if (ends_with(s, *len, "e.p.")) {
			*len -= 4;
			changed = true;
		} else if (ends_with(s, *len, "ep") && *len > 2 && !is_file(s[*len - 3])) {
			*len -= 2;
			changed = true;
		}
		s[*len] = '\0';
	}
	trim(s, len);
}

enum notation_status notation_lex(const char *text, struct notation_parts *out, char *err,
                                  size_t errlen)
{
	char buf[NOTATION_INPUT_MAX + 1];
	if (err && errlen)
		err[0] = '\0';
	if (!text)
		return fail(NOTATION_SYNTAX, err, errlen, "empty move");
	size_t len = strnlen(text, NOTATION_INPUT_MAX + 1);
	if (len > NOTATION_INPUT_MAX)
		return fail(NOTATION_SYNTAX, err, errlen, "move text too long");
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)text[i] < 0x20 || (unsigned char)text[i] > 0x7e)
			return fail(NOTATION_SYNTAX, err, errlen, "not a move");
	memcpy(buf, text, len);
	buf[len] = '\0';
	strip_marks(buf, &len);
	if (len == 0)
		return fail(NOTATION_SYNTAX, err, errlen, "empty move");

	struct notation_parts p = {
		.castle = NOTATION_CASTLE_NONE,
		.piece = PIECE_NONE,
		.from_file = -1,
		.from_rank = -1,
		.from = SQ_NONE,
		.to = SQ_NONE,
		.promo = PIECE_NONE,
		.capture = false,
	};
	if (!strcmp(buf, "O-O") || !strcmp(buf, "0-0") || !strcmp(buf, "o-o")) {
		p.castle = NOTATION_CASTLE_SHORT;
		*out = p;
		return NOTATION_OK;
	}
	if (!strcmp(buf, "O-O-O") || !strcmp(buf, "0-0-0") || !strcmp(buf, "o-o-o")) {
		p.castle = NOTATION_CASTLE_LONG;
		*out = p;
		return NOTATION_OK;
	}

	/* A drop: an optional upper-case piece letter, '@', a square. */
	const char *at = strchr(buf, '@');
	if (at != NULL) {
		size_t k = (size_t)(at - buf);
		if (k > 1 || len != k + 3 || !is_file(at[1]) || !is_rank(at[2]))
			return fail(NOTATION_SYNTAX, err, errlen, "not a move");
		if (k == 1) {
			int t = buf[0] >= 'A' && buf[0] <= 'Z' ? piece_from_letter(buf[0]) : PIECE_NONE;
			if (t == PIECE_NONE || t == KING)
				return fail(NOTATION_SYNTAX, err, errlen, "not a move");
			p.piece = t;
		} else {
			p.piece = PAWN;
		}
		p.drop = true;
		p.to = (at[2] - '1') * 8 + (at[1] - 'a');
		*out = p;
		return NOTATION_OK;
	}

	/* Piece letter (upper case only: a lower-case b is a file). */
	size_t i = 0;
	if (buf[0] >= 'A' && buf[0] <= 'Z' && piece_from_letter(buf[0]) != PIECE_NONE) {
		p.piece = piece_from_letter(buf[0]);
		i = 1;
	}
	/* Promotion suffix: after the destination's rank, with or without '='. */
	size_t end = len;
	if (end > i && is_promo_letter(buf[end - 1])) {
		if (end - i >= 2 && buf[end - 2] == '=') {
			p.promo = piece_from_letter(buf[end - 1]);
			end -= 2;
		} else if (end - i >= 2 && is_rank(buf[end - 2])) {
			p.promo = piece_from_letter(buf[end - 1]);
			end -= 1;
		} else {
			return fail(NOTATION_SYNTAX, err, errlen, "not a move");
		}
	}
	/* The squares, with at most one capture/dash mark just before the destination. */
	char core[8];
	size_t n = 0, sep_at = (size_t)-1;
	for (; i < end; i++) {
		char c = buf[i];
		if (c == 'x' || c == ':' || c == '-') {
			if (sep_at != (size_t)-1)
				return fail(NOTATION_SYNTAX, err, errlen, "not a move");
			sep_at = n;
			p.capture = c != '-';
			continue;
		}
		if (!is_file(c) && !is_rank(c))
			return fail(NOTATION_SYNTAX, err, errlen, "not a move");
		if (n >= 4)
			return fail(NOTATION_SYNTAX, err, errlen, "not a move");
		core[n++] = c;
	}
	if (n < 2 || !is_file(core[n - 2]) || !is_rank(core[n - 1]))
		return fail(NOTATION_SYNTAX, err, errlen, "not a move");
	if (sep_at != (size_t)-1 && sep_at != n - 2)
		return fail(NOTATION_SYNTAX, err, errlen, "not a move");
	p.to = (core[n - 1] - '1') * 8 + (core[n - 2] - 'a');
	if (n == 3) {
		if (is_file(core[0]))
			p.from_file = core[0] - 'a';
		else
			p.from_rank = core[0] - '1';
	} else if (n == 4) {
		if (!is_file(core[0]) || !is_rank(core[1]))
			return fail(NOTATION_SYNTAX, err, errlen, "not a move");
		p.from_file = core[0] - 'a';
		p.from_rank = core[1] - '1';
		p.from = p.from_rank * 8 + p.from_file;
	}
	*out = p;
	return NOTATION_OK;
}

/* Parts a caller filled in by hand are checked like any other input. */
static bool parts_sane(const struct notation_parts *p)
{
	if (p->castle == NOTATION_CASTLE_SHORT || p->castle == NOTATION_CASTLE_LONG)
		return true;
	if (p->castle != NOTATION_CASTLE_NONE || p->to < 0 || p->to > 63)
		return false;
	if (p->drop)
		return p->piece >= PAWN && p->piece <= QUEEN && p->from == SQ_NONE && p->from_file == -1 &&
		       p->from_rank == -1 && p->promo == PIECE_NONE;
	if (p->piece != PIECE_NONE && (p->piece < PAWN || p->piece > KING))
		return false;
	if (p->promo != PIECE_NONE && (p->promo < KNIGHT || p->promo > QUEEN))
		return false;
	if (p->from_file < -1 || p->from_file > 7 || p->from_rank < -1 || p->from_rank > 7)
		return false;
	bool both = p->from_file >= 0 && p->from_rank >= 0;
	return p->from == (both ? p->from_rank * 8 + p->from_file : SQ_NONE);
}

static enum notation_status resolve_castling(const struct board *own, int color, bool king_side,
                                             move_t *out, char *err, size_t errlen)
{
	int base = color == WHITE ? 0 : 56;
	move_t m = move_make(base + 4, base + (king_side ? 6 : 2), MOVE_CASTLING, KNIGHT);
	if (!movegen_is_possible(own, color, m))
		return fail(NOTATION_NO_PIECE, err, errlen,
		            king_side ? "cannot castle kingside (no right, or own pieces in the way)"
		                      : "cannot castle queenside (no right, or own pieces in the way)");
	*out = m;
	return NOTATION_OK;
}

/* The moves of `color`'s men of type ptype that p could name, one per
 * origin square (the last that fits), into *l; whether a move fitted
 * but for its promotion. */
static bool fitting(const struct board *own, int color, const struct notation_parts *p, int ptype,
                    struct movelist *l)
{
	struct movelist all;
	bool promo_mismatch = false;
	int to = p->to;
	movegen_possible(own, color, &all);
	l->n = 0;
	for (int k = 0; k < all.n; k++) {
		move_t m = all.m[k];
		int mf = move_from(m);
		if (move_to(m) != to || piece_code_type(own->mailbox[mf]) != ptype)
			continue;
		if (p->from_file >= 0 && (mf & 7) != p->from_file)
			continue;
		if (p->from_rank >= 0 && (mf >> 3) != p->from_rank)
			continue;
		/* A bare pawn destination is a push; a diagonal needs its file. */
		if (ptype == PAWN && p->from_file < 0 && (mf & 7) != (to & 7))
			continue;
		/* Castling written as a king move needs the origin square too. */
		if (move_kind(m) == MOVE_CASTLING && p->from == SQ_NONE)
			continue;
		if (move_kind(m) == MOVE_PROMOTION) {
			if (move_promo(m) != (p->promo != PIECE_NONE ? p->promo : QUEEN))
				continue;
		} else if (p->promo != PIECE_NONE) {
			promo_mismatch = true;
			continue;
		}
		if (l->n == 0 || move_from(l->m[l->n - 1]) != mf)
			l->n++;
		l->m[l->n - 1] = m;
	}
	return promo_mismatch;
}

int notation_candidates(const struct board *own, int color, const struct notation_parts *p,
                        struct movelist *l)
{
	l->n = 0;
	if (!parts_sane(p) || p->castle != NOTATION_CASTLE_NONE || p->drop || p->to == SQ_NONE)
		return 0;
	int ptype = p->piece;
	if (p->from != SQ_NONE) {
		uint8_t code = own->mailbox[p->from];
		if (code == MAILBOX_EMPTY || piece_code_color(code) != color ||
		    (ptype != PIECE_NONE && piece_code_type(code) != ptype))
			return 0;
		ptype = piece_code_type(code);
	} else if (ptype == PIECE_NONE) {
		ptype = PAWN;
	}
	fitting(own, color, p, ptype, l);
	return l->n;
}

enum notation_status notation_resolve(const struct board *own, int color,
                                      const struct notation_parts *p, move_t *out, char *err,
                                      size_t errlen)
{
	char msg[96];
	if (err && errlen)
		err[0] = '\0';
	if (color != WHITE && color != BLACK)
		return fail(NOTATION_SYNTAX, err, errlen, "bad colour");
	if (!parts_sane(p))
		return fail(NOTATION_SYNTAX, err, errlen, "not a move");
	if (p->castle != NOTATION_CASTLE_NONE)
		return resolve_castling(own, color, p->castle == NOTATION_CASTLE_SHORT, out, err, errlen);

	int to = p->to, from = p->from, ptype = p->piece;
	char to_name[3], from_name[3];
	square_name(to, to_name);
	if (p->drop) {
		/* The reserve is the player's own (and public) knowledge. */
		move_t m = move_make_drop(ptype, to);
		if (!own->hand[color][ptype])
			snprintf(msg, sizeof msg, "no %s in reserve", PIECE_NAME[ptype]);
		else if (!movegen_is_possible(own, color, m))
			snprintf(msg, sizeof msg, "cannot drop a %s on %s", PIECE_NAME[ptype], to_name);
		else {
			*out = m;
			return NOTATION_OK;
		}
		return fail(NOTATION_NO_PIECE, err, errlen, msg);
	}

	/* Which piece: named, or the own piece on a given origin, or a pawn. */
	if (from != SQ_NONE) {
		uint8_t code = own->mailbox[from];
		square_name(from, from_name);
		if (code == MAILBOX_EMPTY || piece_code_color(code) != color) {
			snprintf(msg, sizeof msg, "no own piece on %s", from_name);
			return fail(NOTATION_NO_PIECE, err, errlen, msg);
		}
		if (ptype != PIECE_NONE && piece_code_type(code) != ptype) {
			snprintf(msg, sizeof msg, "no own %s on %s", PIECE_NAME[ptype], from_name);
			return fail(NOTATION_NO_PIECE, err, errlen, msg);
		}
		ptype = piece_code_type(code);
	} else if (ptype == PIECE_NONE) {
		ptype = PAWN;
	}

	struct movelist l;
	bool promo_mismatch = fitting(own, color, p, ptype, &l);
	if (l.n == 1) {
		*out = l.m[0];
		return NOTATION_OK;
	}
	if (l.n > 1) {
		snprintf(msg, sizeof msg, "more than one own %s can move to %s: say which",
		         PIECE_NAME[ptype], to_name);
		return fail(NOTATION_AMBIGUOUS, err, errlen, msg);
	}
	if (promo_mismatch)
		snprintf(msg, sizeof msg, "a move to %s does not promote", to_name);
	else if (from != SQ_NONE)
		snprintf(msg, sizeof msg, "own %s on %s cannot move to %s", PIECE_NAME[ptype], from_name,
		         to_name);
	else
		snprintf(msg, sizeof msg, "no own %s can move to %s", PIECE_NAME[ptype], to_name);
	return fail(NOTATION_NO_PIECE, err, errlen, msg);
}

enum notation_status notation_parse(const struct board *own, int color, const char *text,
                                    move_t *out, char *err, size_t errlen)
{
	struct notation_parts p;
	if (color != WHITE && color != BLACK)
		return fail(NOTATION_SYNTAX, err, errlen, "bad colour");
	enum notation_status st = notation_lex(text, &p, err, errlen);
	if (st != NOTATION_OK)
		return st;
	return notation_resolve(own, color, &p, out, err, errlen);
}

enum notation_status notation_resolve_legal(const struct board *b, const struct notation_parts *p,
                                            move_t *out)
{
	if (!parts_sane(p))
		return NOTATION_SYNTAX;
	/* No letter: a pawn, or, from a written origin, the man standing there
	 * ("g1f3" was a pawn's move to f3 and refused: the PGN probe). */
	int type = p->piece != PIECE_NONE ? p->piece
	         : p->from != SQ_NONE && b->mailbox[p->from] != MAILBOX_EMPTY ? piece_code_type(b->mailbox[p->from])
	         : PAWN;
	int castle_file = p->castle == NOTATION_CASTLE_SHORT ? 6 : 2;
	struct movelist ml;
	movegen_legal(b, &ml);
	move_t found = MOVE_NONE;
	int count = 0;
	for (int i = 0; i < ml.n; i++) {
		move_t m = ml.m[i];
		int from = move_from(m), to = move_to(m);
		if (p->drop || move_is_drop(m)) {
			if (!p->drop || !move_is_drop(m) || move_drop_piece(m) != p->piece || to != p->to)
				continue;
		} else if (p->castle != NOTATION_CASTLE_NONE) {
			if (move_kind(m) != MOVE_CASTLING || (to & 7) != castle_file)
				continue;
		} else {
			if (piece_code_type(b->mailbox[from]) != type || to != p->to)
				continue;
			if ((p->from_file >= 0 && (from & 7) != p->from_file) ||
			    (p->from_rank >= 0 && (from >> 3) != p->from_rank))
				continue;
			if (move_kind(m) == MOVE_PROMOTION) {
				if (move_promo(m) != (p->promo == PIECE_NONE ? QUEEN : p->promo))
					continue;
			} else if (p->promo != PIECE_NONE) {
				continue;
			}
			if (type == KING && move_kind(m) == MOVE_CASTLING && (p->piece != PIECE_NONE || p->from == SQ_NONE))
				continue; /* castling is written O-O, never Kg1 or Ke1g1; bare e1g1 (UCI's) is it */
		}
		found = m;
		count++;
	}
	if (count == 0)
		return NOTATION_NO_PIECE;
	if (count > 1)
		return NOTATION_AMBIGUOUS;
	*out = found;
	return NOTATION_OK;
}

void notation_uci(move_t m, char buf[NOTATION_MAX])
{
	if (m == MOVE_NONE) {
		snprintf(buf, NOTATION_MAX, "0000");
		return;
	}
	if (move_is_drop(m)) {
		buf[0] = piece_letter(move_drop_piece(m));
		buf[1] = '@';
		square_name(move_to(m), buf + 2);
		return;
	}
	square_name(move_from(m), buf);
	square_name(move_to(m), buf + 2);
	if (move_kind(m) == MOVE_PROMOTION) {
		buf[4] = (char)(piece_letter(move_promo(m)) - 'A' + 'a');
		buf[5] = '\0';
	}
}

void notation_san(const struct board *b, move_t m, bool own_view, char buf[NOTATION_MAX])
{
	int from = move_from(m), to = move_to(m);
	uint8_t code = b->mailbox[from];
	if (m == MOVE_NONE || (code == MAILBOX_EMPTY && !move_is_drop(m))) {
		notation_uci(m, buf);
		return;
	}
	int color = piece_code_color(code), type = piece_code_type(code);
	char out[NOTATION_MAX]; /* the longest SAN, "Qa1xb2+" or "exd8=Q+", is 7 */
	size_t n = 0;
	char sq[3];

	if (move_is_drop(m)) {
		notation_uci(m, out); /* "N@f3": the same in SAN */
		n = 4;
	} else if (move_kind(m) == MOVE_CASTLING) {
		n = (size_t)snprintf(out, sizeof out, "%s", to > from ? "O-O" : "O-O-O");
	} else if (type == PAWN) {
		if ((from & 7) != (to & 7)) {
			out[n++] = (char)('a' + (from & 7));
			out[n++] = 'x';
		}
		square_name(to, sq);
		out[n++] = sq[0];
		out[n++] = sq[1];
		if (move_kind(m) == MOVE_PROMOTION) {
			out[n++] = '=';
			out[n++] = piece_letter(move_promo(m));
		}
	} else {
		out[n++] = piece_letter(type);
		/* Disambiguate among the moves the reader can know of: the legal
		 * ones on the true board, the possible ones on a view. */
		struct movelist l;
		if (own_view)
			movegen_possible(b, color, &l);
		else
			movegen_legal(b, &l);
		bool other = false, same_file = false, same_rank = false;
		for (int k = 0; k < l.n; k++) {
			int f = move_from(l.m[k]);
			if (move_to(l.m[k]) != to || f == from || b->mailbox[f] != code ||
			    move_kind(l.m[k]) == MOVE_CASTLING)
				continue;
			other = true;
			same_file |= (f & 7) == (from & 7);
			same_rank |= (f >> 3) == (from >> 3);
		}
		if (other) {
			square_name(from, sq);
			if (!same_file)
				out[n++] = sq[0];
			else if (!same_rank)
				out[n++] = sq[1];
			else {
				out[n++] = sq[0];
				out[n++] = sq[1];
			}
		}
		uint8_t at = b->mailbox[to];
		if (at != MAILBOX_EMPTY && piece_code_color(at) != color)
			out[n++] = 'x';
		square_name(to, sq);
		out[n++] = sq[0];
		out[n++] = sq[1];
	}
	if (!own_view) {
		struct board c = *b;
		board_make(&c, m);
		if (board_in_check(&c))
			out[n++] = movegen_count(&c) == 0 ? '#' : '+';
	}
	out[n] = '\0';
	memcpy(buf, out, n + 1);
}

bool notation_is_ep_word(const char *w)
{
	size_t n = strlen(w);
	while (n > 0 && strchr("+#!?", w[n - 1]))
		n--;
	return (n == 4 && strncmp(w, "e.p.", 4) == 0) || (n == 2 && strncmp(w, "ep", 2) == 0);
}

int notation_join_list(const char *const *items, size_t n, char *buf, size_t len)
{
	size_t off = 0;
	int words = 0;
	if (len == 0)
		return -1;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		/* "exd6", "e.p.": one attempt written as two words. */
		bool joined = words > 0 && notation_is_ep_word(items[i]);
		int w = snprintf(buf + off, len - off, "%s%s", joined || words == 0 ? "" : " ", items[i]);
		if (w < 0 || (size_t)w >= len - off)
			return -1;
		off += (size_t)w;
		if (!joined)
			words++;
	}
	return words;
}
