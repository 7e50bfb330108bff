/*
 * pgn_log.c — the game log both directions of PGN share (pgn_priv.h):
 * the action list replayed through referee_apply, its events cut into
 * half-moves, and a half-move rendered for one audience.
 */
#include "pgn_priv.h"

#include <stdlib.h>

const char *pgn_color_word(int c)
{
	return c == WHITE ? "white" : c == BLACK ? "black" : "-";
}

void pgn_header_init(struct pgn_header *h)
{
	memset(h, 0, sizeof *h);
	snprintf(h->event, sizeof h->event, "?");
	snprintf(h->site, sizeof h->site, "?");
	snprintf(h->date, sizeof h->date, "????.??.??");
	snprintf(h->round, sizeof h->round, "?");
	snprintf(h->white, sizeof h->white, "?");
	snprintf(h->black, sizeof h->black, "?");
	snprintf(h->result, sizeof h->result, "*");
	snprintf(h->rules, sizeof h->rules, "%s", RULESET_DEFAULT);
}

/* ------------------------------------------------------------------ */
/* building the log                                                    */

void pgn_glog_free(struct glog *g)
{
	evlist_free(&g->ev);
	free(g->hm);
	memset(g, 0, sizeof *g);
}

static struct hm *glog_push(struct glog *g)
{
	g->hm = xgrow(g->hm, &g->caphm, g->nhm + 1, sizeof *g->hm, 64);
	struct hm *h = &g->hm[g->nhm++];
	memset(h, 0, sizeof *h);
	return h;
}

/* The reason a refused action gives: the referee's, except for an action
 * the referee was never asked about (a bad draw or ending). */
static const char *refusal(const struct referee *r, const struct action *a, int st)
{
	bool moves = a->kind == ACTION_TRY || a->kind == ACTION_LIST || a->kind == ACTION_QUIET;
	return st == REF_E_BAD_ARGUMENT && !moves ? "bad action" : referee_error(r);
}

/* Cut the events [from, g->ev.n) of action j into half-moves. */
static void cut_moves(struct glog *g, size_t j, size_t from, struct board *shadow, size_t *act_first,
                      size_t *ev_first)
{
	bool first = true;
	for (size_t p = from; p < g->ev.n; p++) {
		const struct event *ev = &g->ev.v[p];
		if (ev->type != EV_MOVE)
			continue;
		size_t start = p;
		if (p > from && g->ev.v[p - 1].type == EV_ILLEGAL_COUNT && g->ev.v[p - 1].by == ev->by)
			start = p - 1;
		struct hm *h = glog_push(g);
		h->color = ev->by;
		snprintf(h->own, sizeof h->own, "%s", ev->san);
		for (size_t q = p + 1; q < g->ev.n; q++) {
			if (g->ev.v[q].type == EV_UMPIRE_MOVE && g->ev.v[q].by == ev->by) {
				h->move = g->ev.v[q].move;
				snprintf(h->san, sizeof h->san, "%s", g->ev.v[q].san);
				break;
			}
		}
		h->before = *shadow;
		if (h->move != MOVE_NONE)
			board_make(shadow, h->move);
		h->mv_start = start;
		h->ev_end = g->ev.n;
		if (first) {
			h->act_first = *act_first;
			h->act_n = j + 1 - *act_first;
			h->ev_first = *ev_first;
		} else {
			g->hm[g->nhm - 2].ev_end = start;
			h->automatic = true;
			h->act_first = j + 1;
			h->act_n = 0;
			h->ev_first = start;
		}
		first = false;
	}
	if (!first) {
		*act_first = j + 1;
		*ev_first = g->ev.n;
	}
}

int pgn_glog_build(struct glog *g, const struct ruleset *rs, const char *fen, const struct action *a,
                   size_t n, char *err, size_t errlen)
{
	char e[160] = "";
	memset(g, 0, sizeof *g);
	evlist_init(&g->ev);
	g->rs = rs;
	if (n > 0 && a[0].kind == ACTION_BEGIN) {
		a++;
		n--;
	}
	g->a = a;
	g->na = n;
	if (n > PGN_ACTIONS_MAX)
		return failf(err, errlen, "more than %d actions", PGN_ACTIONS_MAX);
	struct referee *r = referee_new(rs, fen, e, sizeof e);
	if (r == NULL)
		return failf(err, errlen, "%s", e);
	g->start = *referee_board(r);
	referee_begin(r, &g->ev);
	g->open_end = g->ev.n;

	struct board shadow = g->start;
	size_t act_first = 0, ev_first = g->ev.n;
	for (size_t j = 0; j < n; j++) {
		size_t from = g->ev.n;
		int st = referee_apply(r, &a[j], &g->ev);
		if (st != REF_OK) {
			char lab[64];
			action_label(&a[j], lab, sizeof lab);
			failf(err, errlen, "action %zu (%s, %s) refused: %s", j + 1, pgn_color_word(a[j].color),
			      lab, refusal(r, &a[j], st));
			referee_free(r);
			return -1;
		}
		cut_moves(g, j, from, &shadow, &act_first, &ev_first);
	}
	g->tr_act_first = act_first;
	g->tr_ev_first = ev_first;
	g->over = referee_over(r);
	g->result = referee_result(r);
	g->reason = referee_reason(r);
	referee_free(r);
	return 0;
}

