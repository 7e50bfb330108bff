/*
 * pgn_priv.h — what the parts of the PGN module (pgn.h) share.  Only
 * common/pgn_*.c include it; nothing here is an interface.
 *
 *   pgn_log.c    the game log: an action list replayed through a fresh
 *                referee (referee_apply) and its events cut into
 *                half-moves; one half-move's tries, the information its
 *                opponent heard and the announcements, rendered for one
 *                audience (the writer writes them, the reader compares the
 *                text with them); pgn_header_init.
 *   pgn_write.c  pgn_write: tags, movetext, comments, [%krieg] commands.
 *   pgn_read.c   pgn_read: the lexer and parser, recovering the actions
 *                from the text and checking the text against their log.
 *
 * How the events are cut: the events of the actions up to and including
 * the one that plays a move belong to that move's half-move, up to the end
 * of that action (or up to the next move, when a nost "if quiet" sequence
 * plays further moves inside the same action: those half-moves have no
 * action of their own).  Events of actions after the last move form the
 * trailing group; referee_begin's events the opening one.  Both
 * directions go through this one log, so the writer and the reader can
 * never disagree about what a half-move holds.
 */
#ifndef KRIEG_PGN_PRIV_H
#define KRIEG_PGN_PRIV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "action.h"
#include "board.h"
#include "errbuf.h"
#include "event.h"
#include "notation.h"
#include "pgn.h"
#include "ruleset.h"
#include "xmalloc.h"

#define PGN_LINE 79          /* export lines are wrapped before this column */
#define PGN_SAN_TOKEN_MAX 24 /* longest move token read */
#define PGN_SAY_MAX 160      /* one announcement's text */
/* Bytes of an umpire action's text written %XX in [%krieg] (PGN.md),
 * with every byte from 0x80. */
#define PGN_ESCAPED "%;[]{}\""

/* ------------------------------------------------------------------ */
/* a growable string: p is always a string after sb_init               */

struct sbuf {
	char *p;
	size_t n, cap;
};

static inline void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	b->p = xgrow(b->p, &b->cap, b->n + n + 1, 1, 256);
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static inline void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

/* Empty the string, keeping its storage. */
static inline void sb_clear(struct sbuf *b)
{
	b->n = 0;
	b->p[0] = '\0';
}

__attribute__((format(printf, 2, 3))) static inline void sb_printf(struct sbuf *b, const char *fmt,
                                                                    ...)
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

static inline void sb_init(struct sbuf *b)
{
	memset(b, 0, sizeof *b);
	sb_putn(b, "", 0);
}

/* ------------------------------------------------------------------ */
/* the game log (pgn_log.c)                                            */

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
	const struct action *a;      /* the actions after a leading "begin" */
	size_t na;
	struct evlist ev;
	size_t open_end;             /* referee_begin's events: [0, open_end) */
	struct hm *hm;
	size_t nhm, caphm;
	size_t tr_act_first, tr_ev_first; /* the trailing group */
	bool over;
	int result, reason;
};

/* Replay a[0..n) (a leading "begin" skipped) from fen (NULL: the standard
 * start) into g.  -1 with a message naming the action the referee
 * refuses; free g with pgn_glog_free either way. */
int pgn_glog_build(struct glog *g, const struct ruleset *rs, const char *fen, const struct action *a,
                   size_t n, char *err, size_t errlen);
void pgn_glog_free(struct glog *g);

/* The refused tries of the mover before the move, as `view` heard them
 * (the (K:attempts:) part). */
void pgn_render_attempts(const struct glog *g, const struct hm *h, unsigned view, struct sbuf *out);
/* What the mover's opponent heard of the move (the full record), or what
 * `view` heard (a filtered record): the (K::information) part. */
void pgn_render_info(const struct glog *g, const struct hm *h, unsigned view, struct sbuf *out);
/* The announcements of events [lo, hi) for view, each followed by '\n'. */
void pgn_render_announcements(const struct glog *g, size_t lo, size_t hi, unsigned view,
                              struct sbuf *out);

/* "1-0", ... of a finished replay; "*" otherwise. */
const char *pgn_result_of(const struct glog *g);
/* "white", "black", or "-". */
const char *pgn_color_word(int c);

#endif
