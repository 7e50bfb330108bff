/*
 * test_game_index.c — the live games by id (server/game.c: games_link,
 * game_find, game_bury): every request about a game finds it there, so
 * the lookup must be right as the index grows past its first size and as
 * games end and new ones start.  A real world (event base, store, the
 * batch's writer thread) and games started as the lobby starts them
 * (games_start); games end by resignation through game_act, as a
 * player's request does, and are buried when that commits.  Beside it,
 * each player's count of live games (games_user_count: `who`, profiles),
 * kept as games start and end, against the same model.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <event2/event.h>

#include "action.h"
#include "auth.h"
#include "check_main.h"
#include "config.h"
#include "conn.h"
#include "event.h"
#include "game.h"
#include "game_priv.h"
#include "log.h"
#include "server.h"
#include "store.h"
#include "tmpdb.h"

/* More than the index's first size, twice over: it grows twice. */
#define T_GAMES (2 * IDTABLE_FIRST + 22)

static struct tmpdb db;
static struct server srv;
/* Players: more than the count's first size twice over, so it grows and
 * its chains are shared.  Game k is between pair_of(k). */
#define T_USERS (2 * IDTABLE_FIRST + 11)
static int64_t user[T_USERS];

static void pair_of(size_t k, size_t *a, size_t *b)
{
	*a = k % T_USERS;
	*b = (k * 7 + 1 + k / T_USERS) % T_USERS;
	if (*b == *a)
		*b = (*a + 1) % T_USERS;
}

static void world_new(void)
{
	char err[512];
	struct store_options opt = { .synchronous = "off" };

	log_set_level(LOGL_WARN);
	tmpdb_make(&db, "gindex");
	srv = (struct server){ 0 };
	srv.cfg = config_new();
	ck_assert_ptr_nonnull(srv.base = event_base_new());
	srv.store = store_open_opts(db.path, &opt, err, sizeof err);
	ck_assert_msg(srv.store != NULL, "%s", err);
	srv.conns = connset_new();
	ck_assert_ptr_nonnull(srv.auth = auth_new(&srv));
	ck_assert_ptr_nonnull(srv.games = games_new(&srv));
	for (int u = 0; u < T_USERS; u++) {
		char name[24];
		snprintf(name, sizeof name, "player%d", u);
		ck_assert_int_eq(store_user_create(srv.store, name, "", 1, &user[u]), STORE_OK);
	}
}

static void world_free(void)
{
	games_free(srv.games);
	connset_free(&srv);
	auth_free(srv.auth);
	store_close(srv.store);
	event_base_free(srv.base);
	config_free(srv.cfg);
	tmpdb_remove(&db);
}

static int64_t start(size_t k)
{
	int64_t id = 0;
	size_t a, b;

	pair_of(k, &a, &b);
	ck_assert_int_eq(games_start(&srv, user[a], user[b], "icc", 0, 0, 0, 0, NULL, NULL, &id), 0);
	ck_assert_int_gt(id, 0);
	return id;
}

/* Every id of ids[0..n) is found, as itself, exactly when live[i]. */
static void check(const int64_t *ids, const bool *live, size_t n)
{
	size_t nlive = 0;

	for (size_t i = 0; i < n; i++) {
		const struct game *g = game_find(srv.games, ids[i]);
		if (live[i]) {
			ck_assert_msg(g != NULL && g->id == ids[i], "live game %lld not found",
			              (long long)ids[i]);
			nlive++;
		} else {
			ck_assert_msg(g == NULL, "ended game %lld still found", (long long)ids[i]);
		}
	}
	ck_assert_uint_eq(games_live_count(srv.games), nlive);
	/* Each player's live games. */
	int want[T_USERS] = { 0 };
	for (size_t i = 0; i < n; i++)
		if (live[i]) {
			size_t a, b;
			pair_of(i, &a, &b);
			want[a]++;
			want[b]++;
		}
	for (int u = 0; u < T_USERS; u++)
		ck_assert_int_eq(games_user_count(srv.games, user[u]), want[u]);
	ck_assert_int_eq(games_user_count(srv.games, user[T_USERS - 1] + 1), 0);
	ck_assert_ptr_null(game_find(srv.games, ids[n - 1] + 1000));
	ck_assert_ptr_null(game_find(srv.games, 0));
}

/* The live games i with i % every == rem resign, and are buried. */
static void resign_where(const int64_t *ids, bool *live, size_t n, size_t every, size_t rem)
{
	for (size_t i = 0; i < n; i++) {
		if (!live[i] || i % every != rem)
			continue;
		struct game *g = game_find(srv.games, ids[i]);
		ck_assert_int_eq(game_act(g, ACTION_END, i % 2 ? BLACK : WHITE,
		                          game_reason_name(REASON_RESIGNATION), NULL, NULL, NULL),
		                 0);
		live[i] = false;
	}
	games_flush(srv.games);
	event_base_loop(srv.base, EVLOOP_NONBLOCK);
}

START_TEST(found_as_it_grows_and_games_end)
{
	int64_t ids[2 * T_GAMES];
	bool live[2 * T_GAMES];
	size_t n = 0;

	world_new();
	ck_assert_ptr_null(game_find(srv.games, 1));
	for (; n < T_GAMES; n++) {
		ids[n] = start(n);
		live[n] = true;
		if (n % 17 == 0)
			check(ids, live, n + 1);
	}
	check(ids, live, n);
	/* Every third game resigns; each is buried when its end commits. */
	resign_where(ids, live, n, 3, 0);
	check(ids, live, n);
	/* New games after the ends: found beside the survivors. */
	for (size_t end = n + T_GAMES / 2; n < end; n++) {
		ids[n] = start(n);
		live[n] = true;
	}
	check(ids, live, n);
	/* Half the games end: many players' counts go to nothing, their
	 * neighbours' in the same chains stay. */
	resign_where(ids, live, n, 2, 1);
	check(ids, live, n);
	for (size_t end = n + 5; n < end; n++) {
		ids[n] = start(n);
		live[n] = true;
	}
	check(ids, live, n);
	world_free();
}
END_TEST

static Suite *game_index_suite(void)
{
	Suite *s = suite_create("game_index");
	TCase *tc = tcase_create("game_index");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, found_as_it_grows_and_games_end);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(game_index_suite)
