/*
 * view.c — a player's own board and turn state, derived only from the
 * events addressed to that player.
 *
 * Own moves are applied square by square here rather than with
 * board_make(): the view board holds no enemy pieces, so an en-passant
 * victim or a captured piece is simply absent, and losses are learnt
 * from the opponent's capture announcements instead.
 */
#include "view.h"

#include <string.h>

void view_init(struct view *v, const struct board *start, int color)
{
	memset(v, 0, sizeof *v);
	v->color = color;
	board_own_view(start, color, &v->own);
	v->to_move = start->side;
	v->own.side = (uint8_t)start->side;
	v->pawn_ok = ~0ULL;
}

void view_set_ruleset(struct view *v, const struct ruleset *rs)
{
	v->rs = rs;
	/* crazykrieg: the reserves are public and move with what is said. */
	if (rs != NULL && rs->drops)
		v->own.crazy = 1;
}

/* Does this view keep reserves (crazykrieg)? */
static bool drops(const struct view *v)
{
	return v->rs != NULL && v->rs->drops;
}

static void apply_own_move(struct view *v, move_t m)
{
	struct board *b = &v->own;
	int from = move_from(m), to = move_to(m);
	if (move_is_drop(m)) {
		board_hand_take(b, v->color, move_drop_piece(m));
		board_put(b, v->color, move_drop_piece(m), to);
		b->key = board_compute_key(b);
		return;
	}
	uint8_t code = b->mailbox[from];
	if (code == MAILBOX_EMPTY)
		return; /* cannot happen with events from the referee */
	int type = piece_code_type(code);
	if (b->mailbox[to] != MAILBOX_EMPTY)
		board_remove(b, to); /* never an own piece in a legal move; defensive */
	board_remove(b, from);
	switch (move_kind(m)) {
	case MOVE_PROMOTION:
		board_put(b, v->color, move_promo(m), to);
		break;
	case MOVE_CASTLING: {
		int rank = from & 56;
		int rfrom = to > from ? rank + 7 : rank;
		int rto = to > from ? to - 1 : to + 1;
		board_put(b, v->color, KING, to);
		if (b->mailbox[rfrom] != MAILBOX_EMPTY) {
			board_remove(b, rfrom);
			board_put(b, v->color, ROOK, rto);
		}
		break;
	}
	default: /* normal and en passant: the victim is not on this board */
		board_put(b, v->color, type, to);
		break;
	}
	b->castling &= (uint8_t)board_castle_keep(from);
	b->key = board_compute_key(b);
}

static void new_turn(struct view *v, int to_move)
{
	v->to_move = to_move;
	v->own.side = (uint8_t)to_move;
	v->refused.n = 0;
	v->must_try_capture = false;
	v->pawn_ok = ~0ULL;
}

static bool is_pawn_capture(const struct board *own, move_t m)
{
	return piece_code_type(own->mailbox[move_from(m)]) == PAWN && (move_from(m) & 7) != (move_to(m) & 7);
}

void view_apply(struct view *v, const struct event *e)
{
	int me = v->color;
	if (!(e->audience & aud_of(me)))
		return;
	switch (e->type) {
	case EV_MOVE:
		if (e->by == me && e->move != MOVE_NONE) {
			apply_own_move(v, e->move);
			new_turn(v, !me);
		}
		break;
	case EV_MOVED:
		if (e->by == !me)
			new_turn(v, me);
		break;
	case EV_ILLEGAL:
		if (e->by == me && e->move != MOVE_NONE) {
			if (is_pawn_capture(&v->own, e->move) &&
			    !(v->rs != NULL && v->rs->any_obliges == ANY_UNTIL_PLAYED))
				v->must_try_capture = false;
			if (v->refused.n < MOVES_MAX)
				v->refused.m[v->refused.n++] = e->move;
		}
		break;
	case EV_CAPTURE:
		/* crazykrieg: the exact man goes to the captor's reserve. */
		if (drops(v) && (e->by == WHITE || e->by == BLACK) && captured_type(e->what) != PIECE_NONE)
			board_hand_add(&v->own, e->by, captured_type(e->what));
		if (e->by == !me && e->square >= 0 && e->square < 64) {
			int sq = e->square;
			/* gollon names the landing square of an en-passant capture;
			 * our pawn stood one rank nearer the capturer's side. */
			if (e->en_passant)
				sq = me == WHITE ? sq + 8 : sq - 8;
			if (sq >= 0 && sq < 64 && v->own.mailbox[sq] != MAILBOX_EMPTY &&
			    piece_code_color(v->own.mailbox[sq]) == me) {
				board_remove(&v->own, sq);
				v->own.castling &= (uint8_t)board_castle_keep(sq); /* a rook taken in its corner */
				v->own.key = board_compute_key(&v->own);
			}
		}
		break;
	case EV_DROP:
		/* Our own drop left the reserve with our move (EV_MOVE). */
		if (drops(v) && e->by == !me && captured_type(e->what) != PIECE_NONE)
			board_hand_take(&v->own, !me, captured_type(e->what));
		break;
	/* The turn's pawn information is about legal pawn captures
	 * (movegen_pawn_captures): a "no" or a zero leaves none that can
	 * succeed, in every rule set that says it, whether or not it binds. */
	case EV_ANY:
		if (e->by == me && (e->answer == ANY_YES || e->answer == ANY_TRY))
			v->must_try_capture = true;
		if (e->by == me && e->answer == ANY_NO)
			v->pawn_ok = 0;
		break;
	case EV_PAWN_TRIES:
		if (e->by == me && e->count == 0)
			v->pawn_ok = 0;
		break;
	case EV_PAWN_CAPTURES:
		if (e->by == me && !e->answer)
			v->pawn_ok = 0;
		break;
	case EV_PAWN_SQUARES:
		if (e->by == me)
			v->pawn_ok = e->squares;
		break;
	case EV_GAME_OVER:
		v->over = true;
		break;
	default:
		break;
	}
}

void view_possible(const struct view *v, struct movelist *out)
{
	struct movelist all;
	out->n = 0;
	if (v->over || v->to_move != v->color)
		return;
	movegen_possible(&v->own, v->color, &all);
	for (int i = 0; i < all.n; i++) {
		move_t m = all.m[i];
		/* A refused try closes its origin and destination, whatever the
		 * promotion piece (as referee_possible: referee.c same_try). */
		bool refused = false;
		for (int j = 0; j < v->refused.n; j++)
			if (move_from(v->refused.m[j]) == move_from(m) && move_to(v->refused.m[j]) == move_to(m))
				refused = true;
		if (refused)
			continue;
		if (v->must_try_capture && !is_pawn_capture(&v->own, m))
			continue;
		/* Ruled out by the turn's pawn information: impossible where
		 * it binds, certainly refused as illegal where it does not. */
		if (is_pawn_capture(&v->own, m) && !(v->pawn_ok >> move_from(m) & 1))
			continue;
		out->m[out->n++] = m;
	}
}
