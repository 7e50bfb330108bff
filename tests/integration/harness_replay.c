/*
 * harness_replay.c — the same record through every consumer
 * (harness_replay.h).
 *
 * What is compared is what an audience is told, as JSON (announce_event).
 * Against the stored announcements, the reference since they are what the
 * players were actually sent, without the SAN and the sentence made from
 * it (the events table keeps no SAN) and without the draw notices, which
 * are not events of the referee.  Between the two replays (the record
 * view and the PGN re-import), SAN and sentences included.
 */
#include "harness_replay.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "errbuf.h"
#include "event.h"
#include "event_json.h"
#include "pgn.h"
#include "recover.h"
#include "referee.h"
#include "ruleset.h"
#include "store.h"
#include "announce.h"
#include "xmalloc.h"

/* The notices (announce_notice): not events of the referee, never stored. */
static bool is_notice(const char *type)
{
	static const char *const notices[] = { "draw_offer", "draw_declined", "clock_paused",
	                                       "clock_unpaused", "time_added", "umpire_note", "chat",
	                                       "adjourn_offer", "adjourn_declined", "adjourned",
	                                       "unadjourned" };
	for (size_t i = 0; type && i < sizeof notices / sizeof notices[0]; i++)
		if (strcmp(type, notices[i]) == 0)
			return true;
	return false;
}

/*
 * What a view is compared on: when strip (against the stored events), the
 * notices are skipped, and an event's SAN and the sentence that quotes it
 * are not compared, nor what the server adds to a game_over (announce_event's
 * r and a).  Compared in place: copying every event to strip it was most of
 * what this check cost (test_watch checks 800 games at its end).
 */
static const char *const unstored_keys[] = { "san", "say", "fen", "note" };

static bool unstored(const char *key)
{
	for (size_t i = 0; i < sizeof unstored_keys / sizeof unstored_keys[0]; i++)
		if (strcmp(key, unstored_keys[i]) == 0)
			return true;
	return false;
}

/* The next event of a view from *at on (a notice skipped when strip), or NULL. */
static json_t *next_event(json_t *events, size_t *at, bool strip)
{
	while (*at < json_array_size(events)) {
		json_t *e = json_array_get(events, (*at)++);
		if (!strip || !is_notice(json_string_value(json_object_get(e, "event"))))
			return e;
	}
	return NULL;
}

/* x and y the same event (their unstored keys aside when strip). */
static bool same_event(json_t *x, json_t *y, bool strip)
{
	if (!strip || !json_is_object(x) || !json_is_object(y))
		return json_equal(x, y);
	size_t nx = 0, ny = 0;
	const char *k;
	json_t *v;
	json_object_foreach(x, k, v) {
		if (unstored(k))
			continue;
		nx++;
		json_t *w = json_object_get(y, k);
		if (w == NULL || !json_equal(v, w))
			return false;
	}
	json_object_foreach(y, k, v)
		ny += !unstored(k);
	return nx == ny;
}

/* An event as compared, for a message (the caller frees it). */
static char *shown(json_t *e, bool strip)
{
	if (e == NULL)
		return NULL;
	json_t *c = json_deep_copy(e);
	for (size_t i = 0; strip && i < sizeof unstored_keys / sizeof unstored_keys[0]; i++)
		json_object_del(c, unstored_keys[i]);
	char *s = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(c);
	return s;
}

/* A replay of actions through a fresh referee, as aud hears it. */
static json_t *replay_json(const struct store_game *g, const struct action *a, size_t n,
                           unsigned aud, char *err, size_t errlen)
{
	const struct ruleset *rs = ruleset_find(g->rules);
	char e[128];
	struct referee *r = rs ? referee_new(rs, g->fen[0] ? g->fen : NULL, e, sizeof e) : NULL;
	if (r == NULL) {
		failf(err, errlen, "cannot start a referee");
		return NULL;
	}
	json_t *arr = json_array();
	struct evlist out;
	evlist_init(&out);
	size_t i = 0;
	struct action begin;
	action_set(&begin, ACTION_BEGIN, -1, "");
	/* A re-imported record has no "begin": the referee's opening is the same. */
	if (n == 0 || a[0].kind != ACTION_BEGIN)
		referee_begin(r, &out);
	for (;; i++) {
		const struct action *done = i > 0 ? &a[i - 1] : &begin;
		for (size_t k = 0; k < out.n; k++)
			if (out.v[k].audience & aud) {
				/* the umpire's view: who heard the announcement in either
				 * copy; a player's or spectator's: event_told's */
				struct event told = out.v[k];
				told.audience = (uint8_t)(aud == AUD_UMPIRE ? event_heard(&out, k) : event_told(&out, k));
				json_t *j = announce_event(g->id, rs, &told, NULL, r, done);
				json_array_append_new(arr, j);
			}
		unsigned naud = 0;
		json_t *notice = i > 0 ? announce_notice(g->id, done, referee_plies(r), NULL, &naud) : NULL;
		if (notice && (naud & aud))
			json_array_append_new(arr, notice);
		else
			json_decref(notice);
		evlist_clear(&out);
		if (i == n)
			break;
		int st = referee_apply(r, &a[i], &out);
		if (st != REF_OK) {
			char lab[64];
			action_label(&a[i], lab, sizeof lab);
			failf(err, errlen, "action %zu (%s) refused: %s", i + 1, lab, referee_status_name(st));
			json_decref(arr);
			arr = NULL;
			break;
		}
	}
	evlist_free(&out);
	referee_free(r);
	return arr;
}

