/*
 * fuzz_dispatch.c — protocol lines through dispatch_line, in process, on
 * connections that are logged in and in a live game, so that game
 * requests (move, any, list, draw, possible, game, history, ...) are
 * reached, not only the checks in front of them.
 *
 * The world is a real daemon without sockets: store (a scratch database,
 * synchronous=off), auth, lobby and games wired as main.c wires them, and
 * connections made with conn_attach() (server/conn.h, the one seam this
 * needs) over bufferevent pairs whose far ends this file drains (the
 * replay cache keeps every record here, a mark every 3 actions, so that
 * pages are read from marks; the daemon's keeps only long records).  Each
 * input gets a new game between two users and two new connections, one
 * per player: a line starting with "b " goes to Black's connection, any
 * other to White's; "@G" in a line stands for the game's id (ids grow
 * from input to input, the seeds must name this input's game).  After
 * each line the group commit is flushed
 * (games_flush) and the loop runs once, so answers and announcements are
 * encoded and written.  At the end the connections close and White
 * resigns the game.  Building the world costs a password hash (auth's
 * dummy), so one world serves WORLD_INPUTS inputs before it is rebuilt:
 * what one input leaves behind (a registered name, a seek) can reach the
 * next few only.
 */
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <unistd.h>

#include "announce.h"
#include "auth.h"
#include "config.h"
#include "conn.h"
#include "dispatch.h"
#include "fuzz_util.h"
#include "game.h"
#include "lobby.h"
#include "log.h"
#include "pgn_cache.h"
#include "server.h"
#include "store.h"

#define WORLD_INPUTS 256
#define LINES_MAX 64        /* lines of one input that are run */

struct world {
	struct server srv;
	char path[256];
	int64_t user[2];
	int inputs;
};

static struct world *world;

static void world_free(struct world *w)
{
	games_flush(w->srv.games);
	connset_free(&w->srv);
	games_free(w->srv.games);
	announce_cache_free(w->srv.replays);
	pgn_cache_free(w->srv.pgns);
	lobby_free(w->srv.lobby);
	auth_free(w->srv.auth);
	store_close(w->srv.store);
	event_base_free(w->srv.base);
	config_free(w->srv.cfg);
	char p[300];
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	for (size_t i = 0; i < 4; i++) {
		snprintf(p, sizeof p, "%s%s", w->path, suffix[i]);
		unlink(p);
	}
	free(w);
}

static struct world *world_new(void)
{
	struct world *w = calloc(1, sizeof *w);
	char err[512];
	const char *tmp = getenv("TMPDIR");

	if (w == NULL)
		abort();
	if (access("/dev/shm", W_OK) == 0)
		tmp = "/dev/shm";
	snprintf(w->path, sizeof w->path, "%s/krieg-fuzz-%d.db", tmp ? tmp : "/tmp", (int)getpid());
	unlink(w->path);
	w->srv.cfg = config_new();
	/* Every line is served: the bucket is the daemon's, not under test here. */
	FUZZ_ASSERT(config_set(w->srv.cfg, "rate_limit", "1000000", err, sizeof err) == 0, "%s", err);
	FUZZ_ASSERT(config_set(w->srv.cfg, "rate_burst", "1000000", err, sizeof err) == 0, "%s", err);
	FUZZ_ASSERT(config_set(w->srv.cfg, "store_synchronous", "off", err, sizeof err) == 0, "%s",
	            err);
	if ((w->srv.base = event_base_new()) == NULL)
		abort();
	struct store_options opt = { .synchronous = "off" };
	w->srv.store = store_open_opts(w->path, &opt, err, sizeof err);
	FUZZ_ASSERT(w->srv.store != NULL, "store: %s", err);
	w->srv.conns = connset_new();
	FUZZ_ASSERT((w->srv.auth = auth_new(&w->srv)) != NULL, "auth_new");
	FUZZ_ASSERT((w->srv.lobby = lobby_new(&w->srv)) != NULL, "lobby_new");
	FUZZ_ASSERT((w->srv.games = games_new(&w->srv)) != NULL, "games_new");
	/* The replay cache on every record, a mark every 3 actions (the
	 * daemon's keeps records of 1,024 actions and more). */
	w->srv.replays = announce_cache_new(2, 3, 0);
	w->srv.pgns = pgn_cache_new(PGN_CACHE_ENTRIES, PGN_CACHE_BYTES);
	conn_hook_add(&w->srv, lobby_conn_login, lobby_conn_closed);
	conn_hook_add(&w->srv, games_conn_login, games_conn_closed);
	conn_hook_add(&w->srv, chat_conn_login, NULL);
	static const char *const names[2] = { "white", "black" };
	for (int i = 0; i < 2; i++)
		FUZZ_ASSERT(store_user_create(w->srv.store, names[i], "", 1, &w->user[i]) == STORE_OK,
		            "user: %s", store_error(w->srv.store));
	return w;
}

