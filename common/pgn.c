/*
 * pgn.c — Kriegspiel PGN (proto/PGN.md).
 *
 * Both directions go through one "game log": the action list replayed
 * through a fresh referee, its events cut into half-moves.  The writer
 * renders the log; the reader recovers the actions from the text, builds
 * the log again from them and compares it with what the text recorded, so
 * the two can never disagree about what a half-move holds.
 *
 * How the events are cut: the events of the actions up to and including
 * the one that plays a move belong to that move's half-move, up to the end
 * of that action (or up to the next move, when a nost "if quiet" sequence
 * plays further moves inside the same action: those half-moves have no
 * action of their own).  Events of actions after the last move form the
 * trailing group; referee_begin's events the opening one.
 */
#include "pgn.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "notation.h"
#include "ruleset.h"

#define PGN_LINE 79          /* export lines are wrapped before this column */
#define PGN_SAN_TOKEN_MAX 24 /* longest move token read */
#define PGN_SAY_MAX 160      /* one announcement's text */

/* ------------------------------------------------------------------ */
/* a growable string                                                   */

struct sbuf {
	char *p;
	size_t n, cap;
};

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *q = realloc(b->p, cap);
		if (q == NULL)
			abort(); /* out of memory: common/ does no I/O */
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb_putn(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* Empty but valid: p is always a string after this. */
static void sb_init(struct sbuf *b)
{
	memset(b, 0, sizeof *b);
	sb_putn(b, "", 0);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (p == NULL)
		abort(); /* out of memory: common/ does no I/O */
	return p;
}

static void *xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);
	if (q == NULL)
		abort(); /* out of memory: common/ does no I/O */
	return q;
}

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static const char *color_word(int c)
{
	return c == WHITE ? "white" : c == BLACK ? "black" : "-";
}

/* ------------------------------------------------------------------ */
/* actions                                                             */

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

int pgn_apply(struct referee *r, const struct pgn_action *a, struct evlist *out)
{
	if (strnlen(a->text, PGN_TEXT_MAX) == PGN_TEXT_MAX)
		return REF_E_BAD_ARGUMENT;
	if (strcmp(a->kind, "try") == 0)
		return referee_attempt(r, a->color, a->text, out);
	if (strcmp(a->kind, "list") == 0 || strcmp(a->kind, "quiet") == 0) {
		/* Split as the server does (server/game.c split_list). */
		char buf[PGN_TEXT_MAX];
		const char *items[REFEREE_LIST_MAX];
		size_t n = 0;
		snprintf(buf, sizeof buf, "%s", a->text);
		for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok && n < REFEREE_LIST_MAX;
		     tok = strtok_r(NULL, " ", &save))
			items[n++] = tok;
		return a->kind[0] == 'l' ? referee_attempt_list(r, a->color, items, n, out)
		                         : referee_quiet(r, a->color, items, n, out);
	}
	if (strcmp(a->kind, "any") == 0)
		return referee_any(r, a->color, out);
	if (strcmp(a->kind, "end") == 0) {
		int reason = game_reason_parse(a->text);
		if (reason <= REASON_NONE)
			return REF_E_BAD_ARGUMENT;
		return referee_end(r, (enum game_reason)reason, a->color, out);
	}
	if (strcmp(a->kind, "begin") == 0)
		return referee_begin(r, out);
	/* A draw offer or its decline: a game-level notice the referee does
	 * not announce; it only needs a game in progress. */
	if (strcmp(a->kind, "draw") == 0) {
		if (strcmp(a->text, "offer") != 0 && strcmp(a->text, "decline") != 0)
			return REF_E_BAD_ARGUMENT;
		if (a->color != WHITE && a->color != BLACK)
			return REF_E_BAD_ARGUMENT;
		return referee_over(r) ? REF_E_GAME_OVER : REF_OK;
	}
	return REF_E_BAD_ARGUMENT;
}

/* ------------------------------------------------------------------ */
/* the game log                                                        */

struct hm {
	int color;
	move_t move;
	char san[NOTATION_MAX];      /* full SAN on the true board, with + or # */
	char own[NOTATION_MAX];      /* the mover's own-view SAN (what the mover was told) */
	struct board before;         /* the true board before the move */
	size_t act_first, act_n;     /* the actions of this half-move */
	size_t ev_first, mv_start, ev_end; /* its events; the move's own from mv_start */
	bool automatic;              /* played by an "if quiet" sequence inside another action */
};

struct glog {
	const struct ruleset *rs;
	struct board start;
	const struct pgn_action *a;
	size_t na;
	struct evlist ev;
	size_t open_end;
	struct hm *hm;
	size_t nhm, caphm;
	size_t tr_act_first, tr_ev_first;
	bool over;
	int result, reason;
};

static void glog_free(struct glog *g)
{
	evlist_free(&g->ev);
	free(g->hm);
	memset(g, 0, sizeof *g);
}

static struct hm *glog_push(struct glog *g)
{
	if (g->nhm == g->caphm) {
		g->caphm = g->caphm ? g->caphm * 2 : 64;
		g->hm = xrealloc(g->hm, g->caphm * sizeof *g->hm);
	}
	struct hm *h = &g->hm[g->nhm++];
	memset(h, 0, sizeof *h);
	return h;
}

static void action_label(const struct pgn_action *a, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%.40s", a->kind, a->text[0] ? " " : "", a->text);
}