const char *pgn_result_of(const struct glog *g)
{
	const char *s = g->over ? game_result_name(g->result) : NULL;
	return s ? s : "*";
}

/* ------------------------------------------------------------------ */
/* rendering one half-move for one audience                            */

void pgn_render_attempts(const struct glog *g, const struct hm *h, unsigned view, struct sbuf *out)
{
	bool any = false;
	for (size_t p = h->ev_first; p < h->mv_start; p++) {
		const struct event *e = &g->ev.v[p];
		if ((e->type != EV_ILLEGAL && e->type != EV_IMPOSSIBLE) || e->by != h->color ||
		    !(e->audience & view))
			continue;
		if (e->move == MOVE_NONE && (e->audience & AUD_UMPIRE))
			continue; /* gollon: "Any?" with no pawns answered "Impossible": not a try */
		if (any)
			sb_puts(out, ",");
		any = true;
		if (e->move == MOVE_NONE) {
			sb_puts(out, "??");
		} else if (e->san[0]) {
			sb_puts(out, e->san);
		} else {
			char uci[NOTATION_MAX];
			notation_uci(e->move, uci);
			sb_puts(out, uci);
		}
	}
	/* nost tells the opponent how many tries were refused, none of them
	 * (illegal_count, the half-move's start when there is one: cut_moves):
	 * as many tries told of without the move, `??` each, as every rule
	 * set that tells them writes them (a PGN probe: the list was empty
	 * beside "Black tried 2 illegal moves"). */
	const struct event *c = &g->ev.v[h->mv_start];
	if (!any && c->type == EV_ILLEGAL_COUNT && c->by == h->color && (c->audience & view))
		for (int k = 0; k < c->count; k++)
			sb_puts(out, k ? ",??" : "??");
}

static const char *check_code(int dir)
{
	switch (dir) {
	case CHECK_RANK: return "CR";
	case CHECK_FILE: return "CF";
	case CHECK_KNIGHT: return "CK";
	default: return "CD";
	}
}

/* UMD's opponentInformation. */
void pgn_render_info(const struct glog *g, const struct hm *h, unsigned view, struct sbuf *out)
{
	unsigned want = view == AUD_UMPIRE ? aud_of(!h->color) : view;
	bool any = false, took = false;
	for (size_t p = h->mv_start; p < h->ev_end; p++) {
		const struct event *e = &g->ev.v[p];
		if (e->by != h->color || !(e->audience & want))
			continue;
		if (e->type == EV_CAPTURE && !took && e->square >= 0 && e->square < 64) {
			char sq[3];
			square_name(e->square, sq);
			sb_printf(out, "%sT%s", any ? "," : "", sq);
			any = took = true;
		} else if (e->type == EV_CHECK) {
			for (int i = 0; i < 2 && e->checks[i] != CHECK_NONE; i++) {
				sb_printf(out, "%s%s", any ? "," : "", check_code(e->checks[i]));
				any = true;
			}
		}
	}
}

/* One announcement as written: the umpire's words, made safe for a comment. */
static void say(const struct ruleset *rs, const struct event *e, char *buf, size_t len)
{
	char w[PGN_SAY_MAX];
	ruleset_say(rs, e, w, sizeof w);
	if (e->type == EV_ANY)
		snprintf(buf, len, "%s: Any? %s", e->by == WHITE ? "White" : "Black", w);
	else
		snprintf(buf, len, "%s", w);
	for (char *p = buf; *p; p++) {
		if (*p == '"')
			*p = '\'';
		else if (*p == '{')
			*p = '(';
		else if (*p == '}')
			*p = ')';
		else if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = ' ';
	}
}

static bool announced(const struct event *e, unsigned view)
{
	return (e->audience & view) && e->type != EV_MOVE && e->type != EV_MOVED &&
	       e->type != EV_UMPIRE_MOVE;
}

void pgn_render_announcements(const struct glog *g, size_t lo, size_t hi, unsigned view,
                              struct sbuf *out)
{
	char buf[PGN_SAY_MAX + 16];
	for (size_t p = lo; p < hi; p++) {
		if (!announced(&g->ev.v[p], view))
			continue;
		say(g->rs, &g->ev.v[p], buf, sizeof buf);
		sb_puts(out, buf);
		sb_puts(out, "\n");
	}
}
