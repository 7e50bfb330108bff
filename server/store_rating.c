/*
 * store_rating.c — ratings and their history (store.h, "Ratings"; schema
 * 7), on the connection, statements and sticky error of store.c
 * (store_priv.h).  The arithmetic is rating.c's; this file only reads the
 * two players' ratings, asks rating_game() and writes the answer.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "rating.h"
#include "store_priv.h"

int store_rating_get(struct store *st, int64_t user, const char *pool, struct store_rating *out)
{
	int temp, rc, step;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_RATING_GET, &temp)) == NULL)
		return STORE_ERROR;
	memset(out, 0, sizeof *out);
	out->user = user;
	sqlite3_bind_int64(s, 1, user);
	if (store_bind_text(s, 2, pool, RATING_POOL_MAX) != SQLITE_OK) {
		rc = store_fail(st, "rating get: pool name too long");
		goto done;
	}
	step = sqlite3_step(s);
	if (step == SQLITE_ROW) {
		out->r = sqlite3_column_double(s, 0);
		out->rd = sqlite3_column_double(s, 1);
		out->vol = sqlite3_column_double(s, 2);
		out->games = sqlite3_column_int(s, 3);
		rc = STORE_OK;
	} else if (step == SQLITE_DONE) {
		rc = STORE_NOT_FOUND;
	} else {
		rc = store_fail_db(st, "rating get");
	}
done:
	store_stmt_done(s, temp);
	return rc;
}

/* The rating a user plays at in pool: the stored one or a fresh one. */
static int rating_of(struct store *st, int64_t user, const char *pool, struct rating *out)
{
	struct store_rating sr;
	int rc = store_rating_get(st, user, pool, &sr);
	if (rc == STORE_NOT_FOUND) {
		*out = rating_initial();
		return STORE_OK;
	}
	if (rc == STORE_OK)
		*out = (struct rating){ sr.r, sr.rd, sr.vol };
	return rc;
}

static int rating_put(struct store *st, int64_t game, int64_t user, const char *pool,
                      const struct rating *before, const struct rating *after)
{
	int temp, rc;
	sqlite3_stmt *s;
	int64_t now = (int64_t)time(NULL);

	if ((s = store_stmt(st, S_RATING_PUT, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, user);
	sqlite3_bind_text(s, 2, pool, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(s, 3, after->r);
	sqlite3_bind_double(s, 4, after->rd);
	sqlite3_bind_double(s, 5, after->vol);
	sqlite3_bind_int64(s, 6, now);
	rc = store_run(st, s, "rating put");
	store_stmt_done(s, temp);
	if (rc != STORE_OK)
		return rc;
	if ((s = store_stmt(st, S_RATING_HISTORY, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, user);
	sqlite3_bind_text(s, 2, pool, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 3, game);
	sqlite3_bind_double(s, 4, before->r);
	sqlite3_bind_double(s, 5, before->rd);
	sqlite3_bind_double(s, 6, before->vol);
	sqlite3_bind_double(s, 7, after->r);
	sqlite3_bind_double(s, 8, after->rd);
	sqlite3_bind_double(s, 9, after->vol);
	sqlite3_bind_int64(s, 10, now);
	rc = store_run(st, s, "rating history");
	store_stmt_done(s, temp);
	return rc;
}

int store_rating_game(struct store *st, int64_t game, int64_t white, int64_t black,
                      const char *pool, double score_white)
{
	struct rating w, b, nw, nb;

	if (strlen(pool) >= RATING_POOL_MAX)
		return store_fail(st, "rating game: pool name too long");
	if (store_begin(st) != STORE_OK)
		return STORE_ERROR;
	if (rating_of(st, white, pool, &w) != STORE_OK || rating_of(st, black, pool, &b) != STORE_OK)
		goto fail;
	if (rating_game(&w, &b, score_white, &nw, &nb) != 0) {
		store_fail(st, "rating game=%lld: the ratings do not compute", (long long)game);
		goto fail;
	}
	if (rating_put(st, game, white, pool, &w, &nw) != STORE_OK ||
	    rating_put(st, game, black, pool, &b, &nb) != STORE_OK)
		goto fail;
	return store_commit(st);
fail:
	store_rollback(st);
	return STORE_ERROR;
}

int store_standings_count(struct store *st, const char *pool, int64_t *n)
{
	int temp, rc;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_STANDINGS_COUNT, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, pool, -1, SQLITE_TRANSIENT);
	if ((rc = store_step_row(st, s, "standings count")) == STORE_OK)
		*n = sqlite3_column_int64(s, 0);
	store_stmt_done(s, temp);
	return rc;
}

int store_standings(struct store *st, const char *pool, int64_t offset,
                    int (*fn)(const struct store_rating *r, void *arg), void *arg)
{
	int temp, rc = STORE_OK, step;
	sqlite3_stmt *s;

	if (!store_enter(st))
		return STORE_ERROR;
	if ((s = store_stmt(st, S_STANDINGS, &temp)) == NULL)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, pool, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 2, offset);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_rating r;
		memset(&r, 0, sizeof r);
		r.user = sqlite3_column_int64(s, 0);
		if ((rc = store_col_text(st, s, 1, r.name, sizeof r.name, "standings")) != STORE_OK)
			break;
		r.r = sqlite3_column_double(s, 2);
		r.rd = sqlite3_column_double(s, 3);
		r.vol = sqlite3_column_double(s, 4);
		r.games = sqlite3_column_int(s, 5);
		r.bot = sqlite3_column_int(s, 6) != 0;
		if (fn(&r, arg) != 0)
			break;
	}
	if (rc == STORE_OK && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = store_fail_db(st, "standings");
	store_stmt_done(s, temp);
	return rc;
}
