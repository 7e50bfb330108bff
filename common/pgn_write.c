/*
 * pgn_write.c — pgn_write (pgn.h): the game log (pgn_log.c) as the text
 * of proto/PGN.md.
 */
#include "pgn_priv.h"
#include "text.h"

#include <stdlib.h>

/*
 * Where a line may break inside an atom of movetext, besides its spaces
 * (a newline for a space: the reader reads any whitespace in a comment as
 * a space).  Neither is written when no line breaks there.  A comment
 * element was one unbreakable atom, and a (K:...) block of many refused
 * tries, a chat line or an umpire's reason of 200 bytes escaped (600
 * characters) made lines of up to 757 characters, past the PGN standard's
 * 255 (the PGN probe).
 */
#define BRK_ITEM '\x01'    /* after a (K:...) block's comma: the reader trims its items */
#define BRK_ESCAPE '\x02'  /* inside a %XX escape, after the '%' (PGN.md: "% XX" is XX) */

/* ------------------------------------------------------------------ */
/* the actions of a half-move                                          */

/* Does a filtered view hear action a?  Only chat is in a filtered view's
 * [%krieg]: the players' words for everyone, the spectators' channel for
 * the spectators (PROTOCOL.md "Chat"); the umpire's view has every action. */
static bool heard(const struct action *a, unsigned view)
{
	if (view == AUD_UMPIRE)
		return true;
	return a->kind == ACTION_SAY || (a->kind == ACTION_SPEC && view == AUD_SPECTATOR);
}

/* [%krieg ACTION; ACTION] for the actions [first, first + n) view heard;
 * in a filtered view, nothing when it heard none. */
static void render_krieg(const struct glog *g, size_t first, size_t n, unsigned view,
                         struct sbuf *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const struct action *a = &g->a[first + i];
		if (!heard(a, view))
			continue;
		sb_puts(out, k++ ? "; " : "[%krieg ");
		sb_puts(out, action_kind_name(a->kind));
		if (action_is_umpire(a->kind) || action_is_chat(a->kind)) {
			/* An umpire's text, or chat, is free: escaped so it cannot
			 * end the command or the comment (PGN.md). */
			if (a->kind == ACTION_ADDTIME || a->kind == ACTION_SAY)
				sb_printf(out, " %s", pgn_color_word(a->color));
			sb_puts(out, " ");
			for (const char *t = a->text; *t; t++)
				if (strchr(PGN_ESCAPED, *t) || (unsigned char)*t >= 0x80)
					sb_printf(out, "%%%c%02X", BRK_ESCAPE, (unsigned)(unsigned char)*t);
				else
					sb_putn(out, t, 1);
		} else if (a->text[0] && a->kind != ACTION_ANY) {
			/* Runs of spaces and spaces at the ends carry no meaning (notation.h). */
			const char *t = a->text;
			while (*t == ' ')
				t++;
			sb_puts(out, " ");
			for (; *t; t++)
				if (*t != ' ' || (t[1] && t[1] != ' '))
					sb_putn(out, t, 1);
		}
		if ((a->kind == ACTION_END || a->kind == ACTION_DRAW || action_is_adjourn(a->kind)) &&
		    (a->color == WHITE || a->color == BLACK))
			sb_printf(out, " %s", pgn_color_word(a->color));
	}
	if (k > 0)
		sb_puts(out, "]");
	else if (view == AUD_UMPIRE)
		sb_puts(out, "[%krieg]");   /* a move an "if quiet" sequence played (PGN.md) */
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
	pgn_render_attempts(g, h, AUD_UMPIRE, &att);
	bool ok = true;
	size_t k = 0;
	const char *p = att.p;
	while (ok && *p) {
		size_t len = strcspn(p, ",");
		const struct action *a = &g->a[h->act_first + k];
		ok = k + 1 < h->act_n && a->kind == ACTION_TRY && strlen(a->text) == len &&
		     memcmp(a->text, p, len) == 0;
		k++;
		p += len;
		if (*p == ',')
			p++;
	}
	free(att.p);
	if (!ok || k + 1 != h->act_n)
		return false;
	const struct action *last = &g->a[h->act_first + k];
	/* The move as pgn_read writes it back: own-view SAN without the
	 * capture and check marks h->own (what the mover was told) carries. */
	struct board own;
	char plain[NOTATION_MAX];
	board_own_view(&h->before, h->color, &own);
	notation_san(&own, h->move, true, plain);
	return last->kind == ACTION_TRY && strcmp(last->text, plain) == 0;
}