static int glog_build(struct glog *g, const struct ruleset *rs, const char *fen,
                      const struct pgn_action *a, size_t n, char *err, size_t errlen)
{
	char e[160] = "";
	memset(g, 0, sizeof *g);
	evlist_init(&g->ev);
	g->rs = rs;
	if (n > 0 && strcmp(a[0].kind, "begin") == 0) {
		a++;
		n--;
	}
	g->a = a;
	g->na = n;
	if (n > PGN_ACTIONS_MAX)
		return fail(err, errlen, "more than %d actions", PGN_ACTIONS_MAX);
	struct referee *r = referee_new(rs, fen, e, sizeof e);
	if (r == NULL)
		return fail(err, errlen, "%s", e);
	g->start = *referee_board(r);
	referee_begin(r, &g->ev);
	g->open_end = g->ev.n;

	struct board shadow = g->start;
	size_t act_first = 0, ev_first = g->ev.n;
	for (size_t j = 0; j < n; j++) {
		size_t from = g->ev.n;
		int st = pgn_apply(r, &a[j], &g->ev);
		if (st != REF_OK) {
			char lab[64];
			action_label(&a[j], lab, sizeof lab);
			fail(err, errlen, "action %zu (%s, %s) refused: %s", j + 1, color_word(a[j].color), lab,
			     st == REF_E_BAD_ARGUMENT && strcmp(a[j].kind, "try") != 0 &&
			             strcmp(a[j].kind, "list") != 0 && strcmp(a[j].kind, "quiet") != 0
			         ? "bad action"
			         : referee_error(r));
			referee_free(r);
			return -1;
		}
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
			h->before = shadow;
			if (h->move != MOVE_NONE)
				board_make(&shadow, h->move);
			h->mv_start = start;
			h->ev_end = g->ev.n;
			if (first) {
				h->act_first = act_first;
				h->act_n = j + 1 - act_first;
				h->ev_first = ev_first;
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
			act_first = j + 1;
			ev_first = g->ev.n;
		}
	}
	g->tr_act_first = act_first;
	g->tr_ev_first = ev_first;
	g->over = referee_over(r);
	g->result = referee_result(r);
	g->reason = referee_reason(r);
	referee_free(r);
	return 0;
}

/* ------------------------------------------------------------------ */
/* rendering one half-move for one audience                            */

/* The refused tries of the mover before the move, as `view` heard them. */
static void render_attempts(const struct glog *g, const struct hm *h, unsigned view, struct sbuf *out)
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

/* UMD's opponentInformation: what the mover's opponent heard of the move
 * (the full record), or what `view` heard (a filtered record). */
static void render_info(const struct glog *g, const struct hm *h, unsigned view, struct sbuf *out)
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

/* The announcements of events [lo, hi) for view, each followed by '\n'. */
static void render_announcements(const struct glog *g, size_t lo, size_t hi, unsigned view,
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

/* [%krieg ACTION; ACTION] for actions [first, first + n). */
static void render_krieg(const struct glog *g, size_t first, size_t n, struct sbuf *out)
{
	sb_puts(out, "[%krieg");
	for (size_t i = 0; i < n; i++) {
		const struct pgn_action *a = &g->a[first + i];
		sb_puts(out, i ? "; " : " ");
		sb_puts(out, a->kind);
		if (a->text[0] && strcmp(a->kind, "any") != 0) {
			/* Runs of spaces and spaces at the ends carry no meaning (notation.h). */
			const char *t = a->text;
			while (*t == ' ')
				t++;
			sb_puts(out, " ");
			for (; *t; t++)
				if (*t != ' ' || (t[1] && t[1] != ' '))
					sb_putn(out, t, 1);
		}
		if ((strcmp(a->kind, "end") == 0 || strcmp(a->kind, "draw") == 0) &&
		    (a->color == WHITE || a->color == BLACK))
			sb_printf(out, " %s", color_word(a->color));
	}
	sb_puts(out, "]");
}

/* Can the half-move's actions be read back from its (K:...) block alone?
 * Only if they are: each refused try, in the form the block writes it,
 * then the move in the mover's own-view SAN. */
static bool is_default(const struct glog *g, const struct hm *h)
{
	if (h->automatic || h->act_n == 0)
		return false;
	struct sbuf att;
	sb_init(&att);
	render_attempts(g, h, AUD_UMPIRE, &att);
	bool ok = true;
	size_t k = 0;
	const char *p = att.p;
	while (ok && *p) {
		size_t len = strcspn(p, ",");
		const struct pgn_action *a = &g->a[h->act_first + k];
		ok = k + 1 < h->act_n && strcmp(a->kind, "try") == 0 && strlen(a->text) == len &&
		     memcmp(a->text, p, len) == 0;
		k++;
		p += len;
		if (*p == ',')
			p++;
	}
	free(att.p);
	if (!ok || k + 1 != h->act_n)
		return false;
	const struct pgn_action *last = &g->a[h->act_first + k];
	return strcmp(last->kind, "try") == 0 && strcmp(last->text, h->own) == 0;
}

/* ------------------------------------------------------------------ */
/* writing                                                             */

struct wrap {
	struct sbuf *b;
	size_t col;
};

/* An unbreakable piece of movetext; lines are broken between atoms only. */
static void wr_atom(struct wrap *w, const char *s, size_t n)
{
	if (w->col > 0) {
		if (w->col + 1 + n > PGN_LINE) {
			sb_puts(w->b, "\n");
			w->col = 0;
		} else {
			sb_puts(w->b, " ");
			w->col++;
		}
	}
	sb_putn(w->b, s, n);
	w->col += n;
}

/* A comment: {el1 el2 ...}; each element one atom, the braces glued on. */
struct comment {
	struct sbuf el[64];
	size_t n;
};

static void cm_add(struct comment *c, const char *s, size_t n)
{
	if (c->n == sizeof c->el / sizeof c->el[0]) {
		/* Too many announcements for separate atoms: glue onto the last. */
		sb_puts(&c->el[c->n - 1], " ");
		sb_putn(&c->el[c->n - 1], s, n);
		return;
	}
	sb_init(&c->el[c->n]);
	sb_putn(&c->el[c->n], s, n);
	c->n++;
}

/* Each line of a '\n'-separated announcement list as a quoted element. */
static void cm_add_quoted(struct comment *c, const char *list)
{
	while (*list) {
		size_t len = strcspn(list, "\n");
		char q[PGN_SAY_MAX + 24];
		snprintf(q, sizeof q, "\"%.*s\"", (int)(len < PGN_SAY_MAX + 16 ? len : PGN_SAY_MAX + 16), list);
		cm_add(c, q, strlen(q));
		list += len;
		if (*list)
			list++;
	}
}

static void cm_flush(struct comment *c, struct wrap *w)
{
	for (size_t i = 0; i < c->n; i++) {
		struct sbuf t;
		sb_init(&t);
		if (i == 0)
			sb_puts(&t, "{");
		sb_putn(&t, c->el[i].p, c->el[i].n);
		if (i + 1 == c->n)
			sb_puts(&t, "}");
		wr_atom(w, t.p, t.n);
		free(t.p);
		free(c->el[i].p);
	}
	c->n = 0;
}

static void tag(struct sbuf *b, const char *name, const char *value, const char *dflt)
{
	if (value == NULL || value[0] == '\0')
		value = dflt;
	sb_printf(b, "[%s \"", name);
	for (const char *p = value; *p; p++) {
		if (*p == '"' || *p == '\\') {
			char esc[2] = { '\\', *p };
			sb_putn(b, esc, 2);
		} else if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f) {
			sb_puts(b, " ");
		} else {
			sb_putn(b, p, 1);
		}
	}
	sb_puts(b, "\"]\n");
}

