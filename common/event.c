/*
 * event.c — the event list and the stable wire names of event fields.
 *
 * The names are part of the wire protocol and of stored records, so they
 * live in const tables indexed by the enum value; a gap (NULL) is a
 * retired or never-used value.
 */
#include "event.h"
#include "xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void evlist_init(struct evlist *l)
{
	l->v = NULL;
	l->n = 0;
	l->cap = 0;
}

void evlist_push(struct evlist *l, const struct event *e)
{
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof *l->v, 16);
	l->v[l->n++] = *e;
}

void evlist_clear(struct evlist *l)
{
	l->n = 0;
}

bool event_equal(const struct event *a, const struct event *b)
{
	return a->type == b->type && a->audience == b->audience && a->by == b->by &&
	       a->square == b->square && a->move == b->move && a->what == b->what &&
	       a->en_passant == b->en_passant && a->checks[0] == b->checks[0] &&
	       a->checks[1] == b->checks[1] && a->count == b->count && a->answer == b->answer &&
	       a->result == b->result && a->reason == b->reason && a->ply == b->ply &&
	       strcmp(a->san, b->san) == 0 && a->squares == b->squares;
}

bool event_copies(const struct event *e, const struct event *next)
{
	return (e->audience & AUD_UMPIRE) && !(next->audience & AUD_UMPIRE) &&
	       !(e->audience & next->audience) && next->type == e->type && next->by == e->by &&
	       next->by >= 0;
}

unsigned event_heard(const struct evlist *l, size_t i)
{
	const struct event *e = &l->v[i], *next = i + 1 < l->n ? &l->v[i + 1] : NULL;
	return next && event_copies(e, next) ? e->audience | next->audience : e->audience;
}

bool event_told_whole(const struct event *e)
{
	return e->type == EV_CAPTURE;
}

unsigned event_told(const struct evlist *l, size_t i)
{
	const struct event *e = &l->v[i];
	if (!event_told_whole(e))
		return e->audience;
	if (i > 0 && event_copies(&l->v[i - 1], e))
		return l->v[i - 1].audience | e->audience;
	return event_heard(l, i);
}

void evlist_free(struct evlist *l)
{
	free(l->v);
	evlist_init(l);
}

static const char *const type_names[] = {
	[EV_NONE] = NULL,
	[EV_MOVE] = "move",
	[EV_MOVED] = "moved",
	[EV_ILLEGAL] = "illegal",
	[EV_IMPOSSIBLE] = "impossible",
	[EV_CAPTURE] = "capture",
	[EV_CHECK] = "check",
	[EV_PAWN_TRIES] = "pawn_tries",
	[EV_PAWN_CAPTURES] = "pawn_captures",
	[EV_ANY] = "any",
	[EV_ILLEGAL_COUNT] = "illegal_count",
	[EV_ALL_ILLEGAL] = "all_illegal",
	[EV_QUIET_ENDED] = "quiet_ended",
	[EV_GAME_OVER] = "game_over",
	[EV_UMPIRE_MOVE] = "umpire_move",
	[EV_PAWN_SQUARES] = "pawn_squares",
	[EV_PROMOTION] = "promotion",
	[EV_DROP] = "drop",
};

static const char *const check_names[] = {
	[CHECK_NONE] = NULL,
	[CHECK_RANK] = "rank",
	[CHECK_FILE] = "file",
	[CHECK_LONG_DIAGONAL] = "long_diagonal",
	[CHECK_SHORT_DIAGONAL] = "short_diagonal",
	[CHECK_KNIGHT] = "knight",
	[CHECK_A1H8_DIAGONAL] = "a1h8_diagonal",
	[CHECK_H1A8_DIAGONAL] = "h1a8_diagonal",
};

static const char *const reason_names[] = {
	[REASON_NONE] = NULL,
	[REASON_CHECKMATE] = "checkmate",
	[REASON_STALEMATE] = "stalemate",
	[REASON_REPETITION] = "repetition",
	[REASON_FIFTY_MOVES] = "fifty_moves",
	[REASON_INSUFFICIENT] = "insufficient_material",
	[REASON_RESIGNATION] = "resignation",
	[REASON_AGREEMENT] = "agreement",
	[REASON_TIME] = "time",
	[REASON_ABANDONED] = "abandoned",
	[REASON_ABORTED] = "aborted",
	[REASON_ADJUDICATION] = "adjudication",
};

static const char *const result_names[] = {
	[RESULT_NONE] = "*",
	[RESULT_WHITE] = "1-0",
	[RESULT_BLACK] = "0-1",
	[RESULT_DRAW] = "1/2-1/2",
};

static const char *const captured_names[] = {
	[CAPTURED_UNSAID] = NULL,
	[CAPTURED_PAWN] = "pawn",
	[CAPTURED_PIECE] = "piece",
	[CAPTURED_KNIGHT] = "knight",
	[CAPTURED_BISHOP] = "bishop",
	[CAPTURED_ROOK] = "rook",
	[CAPTURED_QUEEN] = "queen",
};

static const char *const any_names[] = {
	[ANY_NO] = "no",
	[ANY_YES] = "yes",
	[ANY_TRY] = "try",
};

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *name_at(const char *const *names, int n, int v)
{
	return v >= 0 && v < n ? names[v] : NULL;
}

static int name_find(const char *const *names, int n, const char *name)
{
	if (name == NULL)
		return -1;
	for (int i = 0; i < n; i++)
		if (names[i] != NULL && strcmp(names[i], name) == 0)
			return i;
	return -1;
}

const char *event_type_name(int type) { return name_at(type_names, NELEM(type_names), type); }
const char *check_dir_name(int dir) { return name_at(check_names, NELEM(check_names), dir); }
const char *game_reason_name(int reason) { return name_at(reason_names, NELEM(reason_names), reason); }
const char *game_result_name(int result) { return name_at(result_names, NELEM(result_names), result); }
const char *captured_kind_name(int what) { return name_at(captured_names, NELEM(captured_names), what); }
const char *any_answer_name(int answer) { return name_at(any_names, NELEM(any_names), answer); }

int event_type_parse(const char *name) { return name_find(type_names, NELEM(type_names), name); }
int check_dir_parse(const char *name) { return name_find(check_names, NELEM(check_names), name); }
int game_reason_parse(const char *name) { return name_find(reason_names, NELEM(reason_names), name); }
int game_result_parse(const char *name) { return name_find(result_names, NELEM(result_names), name); }
int captured_kind_parse(const char *name) { return name_find(captured_names, NELEM(captured_names), name); }
int any_answer_parse(const char *name) { return name_find(any_names, NELEM(any_names), name); }

const unsigned audience_bits[AUD_COUNT] = { AUD_WHITE, AUD_BLACK, AUD_UMPIRE, AUD_SPECTATOR };

const char *audience_name(unsigned bit)
{
	switch (bit) {
	case AUD_WHITE: return "white";
	case AUD_BLACK: return "black";
	case AUD_UMPIRE: return "umpire";
	case AUD_SPECTATOR: return "spectator";
	default: return NULL;
	}
}

int audience_parse(const char *name)
{
	if (name == NULL)
		return -1;
	for (int i = 0; i < AUD_COUNT; i++)
		if (strcmp(audience_name(audience_bits[i]), name) == 0)
			return (int)audience_bits[i];
	return -1;
}