/* Compare two views; on a difference, say where in err. */
static int same(json_t *want, json_t *got, bool strip, const char *what, unsigned aud,
                char *err, size_t errlen)
{
	size_t a = 0, b = 0;
	for (size_t i = 1;; i++) {
		json_t *x = next_event(want, &a, strip), *y = next_event(got, &b, strip);
		if (x == NULL && y == NULL)
			return 0;
		if (x && y && same_event(x, y, strip))
			continue;
		char *sx = shown(x, strip), *sy = shown(y, strip);
		int rc = failf(err, errlen, "%s: %s event %zu differs: want %s, got %s", what,
		               audience_name(aud), i, sx ? sx : "(none)", sy ? sy : "(none)");
		free(sx);
		free(sy);
		return rc;
	}
}

static int check_game(struct store *st, const struct store_game *g, char *err, size_t errlen)
{
	char e[512];
	struct recover_result rr;
	struct action *acts = NULL;
	size_t nacts = 0;
	struct action *back = NULL;
	size_t nback = 0;
	char *pgn = NULL;
	int rc = -1;

	/* Recovery: the replay tells exactly what was stored. */
	if (recover_verify(st, g, &rr, e, sizeof e) != RECOVER_OK) {
		failf(err, errlen, "recovery: %s", e);
		return -1;
	}
	recover_result_free(&rr);

	if (recover_actions(st, g->id, &acts, &nacts) != RECOVER_OK) {
		failf(err, errlen, "reading the actions");
		goto out;
	}
	struct pgn_header h;
	pgn_header_init(&h);
	snprintf(h.rules, sizeof h.rules, "%s", g->rules);
	if (g->fen[0] && strcmp(g->fen, FEN_START) != 0)
		snprintf(h.fen, sizeof h.fen, "%s", g->fen);
	if (pgn_write(&h, acts, nacts, AUD_UMPIRE, &pgn, e, sizeof e) != 0) {
		failf(err, errlen, "pgn export: %s", e);
		goto out;
	}
	struct pgn_header h2;
	if (pgn_read(pgn, &h2, &back, &nback, e, sizeof e) != 0) {
		failf(err, errlen, "pgn re-import: %s", e);
		goto out;
	}
	for (size_t k = 0; k < AUD_COUNT; k++) {
		unsigned aud = audience_bits[k];
		char *filtered = NULL;
		json_t *stored = announce_stored(st, g, aud);
		json_t *view = announce_replay(st, g, aud, 0);
		json_t *re = replay_json(g, back, nback, aud, e, sizeof e);
		int bad = 0;
		if (stored == NULL || view == NULL)
			bad = failf(err, errlen, "view of %s unreadable", audience_name(aud));
		else if (re == NULL)
			bad = failf(err, errlen, "pgn re-import replay: %s", e);
		else if (same(stored, view, true, "view replay", aud, err, errlen) != 0 ||
		         same(stored, re, true, "pgn re-import", aud, err, errlen) != 0 ||
		         same(view, re, false, "pgn re-import against the view", aud, err, errlen) != 0)
			bad = -1;
		else if (pgn_write(&h, acts, nacts, aud, &filtered, e, sizeof e) != 0)
			bad = failf(err, errlen, "pgn export for %s: %s", audience_name(aud), e);
		free(filtered);
		json_decref(stored);
		json_decref(view);
		json_decref(re);
		if (bad)
			goto out;
	}
	rc = 0;
out:
	free(pgn);
	free(back);
	free(acts);
	return rc;
}

int replay_check_db(const char *path, char *err, size_t errlen)
{
	char e[256];
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	int64_t *ids = NULL;
	size_t n = 0, cap = 0;

	/* The game ids, read-only, straight from the file. */
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT id FROM games ORDER BY id", -1, &q, NULL) != SQLITE_OK) {
		failf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
		sqlite3_close(db);
		return -1;
	}
	while (sqlite3_step(q) == SQLITE_ROW) {
		ids = xgrow(ids, &cap, n + 1, sizeof *ids, 64);
		ids[n++] = sqlite3_column_int64(q, 0);
	}
	sqlite3_finalize(q);
	sqlite3_close(db);

	struct store *st = store_open(path, e, sizeof e);
	if (st == NULL) {
		free(ids);
		return failf(err, errlen, "%s: %s", path, e);
	}
	int checked = 0;
	for (size_t i = 0; i < n && checked >= 0; i++) {
		struct store_game g;
		char why[256], ge[1024];
		if (store_game_get(st, ids[i], &g) != STORE_OK) {
			checked = failf(err, errlen, "game %lld: unreadable", (long long)ids[i]);
			break;
		}
		/* A record the daemon refused (flagged) is a test's deliberate damage. */
		if (store_game_flagged(st, g.id, why, sizeof why) == STORE_OK)
			continue;
		if (check_game(st, &g, ge, sizeof ge) != 0) {
			checked = failf(err, errlen, "game %lld (%s): %s", (long long)g.id, g.rules, ge);
			break;
		}
		checked++;
	}
	store_close(st);
	free(ids);
	return checked;
}
