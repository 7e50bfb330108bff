/*
 * pgn_check.h — what fuzz_pgn and fuzz_referee check of the records
 * pgn_write makes from a game's actions: each filtered record (White's,
 * Black's, the spectators': what `pgn` gives a player of a live game)
 * holds no byte its audience did not receive (proto/PGN.md).  Its
 * announcements are exactly the game's events addressed to that audience,
 * moves aside, in order; its `[%krieg]` commands carry only chat (`say`,
 * and `spec` in the spectators' alone), never a try, a draw, adjournment
 * or an umpire's action.
 */
#ifndef KRIEG_FUZZ_PGN_CHECK_H
#define KRIEG_FUZZ_PGN_CHECK_H

#include <stdbool.h>

#include "action.h"
#include "event.h"
#include "fuzz_util.h"
#include "pgn.h"
#include "pgn_flat.h"
#include "ruleset.h"

/* An announcement as a record writes it: the umpire's words, "White: Any?
 * No" for an "any?", and the characters a PGN comment cannot hold replaced
 * (PGN.md: announcements are double-quoted inside comments).  pgn_log.c
 * has its own; this one is written again from PGN.md so that the oracle is
 * not the code it checks. */
static void said(const struct ruleset *rs, const struct event *e, char *buf, size_t len)
{
	char w[200];
	ruleset_say(rs, e, w, sizeof w);
	if (e->type == EV_ANY)
		snprintf(buf, len, "%s: Any? %s", e->by == WHITE ? "White" : "Black", w);
	else
		snprintf(buf, len, "%s", w);
	for (char *p = buf; *p; p++)
		if (*p == '"')
			*p = '\'';
		else if (*p == '{')
			*p = '(';
		else if (*p == '}')
			*p = ')';
		else if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = ' ';
}

static bool heard(const struct event *e, unsigned view)
{
	return (e->audience & view) && e->type != EV_MOVE && e->type != EV_MOVED &&
	       e->type != EV_UMPIRE_MOVE;
}

static void check_view_record(const struct pgn_header *h, const struct action *a, size_t n,
                              const struct ruleset *rs, const struct evlist *ev, unsigned view)
{
	char err[256], want[240];
	char *f = NULL;
	FUZZ_ASSERT(pgn_write(h, a, n, view, &f, err, sizeof err) == 0, "write %u: %s", view, err);
	char *movetext = strstr(f, "\n\n");   /* after the tags */
	FUZZ_ASSERT(movetext != NULL, "no movetext:\n%s", f);
	pgn_flat(movetext + 2);   /* read as one line, as a reader does */
	const char *p = movetext;
	size_t k = 0;
	while ((p = strchr(p, '"')) != NULL) {
		const char *end = strchr(p + 1, '"');
		FUZZ_ASSERT(end != NULL, "an unclosed announcement in view %u:\n%s", view, f);
		while (k < ev->n && !heard(&ev->v[k], view))
			k++;
		FUZZ_ASSERT(k < ev->n, "view %u: %.*s was never said to it", view,
		            (int)(end - p + 1), p);
		said(rs, &ev->v[k], want, sizeof want);
		FUZZ_ASSERT(strlen(want) == (size_t)(end - p - 1) && strncmp(want, p + 1, strlen(want)) == 0,
		            "view %u: %.*s where it heard \"%s\"", view, (int)(end - p + 1), p, want);
		k++;
		p = end + 1;
	}
	while (k < ev->n && !heard(&ev->v[k], view))
		k++;
	FUZZ_ASSERT(k == ev->n, "view %u: \"%s\" heard, not written", view,
	            (said(rs, &ev->v[k], want, sizeof want), want));
	for (const char *c = movetext; (c = strstr(c, "[%krieg")) != NULL; c++) {
		const char *item = c + 7;
		const char *close = strchr(item, ']');
		FUZZ_ASSERT(close != NULL, "an unclosed command in view %u", view);
		for (;;) {
			item += strspn(item, " ;");
			if (item >= close)
				break;
			bool chat = strncmp(item, "say ", 4) == 0 ||
			            (view == AUD_SPECTATOR && strncmp(item, "spec ", 5) == 0);
			FUZZ_ASSERT(chat, "view %u's record holds [%%krieg %.*s]", view,
			            (int)(close - item), item);
			const char *next = strchr(item, ';');
			if (next == NULL || next > close)
				break;
			item = next;
		}
	}
	free(f);
}

/* ev: every event of the game whose actions are a[0..n), in order. */
static void pgn_check_filtered(const struct pgn_header *h, const struct action *a, size_t n,
                               const struct ruleset *rs, const struct evlist *ev)
{
	check_view_record(h, a, n, rs, ev, AUD_WHITE);
	check_view_record(h, a, n, rs, ev, AUD_BLACK);
	check_view_record(h, a, n, rs, ev, AUD_SPECTATOR);
}

#endif