static const char *termination_of(const struct glog *g)
{
	if (!g->over)
		return "unterminated";
	switch (g->reason) {
	case REASON_TIME: return "time forfeit";
	case REASON_ABANDONED: return "abandoned";
	case REASON_ABORTED: return "unterminated";
	default: return "normal";
	}
}

static const char *result_of(const struct glog *g)
{
	const char *s = g->over ? game_result_name(g->result) : NULL;
	return s ? s : "*";
}

/* Text the reader gives back as written: printable, none of the
 * characters that end a comment, a command or an action. */
static bool writable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e || strchr(";]{}\"", *s))
			return false;
	return true;
}

int pgn_write(const struct pgn_header *h, const struct pgn_action *a, size_t n, unsigned view,
              char **out, char *err, size_t errlen)
{
	*out = NULL;
	if (view != AUD_UMPIRE && view != AUD_WHITE && view != AUD_BLACK && view != AUD_SPECTATOR)
		return fail(err, errlen, "bad view");
	const char *rules = h->rules[0] ? h->rules : RULESET_DEFAULT;
	const struct ruleset *rs = ruleset_find(rules);
	if (rs == NULL)
		return fail(err, errlen, "unknown rule set \"%.40s\"", rules);
	for (size_t i = 0; i < n; i++) {
		if (strnlen(a[i].text, PGN_TEXT_MAX) == PGN_TEXT_MAX || !writable(a[i].text) ||
		    strnlen(a[i].kind, sizeof a[i].kind) == sizeof a[i].kind)
			return fail(err, errlen, "action %zu: text cannot be written", i + 1);
	}

	struct glog g;
	if (glog_build(&g, rs, h->fen[0] ? h->fen : NULL, a, n, err, errlen) != 0) {
		glog_free(&g);
		return -1;
	}

	struct sbuf b;
	sb_init(&b);
	tag(&b, "Event", h->event, "?");
	tag(&b, "Site", h->site, "?");
	tag(&b, "Date", h->date, "????.??.??");
	tag(&b, "Round", h->round, "?");
	tag(&b, "White", h->white, "?");
	tag(&b, "Black", h->black, "?");
	tag(&b, "Result", result_of(&g), "*");
	tag(&b, "Variant", "Kriegspiel", "");
	tag(&b, "KriegRules", rs->name, "");
	if (view != AUD_UMPIRE)
		tag(&b, "KriegView", audience_name(view), "");
	char fen[FEN_MAX];
	fen_format(&g.start, fen, sizeof fen);
	if (strcmp(fen, FEN_START) != 0) {
		tag(&b, "SetUp", "1", "");
		tag(&b, "FEN", fen, "");
	}
	tag(&b, "Termination", termination_of(&g), "");
	sb_puts(&b, "\n");

	struct wrap w = { &b, 0 };
	struct comment *c = xcalloc(1, sizeof *c);
	struct sbuf t;
	sb_init(&t);

	render_announcements(&g, 0, g.open_end, view, &t);
	cm_add_quoted(c, t.p);
	cm_flush(c, &w);

	for (size_t i = 0; i < g.nhm; i++) {
		const struct hm *hm = &g.hm[i];
		/* The move number and the move stay on one line. */
		char num[32];
		const char *san = view == AUD_UMPIRE ? hm->san : view == aud_of(hm->color) ? hm->own : "??";
		if (hm->color == WHITE)
			snprintf(num, sizeof num, "%d. %s", hm->before.fullmove, san);
		else if (i == 0)
			snprintf(num, sizeof num, "%d... %s", hm->before.fullmove, san);
		else
			snprintf(num, sizeof num, "%s", san);
		wr_atom(&w, num, strlen(num));

		t.n = 0;
		sb_puts(&t, "(K:");
		render_attempts(&g, hm, view, &t);
		sb_puts(&t, ":");
		render_info(&g, hm, view, &t);
		sb_puts(&t, ")");
		cm_add(c, t.p, t.n);
		if (view == AUD_UMPIRE && !is_default(&g, hm)) {
			t.n = 0;
			render_krieg(&g, hm->act_first, hm->act_n, &t);
			cm_add(c, t.p, t.n);
		}
		t.n = 0;
		t.p[0] = '\0';
		render_announcements(&g, hm->ev_first, hm->ev_end, view, &t);
		cm_add_quoted(c, t.p);
		cm_flush(c, &w);
	}

	if (g.tr_act_first < g.na) {
		if (view == AUD_UMPIRE) {
			t.n = 0;
			render_krieg(&g, g.tr_act_first, g.na - g.tr_act_first, &t);
			cm_add(c, t.p, t.n);
		}
		t.n = 0;
		t.p[0] = '\0';
		render_announcements(&g, g.tr_ev_first, g.ev.n, view, &t);
		cm_add_quoted(c, t.p);
		cm_flush(c, &w);
	}
	const char *res = result_of(&g);
	wr_atom(&w, res, strlen(res));
	sb_puts(&b, "\n");

	free(t.p);
	free(c);
	glog_free(&g);
	*out = b.p;
	return 0;
}

