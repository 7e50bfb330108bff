/*
 * main.c — kriegd: flags, config, signals, and the wiring of the modules
 * around one event loop.
 *
 *   kriegd [--config FILE] [--listen ADDR:PORT]... [--state-dir DIR] [--set KEY=VALUE]...
 *
 * Runs in the foreground and logs to stderr.  SIGTERM/SIGINT: stop
 * accepting, close every connection, free everything, exit 0.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "auth.h"
#include "backup.h"
#include "config.h"
#include "conn.h"
#include "game.h"
#include "listener.h"
#include "lobby.h"
#include "log.h"
#include "server.h"
#include "store.h"
#include "tls.h"

#define CLI_SETS_MAX 64

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: kriegd [--config FILE] [--listen ADDR:PORT]... [--state-dir DIR]\n"
	        "              [--set KEY=VALUE]...\n"
	        "  --config FILE      settings, 'key = value' lines (see kriegd.conf.example)\n"
	        "  --listen ADDR:PORT 1.2.3.4:7474 or [::1]:7474; repeatable; replaces the\n"
	        "                     config's and the default 127.0.0.1:7474 + [::1]:7474\n"
	        "  --state-dir DIR    database and generated certificate (default ./var)\n"
	        "  --set KEY=VALUE    one setting, as in the config file; wins over it\n"
	        "       kriegd [--config FILE] [--state-dir DIR] backup FILE\n"
	        "  backup FILE        copy the database online to FILE (see deploy/BACKUP.md)\n");
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct server *srv = arg;

	log_info("signal=%d shutting down", (int)sig);
	listener_free_all(srv);
	/* This turn's moves are committed and announced before the connections go. */
	games_flush(srv->games);
	connset_free(srv);
	event_base_loopexit(srv->base, NULL);
}