/* ------------------------------------------------------------------ */
/* lines and comments                                                  */

struct wrap {
	struct sbuf *b;
	size_t col;
};

static bool is_brk(char c)
{
	return c == ' ' || c == BRK_ITEM || c == BRK_ESCAPE;
}

/*
 * s[0..n) after what was written before it, a space between; each line
 * ends before column PGN_LINE where a break can be had: between atoms
 * and, when `inner`, at s's own breaks (is_brk).  Never before a '%' (a
 * line that starts with one is the standard's escape line, which readers
 * skip): an escape breaks after its '%' instead, and the word before an
 * escape stays with it.  What cannot break is plain text without a space
 * (with the escape's '%' after it), a text's 200 bytes at most.
 */
static void wr_text(struct wrap *w, const char *s, size_t n, bool inner)
{
	char sep = w->col > 0 ? ' ' : '\0';   /* what stands before the piece */
	for (size_t i = 0;;) {
		/* the piece: to the next break, a space before a '%' not one */
		size_t j = i;
		while (j < n && (!inner || !is_brk(s[j]) || (s[j] == ' ' && j + 1 < n && s[j + 1] == '%')))
			j++;
		size_t len = j - i, need = len + (sep == ' ');
		bool breakable = sep != '\0' && w->col > 0;
		if (breakable && w->col + need > PGN_LINE) {
			sb_puts(w->b, "\n");
			w->col = 0;
		} else if (sep == ' ') {
			sb_puts(w->b, " ");
			w->col++;
		}
		sb_putn(w->b, s + i, len);
		w->col += len;
		if (j >= n)
			return;
		sep = s[j];
		i = j + 1;
	}
}

/* An unbreakable piece of movetext: a move with its number, the result. */
static void wr_atom(struct wrap *w, const char *s, size_t n)
{
	wr_text(w, s, n, false);
}

/* A (K:...) block, a line break allowed after each comma. */
static void k_breakable(struct sbuf *out, const struct sbuf *k)
{
	for (size_t i = 0; i < k->n; i++) {
		sb_putn(out, k->p + i, 1);
		if (k->p[i] == ',')
			sb_putn(out, (char[]){ BRK_ITEM }, 1);
	}
}

/* A comment: {el1 el2 ...}; the braces glued on, lines broken between
 * elements and inside them (wr_text).  As many elements as it takes: a
 * half-move's announcements were glued into one past 64, and that one
 * broken inside its quotes. */
struct comment {
	struct sbuf *el;
	bool *inner;   /* broken inside (wr_text): not a quoted announcement, kept whole to read */
	size_t n, cap, capi;
};

static void cm_add(struct comment *c, const char *s, size_t n, bool inner)
{
	c->el = xgrow(c->el, &c->cap, c->n + 1, sizeof *c->el, 16);
	c->inner = xgrow(c->inner, &c->capi, c->n + 1, sizeof *c->inner, 16);
	sb_init(&c->el[c->n]);
	sb_putn(&c->el[c->n], s, n);
	c->inner[c->n] = inner;
	c->n++;
}

/* Each line of a '\n'-separated announcement list as a quoted element. */
static void cm_add_quoted(struct comment *c, const char *list)
{
	while (*list) {
		size_t len = strcspn(list, "\n");
		char q[PGN_SAY_MAX + 24];
		snprintf(q, sizeof q, "\"%.*s\"", (int)(len < PGN_SAY_MAX + 16 ? len : PGN_SAY_MAX + 16), list);
		cm_add(c, q, strlen(q), false);
		list += len;
		if (*list)
			list++;
	}
}

static void cm_flush(struct comment *c, struct wrap *w)
{
	for (size_t i = 0; i < c->n; i++) {
		/* An element that fits a line of its own is kept whole (moved to
		 * the next line when it does not fit this one): only a longer one
		 * is broken inside.  Its break marks are then left out. */
		size_t shown = 2;   /* the braces, say */
		for (size_t k = 0; k < c->el[i].n; k++)
			shown += c->el[i].p[k] != BRK_ITEM && c->el[i].p[k] != BRK_ESCAPE;
		bool inner = c->inner[i] && shown > PGN_LINE;
		struct sbuf t;
		sb_init(&t);
		if (i == 0)
			sb_puts(&t, "{");
		for (size_t k = 0; k < c->el[i].n; k++)
			if (inner || (c->el[i].p[k] != BRK_ITEM && c->el[i].p[k] != BRK_ESCAPE))
				sb_putn(&t, c->el[i].p + k, 1);
		if (i + 1 == c->n)
			sb_puts(&t, "}");
		wr_text(w, t.p, t.n, inner);
		free(t.p);
		free(c->el[i].p);
	}
	c->n = 0;
}