/* ------------------------------------------------------------------ */
/* reading SAN on the true board, leniently                            */

/* A SAN move of the side to move on the true board b, read by the one
 * move grammar (notation_lex) and resolved leniently against the legal
 * moves (notation_resolve_legal).  MOVE_NONE with *why set otherwise. */
static move_t san_resolve(const struct board *b, const char *tok, const char **why)
{
	struct notation_parts p;
	move_t m = MOVE_NONE;
	enum notation_status st = notation_lex(tok, &p, NULL, 0);
	if (st == NOTATION_OK)
		st = notation_resolve_legal(b, &p, &m);
	switch (st) {
	case NOTATION_OK: *why = ""; return m;
	case NOTATION_NO_PIECE: *why = "illegal move"; break;
	case NOTATION_AMBIGUOUS: *why = "ambiguous move"; break;
	default: *why = "not a move"; break;
	}
	return MOVE_NONE;
}

/* ------------------------------------------------------------------ */
/* reading the text                                                    */

/* What the text recorded for one group: the opening, a half-move, the trailing one. */
struct pgroup {
	char san[PGN_SAN_TOKEN_MAX + 1];
	int line;
	int comments;       /* comments read after the move */
	bool has_k;
	struct sbuf k_att, k_info;
	bool has_krieg;
	struct sbuf krieg;
	bool has_ann;
	struct sbuf ann;    /* '\n'-terminated announcements */
};

static void pgroup_init(struct pgroup *g)
{
	memset(g, 0, sizeof *g);
	sb_init(&g->k_att);
	sb_init(&g->k_info);
	sb_init(&g->krieg);
	sb_init(&g->ann);
}

static void pgroup_free(struct pgroup *g)
{
	free(g->k_att.p);
	free(g->k_info.p);
	free(g->krieg.p);
	free(g->ann.p);
}

/* s[0..n) without spaces at either end. */
static void put_trimmed(struct sbuf *b, const char *s, size_t n)
{
	while (n > 0 && *s == ' ') {
		s++;
		n--;
	}
	while (n > 0 && s[n - 1] == ' ')
		n--;
	sb_putn(b, s, n);
}

struct comment_parts {
	bool has_k, has_krieg;
	struct sbuf k_att, k_info, krieg, ann;
	size_t nann;
};

/* Split one comment body (whitespace already made spaces) into its parts. */
static int parse_comment(const char *s, struct comment_parts *cp, int line, char *err, size_t errlen)
{
	const char *p = s;
	while (*p == ' ')
		p++;
	if (strncmp(p, "(K:", 3) == 0) {
		const char *end = strchr(p, ')');
		const char *c1 = p + 3, *c2 = end ? memchr(c1, ':', (size_t)(end - c1)) : NULL;
		if (end == NULL || c2 == NULL)
			return fail(err, errlen, "line %d: bad (K:...) block", line);
		cp->has_k = true;
		/* Items trimmed one by one: "d4, Nf3" reads as "d4,Nf3". */
		for (const char *q = c1; q < c2;) {
			const char *comma = memchr(q, ',', (size_t)(c2 - q));
			const char *stop = comma ? comma : c2;
			put_trimmed(&cp->k_att, q, (size_t)(stop - q));
			if (comma)
				sb_puts(&cp->k_att, ",");
			q = comma ? comma + 1 : c2;
		}
		for (const char *q = c2 + 1; q < end;) {
			const char *comma = memchr(q, ',', (size_t)(end - q));
			const char *stop = comma ? comma : end;
			put_trimmed(&cp->k_info, q, (size_t)(stop - q));
			if (comma)
				sb_puts(&cp->k_info, ",");
			q = comma ? comma + 1 : end;
		}
		p = end + 1;
	}
	for (;;) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		if (strncmp(p, "[%krieg", 7) == 0 && (p[7] == ' ' || p[7] == ']')) {
			const char *end = strchr(p, ']');
			if (end == NULL)
				return fail(err, errlen, "line %d: unterminated [%%krieg] command", line);
			if (cp->has_krieg)
				return fail(err, errlen, "line %d: two [%%krieg] commands in one comment", line);
			cp->has_krieg = true;
			put_trimmed(&cp->krieg, p + 7, (size_t)(end - p - 7));
			p = end + 1;
		} else if (*p == '"') {
			const char *end = strchr(p + 1, '"');
			if (end == NULL)
				return fail(err, errlen, "line %d: unterminated quoted announcement", line);
			sb_putn(&cp->ann, p + 1, (size_t)(end - p - 1));
			sb_puts(&cp->ann, "\n");
			cp->nann++;
			p = end + 1;
		} else {
			p += strcspn(p, " "); /* free text: ignored */
		}
	}
	return 0;
}

static int parse_tag_value(const char **pp, char *val, size_t cap, size_t *len, int line, char *err,
                           size_t errlen)
{
	const char *p = *pp;
	size_t n = 0;
	bool over = false;
	if (*p != '"')
		return fail(err, errlen, "line %d: tag value must be quoted", line);
	for (p++; *p != '"'; p++) {
		if (*p == '\0' || *p == '\n')
			return fail(err, errlen, "line %d: unterminated tag value", line);
		if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
			p++;
		if (n + 1 < cap)
			val[n++] = *p;
		else
			over = true;
	}
	val[n] = '\0';
	*len = over ? cap : n;
	*pp = p + 1;
	return 0;
}