static void open_listeners(struct server *srv)
{
	static const char *const defaults[] = { "127.0.0.1:7474", "[::1]:7474" };
	const struct config *cfg = srv->cfg;
	const char *const *addrs = defaults;
	size_t n = sizeof defaults / sizeof defaults[0], opened = 0;
	char err[512];

	if (cfg->nlisten > 0) {
		addrs = (const char *const *)cfg->listen;
		n = cfg->nlisten;
	}
	for (size_t i = 0; i < n; i++) {
		bool unavailable;

		if (listener_open(srv, addrs[i], &unavailable, err, sizeof err) == 0) {
			opened++;
			continue;
		}
		/* A host without IPv6 (or without that address) still serves the rest. */
		if (unavailable)
			log_warnx("%s", err);
		else
			fatalx("%s", err);
	}
	if (opened == 0)
		fatalx("no address to listen on");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "listen", required_argument, NULL, 'l' },
		{ "state-dir", required_argument, NULL, 's' },
		{ "set", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config_file = NULL, *state_dir = NULL;
	const char *listens[CONFIG_LISTEN_MAX], *sets[CLI_SETS_MAX];
	size_t nlistens = 0, nsets = 0;
	struct server srv;
	char err[512], path[4096];
	int ch;

	memset(&srv, 0, sizeof srv);
	while ((ch = getopt_long(argc, argv, "c:l:s:o:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			config_file = optarg;
			break;
		case 'l':
			if (nlistens >= CONFIG_LISTEN_MAX)
				fatalx("more than %d --listen", CONFIG_LISTEN_MAX);
			listens[nlistens++] = optarg;
			break;
		case 's':
			state_dir = optarg;
			break;
		case 'o':
			if (nsets >= CLI_SETS_MAX)
				fatalx("more than %d --set", CLI_SETS_MAX);
			sets[nsets++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("%s\n", KRIEGD_SERVER_NAME);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	/* `kriegd [flags] backup FILE`: an online copy of the database (backup.c). */
	bool backup = optind + 2 == argc && strcmp(argv[optind], "backup") == 0;
	if (optind != argc && !backup) {
		usage(stderr);
		return 2;
	}

	/* Defaults, then the file, then the command line. */
	struct config *cfg = config_new();
	srv.cfg = cfg;
	if (config_file != NULL && config_load(cfg, config_file, err, sizeof err) != 0)
		fatalx("%s", err);
	for (size_t i = 0; i < nsets; i++) {
		char key[64];
		const char *eq = strchr(sets[i], '=');

		if (eq == NULL || (size_t)(eq - sets[i]) >= sizeof key)
			fatalx("--set %s: expected KEY=VALUE", sets[i]);
		memcpy(key, sets[i], (size_t)(eq - sets[i]));
		key[eq - sets[i]] = '\0';
		if (config_set(cfg, key, eq + 1, err, sizeof err) != 0)
			fatalx("--set: %s", err);
	}
	if (state_dir != NULL && config_set(cfg, "state_dir", state_dir, err, sizeof err) != 0)
		fatalx("%s", err);
	if (nlistens > 0) {
		config_clear_listen(cfg);
		for (size_t i = 0; i < nlistens; i++)
			if (config_set(cfg, "listen", listens[i], err, sizeof err) != 0)
				fatalx("%s", err);
	}
	log_set_level((enum log_level)cfg->log_level);
	/* Everything kriegd creates (the database and its -wal/-shm, the
	 * generated key and certificate, a backup) holds password hashes,
	 * umpire records or secrets: readable by its owner only. */
	umask(077);
	if (backup) {
		int status = backup_main(cfg, argv[optind + 1]);
		config_free(cfg);
		return status;
	}

	/* A client that vanishes must not kill the daemon with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	if (mkdir(cfg->state_dir, 0700) != 0 && errno != EEXIST)
		fatal("mkdir %s", cfg->state_dir);

	/* auth's hashing workers hand results back to the loop from threads. */
	if (evthread_use_pthreads() != 0)
		fatalx("evthread_use_pthreads failed");
	if ((srv.base = event_base_new()) == NULL)
		fatalx("event_base_new failed");
	/* The database first: a corrupt, foreign or newer one is refused
	 * before anything (a generated certificate) is written. */
	if (cfg->db_file != NULL)
		snprintf(path, sizeof path, "%s", cfg->db_file);
	else if ((size_t)snprintf(path, sizeof path, "%s/kriegd.db", cfg->state_dir) >= sizeof path)
		fatalx("state directory path too long");
	struct store_options sopt = { 0 };
	sopt.synchronous = cfg->store_synchronous;
	sopt.busy_timeout_ms = cfg->busy_timeout_ms;
	if ((srv.store = store_open_opts(path, &sopt, err, sizeof err)) == NULL)
		fatalx("store %s: %s", path, err);
	if ((srv.tls = tls_new(cfg, err, sizeof err)) == NULL)
		fatalx("tls: %s", err);
	srv.conns = connset_new();
	if ((srv.auth = auth_new(&srv)) == NULL)
		fatalx("auth_new failed");
	if ((srv.lobby = lobby_new(&srv)) == NULL)
		fatalx("lobby_new failed");
	if ((srv.games = games_new(&srv)) == NULL)
		fatalx("games_new failed");
	/* The lobby's first: a login hears its challenges, then its games. */
	conn_hook_add(&srv, lobby_conn_login, lobby_conn_closed);
	conn_hook_add(&srv, games_conn_login, games_conn_closed);
	if (cfg->abandon_grace_ms > 0)
		games_set_grace(srv.games, cfg->abandon_grace_ms);
	if (games_recover(srv.games) != 0)
		fatalx("could not recover the unfinished games");

	struct event *sigterm = evsignal_new(srv.base, SIGTERM, on_signal, &srv);
	struct event *sigint = evsignal_new(srv.base, SIGINT, on_signal, &srv);
	if (sigterm == NULL || sigint == NULL || evsignal_add(sigterm, NULL) != 0 ||
	    evsignal_add(sigint, NULL) != 0)
		fatalx("cannot install signal handlers");

	/* Last, so a client never reaches a half-started daemon. */
	open_listeners(&srv);
	log_info("ready database=%s synchronous=%s max_connections=%d", path, cfg->store_synchronous,
	         cfg->max_conns);

	if (event_base_dispatch(srv.base) < 0)
		fatalx("event loop failed");

	listener_free_all(&srv);
	games_flush(srv.games);
	connset_free(&srv);
	games_free(srv.games);
	lobby_free(srv.lobby);
	auth_free(srv.auth);
	store_close(srv.store);
	event_free(sigterm);
	event_free(sigint);
	tls_free(srv.tls);
	event_base_free(srv.base);
	libevent_global_shutdown();
	config_free(cfg);
	log_info("stopped");
	return 0;
}