/* ------------------------------------------------------------------ */
/* tags                                                                */

/* A tag pair on its line: quotes and backslashes escaped, controls as
 * spaces, bytes that are no UTF-8 read as ISO 8859-1 (the second PGN
 * probe: a raw 0xFF was written), and the line within the standard's 255
 * (bytes: the standard's characters are ISO 8859-1's, one byte each),
 * escapes included (it was the value that was held to 255): the value cut
 * before a character that does not fit. */
static void tag(struct sbuf *b, const char *name, const char *value, const char *dflt)
{
	if (value == NULL || value[0] == '\0')
		value = dflt;
	size_t room = PGN_LINE_MAX > strlen(name) + 5 ? PGN_LINE_MAX - strlen(name) - 5 : 0;   /* [N "" ] */
	sb_printf(b, "[%s \"", name);
	const unsigned char *p = (const unsigned char *)value;
	for (size_t n = strlen(value), used; n > 0; p += used, n -= used) {
		char c[4];
		size_t k = text_latin1_char(p, n, c, &used);
		if (k == 1 && (c[0] == '"' || c[0] == '\\')) {
			c[1] = c[0];
			c[0] = '\\';
			k = 2;
		} else if ((k == 1 && ((unsigned char)c[0] < 0x20 || c[0] == 0x7f)) ||
		           (k == 2 && (unsigned char)c[0] == 0xc2 && (unsigned char)c[1] < 0xa0)) {
			c[0] = ' ';   /* a control, C1 ones in UTF-8 too (a review) */
			k = 1;
		}
		if (k > room)
			break;
		room -= k;
		sb_putn(b, c, k);
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
	case REASON_ADJUDICATION: return "adjudication";
	default: return "normal";
	}
}

/* Is b the standard start?  Positions are compared, not FEN strings: a
 * crazykrieg board always carries reserves, and empty ones ("[]" in its
 * FEN) are the standard start's too (pgn_read gives them back, the rule
 * set's referee setting them). */
static bool is_standard_start(const struct board *b)
{
	struct board std;
	board_start(&std);
	return memcmp(b->pieces, std.pieces, sizeof std.pieces) == 0 && b->side == std.side &&
	       b->castling == std.castling && b->ep == std.ep && b->halfmove == std.halfmove &&
	       b->fullmove == std.fullmove && !board_hand_any(b, WHITE) &&
	       !board_hand_any(b, BLACK) && b->promoted == 0;
}

struct tag_pair {
	const char *name, *value;
};

static int tag_order(const void *a, const void *b)
{
	return strcmp(((const struct tag_pair *)a)->name, ((const struct tag_pair *)b)->name);
}

/* The Seven Tag Roster in its order, then the others in ASCII order of
 * their names, as the standard's export format has them (8.1.1; they were
 * in an order of krieg's own: the PGN probe). */
static void write_tags(const struct pgn_header *h, const struct glog *g, unsigned view,
                       struct sbuf *b)
{
	tag(b, "Event", h->event, "?");
	tag(b, "Site", h->site, "?");
	tag(b, "Date", h->date, "????.??.??");
	tag(b, "Round", h->round, "?");
	tag(b, "White", h->white, "?");
	tag(b, "Black", h->black, "?");
	tag(b, "Result", pgn_result_of(g), "*");

	struct tag_pair more[10];
	size_t n = 0;
	char fen[FEN_MAX];
	more[n++] = (struct tag_pair){ "Variant", "Kriegspiel" };
	more[n++] = (struct tag_pair){ "KriegRules", g->rs->name };
	if (view != AUD_UMPIRE)
		more[n++] = (struct tag_pair){ "KriegView", audience_name(view) };
	if (h->time_control[0] != '\0')
		more[n++] = (struct tag_pair){ "TimeControl", h->time_control };
	if (!is_standard_start(&g->start)) {
		fen_format(&g->start, fen, sizeof fen);
		more[n++] = (struct tag_pair){ "SetUp", "1" };
		more[n++] = (struct tag_pair){ "FEN", fen };
	}
	if (h->utc_time[0] != '\0') {   /* when the game began, in UTC (Date is UTC's day too) */
		more[n++] = (struct tag_pair){ "UTCDate", h->date };
		more[n++] = (struct tag_pair){ "UTCTime", h->utc_time };
	}
	more[n++] = (struct tag_pair){ "Termination", termination_of(g) };
	qsort(more, n, sizeof more[0], tag_order);
	for (size_t i = 0; i < n; i++)
		tag(b, more[i].name, more[i].value, "");
	sb_puts(b, "\n");
}

