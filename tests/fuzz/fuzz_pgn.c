/*
 * fuzz_pgn.c — pgn_read (what `krieg-referee pgn` reads) on any text.  A
 * PGN it accepts must replay through referee_apply with every action
 * accepted, and write back (pgn_write, the umpire's full record) to a text
 * that reads again to the same actions; and each filtered record holds
 * only what its audience received (pgn_check.h).
 */
#include "action.h"
#include "fuzz_util.h"
#include "pgn_check.h"
#include "pgn.h"
#include "referee.h"
#include "ruleset.h"

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
	pgn_check_filtered(&h, a, n, rs, &ev);
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