/* The fields a tag fills, or NULL for a tag that is only checked or ignored. */
static char *tag_field(struct pgn_header *h, const char *name, size_t *cap)
{
	static const struct {
		const char *name;
		size_t off, cap;
	} fields[] = {
		{ "Event", offsetof(struct pgn_header, event), PGN_TAG_MAX },
		{ "Site", offsetof(struct pgn_header, site), PGN_TAG_MAX },
		{ "Date", offsetof(struct pgn_header, date), PGN_TAG_MAX },
		{ "Round", offsetof(struct pgn_header, round), PGN_TAG_MAX },
		{ "White", offsetof(struct pgn_header, white), PGN_TAG_MAX },
		{ "Black", offsetof(struct pgn_header, black), PGN_TAG_MAX },
		{ "Termination", offsetof(struct pgn_header, termination), PGN_TAG_MAX },
	};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		if (strcmp(fields[i].name, name) == 0) {
			*cap = fields[i].cap;
			return (char *)h + fields[i].off;
		}
	}
	return NULL;
}

struct ptext {
	struct pgroup open, trail;
	struct pgroup *hm;
	size_t nhm, caphm;
	bool has_trail;
	char result_token[8];
	bool setup;
};

static void ptext_free(struct ptext *t)
{
	pgroup_free(&t->open);
	pgroup_free(&t->trail);
	for (size_t i = 0; i < t->nhm; i++)
		pgroup_free(&t->hm[i]);
	free(t->hm);
}

static void merge_parts(struct pgroup *g, struct comment_parts *cp)
{
	if (cp->has_k && !g->has_k) {
		g->has_k = true;
		sb_putn(&g->k_att, cp->k_att.p, cp->k_att.n);
		sb_putn(&g->k_info, cp->k_info.p, cp->k_info.n);
	}
	if (cp->has_krieg && !g->has_krieg) {
		g->has_krieg = true;
		sb_putn(&g->krieg, cp->krieg.p, cp->krieg.n);
	}
	if (cp->nann) {
		g->has_ann = true;
		sb_putn(&g->ann, cp->ann.p, cp->ann.n);
	}
}

static int parse_tags(const char **pp, int *line, struct pgn_header *h, struct ptext *t, char *err,
                      size_t errlen)
{
	const char *p = *pp;
	char val[FEN_INPUT_MAX + 2];
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
			if (*p == '\n')
				(*line)++;
			p++;
		}
		if (*p == '%') { /* PGN escape line */
			p += strcspn(p, "\n");
			continue;
		}
		if (*p != '[')
			break;
		p++;
		while (*p == ' ')
			p++;
		char name[32];
		size_t nn = 0;
		while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		       *p == '_') {
			if (nn + 1 >= sizeof name)
				return fail(err, errlen, "line %d: tag name too long", *line);
			name[nn++] = *p++;
		}
		name[nn] = '\0';
		if (nn == 0)
			return fail(err, errlen, "line %d: bad tag pair", *line);
		while (*p == ' ')
			p++;
		size_t len = 0;
		if (parse_tag_value(&p, val, sizeof val, &len, *line, err, errlen) != 0)
			return -1;
		while (*p == ' ')
			p++;
		if (*p != ']')
			return fail(err, errlen, "line %d: tag pair without ']'", *line);
		p++;

		size_t cap;
		char *field = tag_field(h, name, &cap);
		if (field) {
			if (len >= cap)
				return fail(err, errlen, "line %d: tag %s too long", *line, name);
			memcpy(field, val, len + 1);
		} else if (strcmp(name, "Result") == 0) {
			if (game_result_parse(val) < 0)
				return fail(err, errlen, "line %d: unknown Result \"%.20s\"", *line, val);
			snprintf(h->result, sizeof h->result, "%.7s", val);
		} else if (strcmp(name, "Variant") == 0) {
			if (strcasecmp(val, "Kriegspiel") != 0)
				return fail(err, errlen, "line %d: Variant \"%.40s\" is not Kriegspiel", *line, val);
		} else if (strcmp(name, "KriegRules") == 0) {
			if (len >= PGN_TAG_MAX || ruleset_find(val) == NULL)
				return fail(err, errlen, "line %d: unknown KriegRules \"%.40s\"", *line, val);
			snprintf(h->rules, sizeof h->rules, "%.*s", PGN_TAG_MAX - 1, val);
		} else if (strcmp(name, "KriegView") == 0) {
			if (strcmp(val, "white") == 0 || strcmp(val, "black") == 0 ||
			    strcmp(val, "spectator") == 0)
				return fail(err, errlen,
				            "a filtered PGN (KriegView \"%s\") holds only what one side heard and "
				            "cannot be replayed; export the umpire's record",
				            val);
			if (strcmp(val, "umpire") != 0)
				return fail(err, errlen, "line %d: unknown KriegView \"%.40s\"", *line, val);
		} else if (strcmp(name, "SetUp") == 0) {
			if (strcmp(val, "0") != 0 && strcmp(val, "1") != 0)
				return fail(err, errlen, "line %d: SetUp must be \"0\" or \"1\"", *line);
			t->setup = val[0] == '1';
		} else if (strcmp(name, "FEN") == 0) {
			struct board b;
			char e[128];
			if (len > FEN_INPUT_MAX || fen_parse(val, &b, e, sizeof e) != 0)
				return fail(err, errlen, "line %d: bad FEN: %s", *line,
				            len > FEN_INPUT_MAX ? "too long" : e);
			memcpy(h->fen, val, len + 1); /* len <= FEN_INPUT_MAX */
		}
		/* Any other tag (PlyCount, TimeControl, ...) is ignored. */
	}
	*pp = p;
	return 0;
}

static bool san_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("+#=!?-.", c) != NULL;
}