/* ------------------------------------------------------------------ */
/* writing                                                             */

/* Text the reader gives back as written: printable, none of the
 * characters that end a comment, a command or an action. */
static bool writable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e || strchr(";]{}\"", *s))
			return false;
	return true;
}

/* One half-move: number, move, {(K:...) [%krieg ...] "announcements"}. */
static void write_hm(const struct glog *g, size_t i, unsigned view, struct wrap *w,
                     struct comment *c, struct sbuf *t)
{
	const struct hm *hm = &g->hm[i];
	/* The move number and the move stay on one line. */
	char num[32];
	const char *san = view == AUD_UMPIRE ? hm->san : view == aud_of(hm->color) ? hm->own : "??";
	/* Black's with its "N..." too: every move of White's has a comment
	 * after it, and the standard (8.2.2.2) numbers a move after one. */
	snprintf(num, sizeof num, "%d%s %s", hm->before.fullmove, hm->color == WHITE ? "." : "...", san);
	wr_atom(w, num, strlen(num));

	sb_clear(t);
	sb_puts(t, "(K:");
	pgn_render_attempts(g, hm, view, t);
	sb_puts(t, ":");
	pgn_render_info(g, hm, view, t);
	sb_puts(t, ")");
	struct sbuf k;
	sb_init(&k);
	k_breakable(&k, t);
	cm_add(c, k.p, k.n, true);
	free(k.p);
	if (view != AUD_UMPIRE || !is_default(g, hm)) {
		sb_clear(t);
		render_krieg(g, hm->act_first, hm->act_n, view, t);
		if (t->n)
			cm_add(c, t->p, t->n, true);
	}
	sb_clear(t);
	pgn_render_announcements(g, hm->ev_first, hm->ev_end, view, t);
	cm_add_quoted(c, t->p);
	cm_flush(c, w);
}

int pgn_write(const struct pgn_header *h, const struct action *a, size_t n, unsigned view,
              char **out, char *err, size_t errlen)
{
	*out = NULL;
	if (view != AUD_UMPIRE && view != AUD_WHITE && view != AUD_BLACK && view != AUD_SPECTATOR)
		return failf(err, errlen, "bad view");
	const char *rules = h->rules[0] ? h->rules : RULESET_DEFAULT;
	const struct ruleset *rs = ruleset_find(rules);
	if (rs == NULL)
		return failf(err, errlen, "unknown rule set \"%.40s\"", rules);
	for (size_t i = 0; i < n; i++) {
		/* An umpire's text is escaped instead (render_krieg). */
		if (strnlen(a[i].text, sizeof a[i].text) == sizeof a[i].text ||
		    (!action_is_umpire(a[i].kind) && !action_is_chat(a[i].kind) && !writable(a[i].text)))
			return failf(err, errlen, "action %zu: text cannot be written", i + 1);
	}

	struct glog g;
	if (pgn_glog_build(&g, rs, h->fen[0] ? h->fen : NULL, a, n, err, errlen) != 0) {
		pgn_glog_free(&g);
		return -1;
	}

	struct sbuf b;
	sb_init(&b);
	write_tags(h, &g, view, &b);

	struct wrap w = { &b, 0 };
	struct comment *c = xcalloc(1, sizeof *c);
	struct sbuf t;
	sb_init(&t);

	pgn_render_announcements(&g, 0, g.open_end, view, &t);
	cm_add_quoted(c, t.p);
	cm_flush(c, &w);

	for (size_t i = 0; i < g.nhm; i++)
		write_hm(&g, i, view, &w, c, &t);

	if (g.tr_act_first < g.na) {
		sb_clear(&t);
		render_krieg(&g, g.tr_act_first, g.na - g.tr_act_first, view, &t);
		if (t.n)
			cm_add(c, t.p, t.n, true);
		sb_clear(&t);
		pgn_render_announcements(&g, g.tr_ev_first, g.ev.n, view, &t);
		cm_add_quoted(c, t.p);
		cm_flush(c, &w);
	}
	const char *res = pgn_result_of(&g);
	wr_atom(&w, res, strlen(res));
	sb_puts(&b, "\n");

	free(t.p);
	free(c->el);
	free(c->inner);
	free(c);
	pgn_glog_free(&g);
	*out = b.p;
	return 0;
}
