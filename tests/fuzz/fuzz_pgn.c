/*
 * fuzz_pgn.c — pgn_read (what `krieg-referee pgn` reads) on any text.  A
 * PGN it accepts must replay through referee_apply with every action
 * accepted, and write back (pgn_write, the umpire's full record) to a text
 * that reads again to the same actions.
 *
 * And each filtered record (White's, Black's, the spectators': what a
 * player's `pgn` of a live game gets) holds no byte its audience did not
 * receive (PGN.md): its announcements are exactly the replay's events
 * addressed to that audience, moves aside, in order; its `[%krieg]`
 * commands carry only chat (`say`, and `spec` in the spectators' alone),
 * never a try, a draw, adjournment or an umpire's action.
 */
#include <stdbool.h>

#include "action.h"
#include "fuzz_util.h"
#include "pgn.h"
#include "referee.h"
#include "ruleset.h"

/* An announcement as a record writes it: the umpire's words, "White: Any?
 * No" for an "any?", and the characters a PGN comment cannot hold replaced
 * (PGN.md: announcements are double-quoted inside comments). */
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

static void check_filtered(const struct pgn_header *h, const struct action *a, size_t n,
                           const struct ruleset *rs, const struct evlist *ev, unsigned view)
{
	char err[256], want[240];
	char *f = NULL;
	FUZZ_ASSERT(pgn_write(h, a, n, view, &f, err, sizeof err) == 0, "write %u: %s", view, err);
	const char *movetext = strstr(f, "\n\n");   /* after the tags */
	FUZZ_ASSERT(movetext != NULL, "no movetext:\n%s", f);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	char err[256];
	struct pgn_header h;
	struct action *a = NULL;
	size_t n = 0;

	if (pgn_read(text, &h, &a, &n, err, sizeof err) != 0) {
		FUZZ_ASSERT(a == NULL && n == 0 && err[0] != '\0', "refused without a message");
		free(text);
		return 0;
	}
	const struct ruleset *rs = ruleset_find(h.rules);
	FUZZ_ASSERT(rs != NULL, "accepted rules '%s'", h.rules);
	struct referee *r = referee_new(rs, h.fen[0] ? h.fen : NULL, err, sizeof err);
	FUZZ_ASSERT(r != NULL, "accepted FEN '%s': %s", h.fen, err);
	struct evlist ev;
	evlist_init(&ev);
	/* The record read holds no begin (pgn.h): the replay opens with it, as
	 * krieg-referee pgn does. */
	if (n == 0 || a[0].kind != ACTION_BEGIN)
		FUZZ_ASSERT(referee_begin(r, &ev) == REF_OK, "begin: %s", referee_error(r));
	for (size_t i = 0; i < n; i++) {
		int st = referee_apply(r, &a[i], &ev);
		FUZZ_ASSERT(st == REF_OK, "action %zu (%s) refused: %s", i, a[i].text, referee_error(r));
	}
	check_filtered(&h, a, n, rs, &ev, AUD_WHITE);
	check_filtered(&h, a, n, rs, &ev, AUD_BLACK);
	check_filtered(&h, a, n, rs, &ev, AUD_SPECTATOR);
	evlist_free(&ev);
	referee_free(r);

	char *out = NULL;
	FUZZ_ASSERT(pgn_write(&h, a, n, AUD_UMPIRE, &out, err, sizeof err) == 0, "write: %s", err);
	struct pgn_header h2;
	struct action *a2 = NULL;
	size_t n2 = 0;
	FUZZ_ASSERT(pgn_read(out, &h2, &a2, &n2, err, sizeof err) == 0, "re-read: %s\n%s", err, out);
	FUZZ_ASSERT(n2 == n, "re-read %zu actions of %zu", n2, n);
	for (size_t i = 0; i < n; i++)
		FUZZ_ASSERT(a[i].kind == a2[i].kind && a[i].color == a2[i].color &&
		                    strcmp(a[i].text, a2[i].text) == 0,
		            "action %zu: %s became %s", i, a[i].text, a2[i].text);
	free(a2);
	free(out);
	free(a);
	free(text);
	return 0;
}