static int parse_movetext(const char *p, int line, struct ptext *t, char *err, size_t errlen)
{
	struct pgroup *cur = &t->open; /* the group comments attach to */
	bool at_line_start = true;
	struct comment_parts cp;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
			if (*p == '\n') {
				line++;
				at_line_start = true;
			}
			p++;
		}
		if (*p == '\0')
			break;
		if (t->result_token[0])
			return fail(err, errlen, "line %d: text after the result (one game per file)", line);
		if (*p == '%' && at_line_start) {
			p += strcspn(p, "\n");
			continue;
		}
		at_line_start = false;
		if (*p == '{') {
			const char *end = strchr(p + 1, '}');
			if (end == NULL)
				return fail(err, errlen, "line %d: unterminated comment", line);
			size_t n = (size_t)(end - p - 1);
			char *body = xcalloc(n + 1, 1);
			int start_line = line;
			for (size_t i = 0; i < n; i++) {
				char c = p[1 + i];
				if (c == '\n')
					line++;
				body[i] = (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
			}
			memset(&cp, 0, sizeof cp);
			sb_init(&cp.k_att);
			sb_init(&cp.k_info);
			sb_init(&cp.krieg);
			sb_init(&cp.ann);
			int rc = parse_comment(body, &cp, start_line, err, errlen);
			free(body);
			if (rc == 0) {
				struct pgroup *g = NULL;
				if (cur != &t->open && cur->comments == 0 && cur != &t->trail) {
					g = cur; /* a half-move's own comment */
				} else if (cp.has_krieg && !cp.has_k) {
					if (t->has_trail)
						rc = fail(err, errlen, "line %d: two trailing [%%krieg] comments",
						          start_line);
					t->has_trail = true;
					g = cur = &t->trail;
				} else if (cur == &t->open && !cp.has_k) {
					g = &t->open;
				}
				/* Anything else is free commentary: ignored. */
				if (g && rc == 0) {
					merge_parts(g, &cp);
					g->comments++;
				} else if (cur != &t->open && cur != &t->trail) {
					cur->comments++;
				}
			}
			free(cp.k_att.p);
			free(cp.k_info.p);
			free(cp.krieg.p);
			free(cp.ann.p);
			if (rc != 0)
				return -1;
			p = end + 1;
			continue;
		}
		if (*p == ';') {
			p += strcspn(p, "\n");
			continue;
		}
		if (*p == '(' || *p == ')')
			return fail(err, errlen, "line %d: variations are not supported", line);
		if (*p == '[')
			return fail(err, errlen, "line %d: a tag pair after the moves (one game per file)", line);
		if (*p == '$') {
			p++;
			while (*p >= '0' && *p <= '9')
				p++;
			continue;
		}
		if (*p == '*') {
			snprintf(t->result_token, sizeof t->result_token, "*");
			p++;
			continue;
		}
		if (!san_char(*p))
			return fail(err, errlen, "line %d: unexpected character '%c'", line,
			            (*p >= 0x20 && *p < 0x7f) ? *p : '?');
		const char *s = p;
		while (*p && san_char(*p))
			p++;
		if (*p == '/') /* only in 1/2-1/2 */
			while (*p == '/' || san_char(*p))
				p++;
		size_t n = (size_t)(p - s);
		char tok[PGN_SAN_TOKEN_MAX + 1];
		if (n > PGN_SAN_TOKEN_MAX)
			return fail(err, errlen, "line %d: token too long", line);
		memcpy(tok, s, n);
		tok[n] = '\0';
		if (strcmp(tok, "1-0") == 0 || strcmp(tok, "0-1") == 0 || strcmp(tok, "1/2-1/2") == 0) {
			memcpy(t->result_token, tok, n + 1); /* n <= 7 here */
			continue;
		}
		if (tok[0] >= '0' && tok[0] <= '9' && strcmp(tok, "0-0") != 0 && strcmp(tok, "0-0-0") != 0) {
			size_t d = strspn(tok, "0123456789");
			if (tok[d] != '.' || tok[d + strspn(tok + d, ".")] != '\0')
				return fail(err, errlen, "line %d: bad move number \"%s\"", line, tok);
			continue;
		}
		if (strchr(tok, '/'))
			return fail(err, errlen, "line %d: bad token \"%s\"", line, tok);
		if (strncmp(tok, "??", 2) == 0 || strcmp(tok, "--") == 0)
			return fail(err, errlen,
			            "line %d: a filtered PGN (\"%s\" for a hidden move) cannot be replayed", line,
			            tok);
		if (t->has_trail)
			return fail(err, errlen, "line %d: a move after the trailing [%%krieg] comment", line);
		if (t->nhm >= PGN_ACTIONS_MAX)
			return fail(err, errlen, "line %d: more than %d moves", line, PGN_ACTIONS_MAX);
		if (t->nhm == t->caphm) {
			t->caphm = t->caphm ? t->caphm * 2 : 64;
			t->hm = xrealloc(t->hm, t->caphm * sizeof *t->hm);
		}
		cur = &t->hm[t->nhm++];
		pgroup_init(cur);
		snprintf(cur->san, sizeof cur->san, "%s", tok);
		cur->line = line;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* recovering and checking the actions                                 */

struct alist {
	struct pgn_action *v;
	size_t n, cap;
};

static struct pgn_action *alist_push(struct alist *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	struct pgn_action *a = &l->v[l->n++];
	memset(a, 0, sizeof *a);
	return a;
}

static void hm_label(const struct board *before, const char *san, char *buf, size_t len)
{
	snprintf(buf, len, "move %d%s %s", before->fullmove, before->side == WHITE ? "." : "...", san);
}

/* Apply one recovered action, appending it to the list. */
static int apply_new(struct referee *r, struct alist *l, const char *kind, const char *text, int color,
                     struct evlist *ev, const char *where, char *err, size_t errlen)
{
	if (l->n >= PGN_ACTIONS_MAX)
		return fail(err, errlen, "more than %d actions", PGN_ACTIONS_MAX);
	if (strlen(text) >= PGN_TEXT_MAX)
		return fail(err, errlen, "%s: action text too long", where);
	struct pgn_action *a = alist_push(l);
	snprintf(a->kind, sizeof a->kind, "%s", kind);
	snprintf(a->text, sizeof a->text, "%s", text);
	a->color = color;
	evlist_clear(ev);
	int st = pgn_apply(r, a, ev);
	if (st != REF_OK)
		return fail(err, errlen, "%s: \"%s%s%.40s\" refused by the referee: %s", where, kind,
		            text[0] ? " " : "", text, st == REF_E_BAD_ARGUMENT ? "bad action" : referee_error(r));
	return 0;
}

/* The actions of a [%krieg ...] command, applied in order. */
static int apply_krieg(struct referee *r, struct alist *l, const char *body, struct evlist *ev,
                       const char *where, char *err, size_t errlen)
{
	const char *p = body;
	while (*p) {
		size_t n = strcspn(p, ";");
		char item[PGN_TEXT_MAX + 32];
		if (n >= sizeof item)
			return fail(err, errlen, "%s: [%%krieg] action too long", where);
		item[0] = '\0';
		size_t a0 = 0, a1 = n;
		while (a0 < a1 && p[a0] == ' ')
			a0++;
		while (a1 > a0 && p[a1 - 1] == ' ')
			a1--;
		memcpy(item, p + a0, a1 - a0);
		item[a1 - a0] = '\0';
		p += n;
		if (*p == ';')
			p++;
		if (item[0] == '\0')
			return fail(err, errlen, "%s: empty [%%krieg] action", where);
		char *text = item + strcspn(item, " ");
		if (*text) {
			*text++ = '\0';
			while (*text == ' ')
				text++;
		}
		int color = referee_side_to_move(r);
		if (strcmp(item, "try") == 0 || strcmp(item, "list") == 0 || strcmp(item, "quiet") == 0) {
			if (!*text)
				return fail(err, errlen, "%s: [%%krieg] %s without a move", where, item);
		} else if (strcmp(item, "any") == 0) {
			if (*text)
				return fail(err, errlen, "%s: [%%krieg] any takes nothing", where);
		} else if (strcmp(item, "draw") == 0) {
			/* draw offer|decline white|black */
			char *who = text + strcspn(text, " ");
			if (*who)
				*who++ = '\0';
			if (strcmp(who, "white") == 0)
				color = WHITE;
			else if (strcmp(who, "black") == 0)
				color = BLACK;
			else
				return fail(err, errlen, "%s: [%%krieg] draw: unknown side \"%.20s\"", where, who);
			if (strcmp(text, "offer") != 0 && strcmp(text, "decline") != 0)
				return fail(err, errlen, "%s: [%%krieg] draw: offer or decline, not \"%.20s\"",
				            where, text);
		} else if (strcmp(item, "end") == 0) {
			char *who = text + strcspn(text, " ");
			if (*who) {
				*who++ = '\0';
				if (strcmp(who, "white") == 0)
					color = WHITE;
				else if (strcmp(who, "black") == 0)
					color = BLACK;
				else
					return fail(err, errlen, "%s: [%%krieg] end: unknown side \"%.20s\"", where, who);
			} else {
				color = -1;
			}
			if (game_reason_parse(text) <= REASON_NONE)
				return fail(err, errlen, "%s: [%%krieg] end: unknown reason \"%.30s\"", where, text);
		} else {
			return fail(err, errlen, "%s: unknown [%%krieg] action \"%.20s\"", where, item);
		}
		if (apply_new(r, l, item, text, color, ev, where, err, errlen) != 0)
			return -1;
	}
	return 0;
}

/* Compare two '\n'-separated announcement lists; on a difference, say which. */
static int compare_ann(const char *rec, const char *rep, const char *where, char *err, size_t errlen)
{
	while (*rec || *rep) {
		size_t a = strcspn(rec, "\n"), b = strcspn(rep, "\n");
		if (a != b || memcmp(rec, rep, a) != 0) {
			if (!*rec)
				return fail(err, errlen, "%s: the replay also announces \"%.*s\"", where, (int)b, rep);
			if (!*rep)
				return fail(err, errlen, "%s: PGN says \"%.*s\", the replay says nothing more", where,
				            (int)a, rec);
			return fail(err, errlen, "%s: PGN says \"%.*s\", the replay says \"%.*s\"", where, (int)a,
			            rec, (int)b, rep);
		}
		rec += a + (rec[a] == '\n');
		rep += b + (rep[b] == '\n');
	}
	return 0;
}

static int check_log(const struct ptext *t, const struct glog *g, const struct pgn_header *h, char *err,
                     size_t errlen)
{
	struct sbuf s;
	sb_init(&s);
	int rc = 0;
	char where[64];

	if (t->open.has_ann) {
		render_announcements(g, 0, g->open_end, AUD_UMPIRE, &s);
		rc = compare_ann(t->open.ann.p, s.p, "before the first move", err, errlen);
	}
	for (size_t i = 0; rc == 0 && i < g->nhm; i++) {
		const struct hm *hm = &g->hm[i];
		const struct pgroup *pg = &t->hm[i];
		const char *why;
		hm_label(&hm->before, pg->san, where, sizeof where);
		move_t m = san_resolve(&hm->before, pg->san, &why);
		if (m != hm->move) {
			rc = fail(err, errlen, "%s: the replay played %s", where, hm->san);
			break;
		}
		if (pg->has_k) {
			s.n = 0;
			s.p[0] = '\0';
			render_attempts(g, hm, AUD_UMPIRE, &s);
			if (strcmp(s.p, pg->k_att.p) != 0) {
				rc = fail(err, errlen, "%s: PGN records the tries (K:%.60s:), the replay (K:%.60s:)",
				          where, pg->k_att.p, s.p);
				break;
			}
			s.n = 0;
			s.p[0] = '\0';
			render_info(g, hm, AUD_UMPIRE, &s);
			if (strcmp(s.p, pg->k_info.p) != 0) {
				rc = fail(err, errlen, "%s: PGN says the opponent heard (K::%.40s), the replay (K::%.40s)",
				          where, pg->k_info.p, s.p);
				break;
			}
		}
		if (pg->has_ann) {
			s.n = 0;
			s.p[0] = '\0';
			render_announcements(g, hm->ev_first, hm->ev_end, AUD_UMPIRE, &s);
			rc = compare_ann(pg->ann.p, s.p, where, err, errlen);
		}
	}
	if (rc == 0 && t->trail.has_ann) {
		s.n = 0;
		s.p[0] = '\0';
		render_announcements(g, g->tr_ev_first, g->ev.n, AUD_UMPIRE, &s);
		rc = compare_ann(t->trail.ann.p, s.p, "after the last move", err, errlen);
	}
	if (rc == 0 && g->over && strcmp(h->result, result_of(g)) != 0)
		rc = fail(err, errlen, "Result \"%s\" but the replay ends %s", h->result, result_of(g));
	free(s.p);
	return rc;
}

static int recover(const struct ptext *t, const struct pgn_header *h, const struct ruleset *rs,
                   struct alist *l, char *err, size_t errlen)
{
	char e[160];
	struct referee *r = referee_new(rs, h->fen[0] ? h->fen : NULL, e, sizeof e);
	if (r == NULL)
		return fail(err, errlen, "%s", e);
	struct evlist ev;
	evlist_init(&ev);
	referee_begin(r, &ev);
	int rc = 0;
	char where[64];

	for (size_t i = 0; rc == 0 && i < t->nhm; i++) {
		const struct pgroup *pg = &t->hm[i];
		const struct board *b = referee_board(r);
		hm_label(b, pg->san, where, sizeof where);
		if (referee_over(r)) {
			rc = fail(err, errlen, "%s: the game is already over", where);
			break;
		}
		if ((size_t)referee_plies(r) > i) {
			/* Played by an "if quiet" sequence inside an earlier action. */
			if (pg->has_krieg && pg->krieg.p[0])
				rc = fail(err, errlen, "%s: a move played by a quiet sequence has no actions", where);
			continue;
		}
		if (pg->has_krieg) {
			rc = apply_krieg(r, l, pg->krieg.p, &ev, where, err, errlen);
		} else {
			/* UMD: each attempt a try, then the move. */
			const char *p = pg->k_att.p;
			while (rc == 0 && *p) {
				size_t n = strcspn(p, ",");
				char tok[PGN_TEXT_MAX];
				snprintf(tok, sizeof tok, "%.*s", (int)(n < sizeof tok - 1 ? n : sizeof tok - 1), p);
				p += n + (p[n] == ',');
				if (strcmp(tok, "??") == 0)
					rc = fail(err, errlen, "%s: a filtered PGN (\"??\" tries) cannot be replayed", where);
				else if (tok[0] == '\0')
					rc = fail(err, errlen, "%s: empty attempt in (K:...)", where);
				else
					rc = apply_new(r, l, "try", tok, referee_side_to_move(r), &ev, where, err, errlen);
				if (rc == 0 && (size_t)referee_plies(r) > i)
					rc = fail(err, errlen, "%s: the attempt %s is legal: it was played", where, tok);
			}
			if (rc != 0)
				break;
			const char *why;
			b = referee_board(r);
			move_t m = san_resolve(b, pg->san, &why);
			if (m == MOVE_NONE) {
				rc = fail(err, errlen, "%s: %s", where, why);
				break;
			}
			struct board own;
			char san[NOTATION_MAX];
			board_own_view(b, b->side, &own);
			notation_san(&own, m, true, san);
			rc = apply_new(r, l, "try", san, b->side, &ev, where, err, errlen);
		}
		if (rc == 0 && (size_t)referee_plies(r) <= i)
			rc = fail(err, errlen, "%s: the recorded actions do not play a move", where);
	}
	if (rc == 0 && t->has_trail)
		rc = apply_krieg(r, l, t->trail.krieg.p, &ev, "after the last move", err, errlen);
	if (rc == 0 && (size_t)referee_plies(r) != t->nhm)
		rc = fail(err, errlen, "the replay plays %d moves, the PGN records %zu", referee_plies(r), t->nhm);
	evlist_free(&ev);
	referee_free(r);
	return rc;
}

int pgn_read(const char *text, struct pgn_header *h, struct pgn_action **a, size_t *n, char *err,
             size_t errlen)
{
	*a = NULL;
	*n = 0;
	pgn_header_init(h);
	if (text == NULL)
		return fail(err, errlen, "no text");
	if (strnlen(text, PGN_INPUT_MAX + 1) > PGN_INPUT_MAX)
		return fail(err, errlen, "PGN longer than %u bytes", PGN_INPUT_MAX);

	struct ptext t;
	memset(&t, 0, sizeof t);
	pgroup_init(&t.open);
	pgroup_init(&t.trail);
	int line = 1;
	const char *p = text;
	int rc = parse_tags(&p, &line, h, &t, err, errlen);
	if (rc == 0 && t.setup && h->fen[0] == '\0')
		rc = fail(err, errlen, "SetUp \"1\" without a FEN tag");
	if (rc == 0)
		rc = parse_movetext(p, line, &t, err, errlen);
	if (rc == 0 && t.result_token[0] && strcmp(t.result_token, h->result) != 0)
		rc = fail(err, errlen, "the movetext ends %s but the Result tag says %s", t.result_token,
		          h->result);

	struct alist l = { 0 };
	const struct ruleset *rs = ruleset_find(h->rules);
	if (rc == 0)
		rc = recover(&t, h, rs, &l, err, errlen);
	if (rc == 0) {
		struct glog g;
		char e[200];
		if (glog_build(&g, rs, h->fen[0] ? h->fen : NULL, l.v, l.n, e, sizeof e) != 0)
			rc = fail(err, errlen, "replay: %s", e);
		else if (g.nhm != t.nhm)
			rc = fail(err, errlen, "the replay plays %zu moves, the PGN records %zu", g.nhm, t.nhm);
		else
			rc = check_log(&t, &g, h, err, errlen);
		glog_free(&g);
	}
	ptext_free(&t);
	if (rc != 0) {
		free(l.v);
		return -1;
	}
	*a = l.v;
	*n = l.n;
	return 0;
}