static struct conn *attach(struct world *w, int color, struct bufferevent **far)
{
	struct bufferevent *pair[2];
	static const char *const names[2] = { "white", "black" };

	if (bufferevent_pair_new(w->srv.base, 0, pair) != 0)
		abort();
	*far = pair[1];
	bufferevent_enable(pair[1], EV_READ);
	struct conn *c = conn_attach(&w->srv, pair[0], names[color]);
	conn_set_hello(c);
	conn_set_user(c, w->user[color], names[color]);
	return c;
}

/* Answers and events written so far: read and dropped (the fuzzer checks
 * that producing them is sound; their content is the integration tests'). */
static void drain(struct bufferevent *far)
{
	struct evbuffer *in = bufferevent_get_input(far);

	evbuffer_drain(in, evbuffer_get_length(in));
}

static void settle(struct world *w, struct bufferevent *far[2])
{
	games_flush(w->srv.games);
	event_base_loop(w->srv.base, EVLOOP_NONBLOCK);
	drain(far[0]);
	drain(far[1]);
}

static void at_exit_free(void)
{
	if (world != NULL)
		world_free(world);
	world = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int once;

	if (!once) {
		once = 1;
		log_set_level(LOGL_ERROR);
		if (evthread_use_pthreads() != 0)
			abort();
		atexit(at_exit_free);
	}
	if (world == NULL || world->inputs >= WORLD_INPUTS) {
		if (world != NULL)
			world_free(world);
		world = world_new();
	}
	struct world *w = world;
	w->inputs++;

	int64_t game = 0;
	FUZZ_ASSERT(games_start(&w->srv, w->user[0], w->user[1], "icc", 3600 * 1000, 0, 0, 0,
	                        &game) == 0, "games_start");
	struct bufferevent *far[2];
	uint64_t id[2];
	id[0] = conn_id(attach(w, 0, &far[0]));
	id[1] = conn_id(attach(w, 1, &far[1]));
	settle(w, far);

	const char *p = (const char *)data, *end = p + size;
	for (int lines = 0; p < end && lines < LINES_MAX; lines++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		int who = len >= 2 && p[0] == 'b' && p[1] == ' ';
		const char *line = who ? p + 2 : p;
		size_t n = who ? len - 2 : len;
		struct conn *c = conn_find(&w->srv, id[who]);

		/* The transport's framing: no line reaches dispatch_line longer
		 * than PROTO_LINE_MAX with its newline. */
		if (c != NULL && n + 1 <= PROTO_LINE_MAX) {
			/* dispatch_line gets the line without its newline, not
			 * NUL-terminated: an exact-size copy lets ASan see any
			 * read past its end. */
			char *copy = malloc(n + 32), gid[24];
			size_t k = 0;
			int gn = snprintf(gid, sizeof gid, "%lld", (long long)game);
			if (copy == NULL)
				abort();
			for (size_t i = 0; i < n; i++) {
				if (line[i] == '@' && i + 1 < n && line[i + 1] == 'G' && k + (size_t)gn <= n + 31) {
					memcpy(copy + k, gid, (size_t)gn);
					k += (size_t)gn;
					i++;
				} else if (k < n + 32) {
					copy[k++] = line[i];
				}
			}
			char *exact = malloc(k ? k : 1);
			if (exact == NULL)
				abort();
			memcpy(exact, copy, k);
			free(copy);
			dispatch_line(c, exact, k);
			free(exact);
		}
		settle(w, far);
		p = nl != NULL ? nl + 1 : end;
	}

	for (int i = 0; i < 2; i++) {
		struct conn *c = conn_find(&w->srv, id[i]);
		if (c != NULL)
			conn_close(c, "fuzz input done");
	}
	settle(w, far);
	/* End the game so the world does not fill up with live ones. */
	struct bufferevent *cf[2];
	struct conn *c = attach(w, 0, &cf[0]);
	cf[1] = cf[0];
	char resign[96];
	int rn = snprintf(resign, sizeof resign, "{\"type\":\"resign\",\"game\":%lld,\"id\":0}",
	                  (long long)game);
	dispatch_line(c, resign, (size_t)rn);
	settle(w, cf);
	conn_close(c, "fuzz cleanup");
	settle(w, cf);
	/* The pairs' far ends: the near ends went with their connections. */
	bufferevent_free(far[0]);
	bufferevent_free(far[1]);
	bufferevent_free(cf[0]);
	return 0;
}
