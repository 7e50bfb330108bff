/*
 * main.c — kriegd: flags, config, signals, and the wiring of the modules
 * around one event loop.
 *
 *   kriegd [--config FILE] [--listen ADDR:PORT]... [--state-dir DIR] [--set KEY=VALUE]...
 *   kriegd --check-config [flags]
 *
 * Runs in the foreground and logs to stderr (kriegd(8)).  SIGTERM/SIGINT:
 * stop accepting, close every connection, free everything, exit 0.
 * SIGHUP: build the settings again from the same file and flags and
 * reload the certificate; live connections and games go on.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>
#include <systemd/sd-daemon.h>

#include "announce.h"
#include "auth.h"
#include "backup.h"
#include "config.h"
#include "conn.h"
#include "game.h"
#include "listener.h"
#include "lobby.h"
#include "log.h"
#include "mstime.h"
#include "pgn_cache.h"
#include "reader.h"
#include "server.h"
#include "service.h"
#include "stall.h"
#include "store.h"
#include "tls.h"
#include "trim.h"
#include "useradm.h"
#include "web.h"
#include "xmalloc.h"

#define CLI_SETS_MAX 64
#define DRAIN_TICK_MS 20   /* stopping: how often to look whether the connections are gone */

/* The settings' sources on the command line, kept for SIGHUP. */
struct cli {
	const char *config_file, *state_dir;
	const char *listens[CONFIG_LISTEN_MAX], *sets[CLI_SETS_MAX];
	size_t nlistens, nsets;
};

/* What the signal callbacks need besides the server. */
struct daemon {
	struct server *srv;
	const struct cli *cli;
	struct service *svc;
	struct event *drain;      /* stopping: till the connections are gone */
	int64_t drain_until;      /* mstime_mono(): gone or not, the loop ends */
	int passed;               /* listening sockets from the service manager */
};

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: kriegd [--config FILE] [--listen ADDR:PORT]... [--state-dir DIR]\n"
	        "              [--set KEY=VALUE]... [--check-config]\n"
	        "  -c, --config FILE      settings, 'key = value' lines (see kriegd.conf.example)\n"
	        "  -l, --listen ADDR:PORT 1.2.3.4:7474 or [::1]:7474; repeatable; replaces the\n"
	        "                         config's and the default 127.0.0.1:7474 + [::1]:7474\n"
	        "  -s, --state-dir DIR    database and generated certificate (default ./var)\n"
	        "  -o, --set KEY=VALUE    one setting, as in the config file; wins over it (a\n"
	        "                         repeatable key's --set values replace the file's)\n"
	        "  --check-config         validate the settings (and certificate), print them,\n"
	        "                         exit; no subcommand with it\n"
	        "  -h, --help             this text\n"
	        "       kriegd -V | --version   the release and the protocol it speaks\n"
	        "       kriegd [--config FILE] [--state-dir DIR] backup FILE\n"
	        "  backup FILE        copy the database online to FILE (see deploy/BACKUP.md)\n"
	        "       kriegd [--config FILE] [--state-dir DIR] user add NAME [--role ROLE]\n"
	        "              [--bot] [--must-change] [--password-stdin] | role NAME ROLE\n"
	        "              | bot NAME on|off | passwd NAME [--must-change] [--password-stdin]\n"
	        "              | disable NAME | enable NAME | list\n"
	        "  user ...           administer accounts, also while the daemon runs (ROLE:\n"
	        "                     player, umpire or admin; --bot: a computer player's;\n"
	        "                     --must-change: a new password at the next login)\n");
}

/* Defaults, then the file, then the command line.  NULL with err on a
 * bad file or flag. */
static struct config *config_build(const struct cli *cli, char *err, size_t errlen)
{
	struct config *cfg = config_new();
	char msg[512];

	if (cli->config_file != NULL && config_load(cfg, cli->config_file, err, errlen) != 0)
		goto fail;
	/* Each --set as the file's line reads ("key = value" too): the keys
	 * kept, to tell a repeatable key's first --set from its next. */
	char keys[CLI_SETS_MAX][64];
	for (size_t i = 0; i < cli->nsets; i++) {
		char *text = xstrdup(cli->sets[i]), *key, *value;
		if (config_split(text, &key, &value) != 0 || key[0] == '\0' ||
		    strlen(key) >= sizeof keys[i]) {
			snprintf(err, errlen, "--set %s: expected KEY=VALUE", cli->sets[i]);
			free(text);
			goto fail;
		}
		snprintf(keys[i], sizeof keys[i], "%s", key);
		/* A repeatable key's first --set replaces the file's values (the
		 * command line wins, as for every other key); its next add. */
		bool first = true;
		for (size_t k = 0; k < i && first; k++)
			first = strcmp(keys[k], key) != 0;
		if (first)
			config_clear_list(cfg, key);
		int rc = config_set(cfg, key, value, msg, sizeof msg);
		free(text);
		if (rc != 0) {
			snprintf(err, errlen, "--set: %s", msg);
			goto fail;
		}
	}
	if (cli->state_dir != NULL && config_set(cfg, "state_dir", cli->state_dir, err, errlen) != 0)
		goto fail;
	if (cli->nlistens > 0) {
		config_clear_listen(cfg);
		for (size_t i = 0; i < cli->nlistens; i++)
			if (config_set(cfg, "listen", cli->listens[i], err, errlen) != 0)
				goto fail;
	}
	if (config_validate(cfg, msg, sizeof msg) != 0) {
		/* Two settings that disagree: the file they may be in named. */
		if (cli->config_file != NULL)
			snprintf(err, errlen, "%s: %s", cli->config_file, msg);
		else
			snprintf(err, errlen, "%s", msg);
		goto fail;
	}
	return cfg;
fail:
	config_free(cfg);
	return NULL;
}

/* Is path's directory (dirname(3): "." without a '/', "state/"'s parent
 * for "state/") one?  0 if it is, -1 if surely not (missing, or not a
 * directory), 1 if this user cannot tell. */
static int dir_of(const char *path)
{
	struct stat st;
	char *copy = xstrdup(path);   /* dirname may write into it */
	int rc = stat(dirname(copy), &st) == 0 ? (S_ISDIR(st.st_mode) ? 0 : -1)
	         : errno == ENOENT || errno == ENOTDIR ? -1 : 1;
	free(copy);
	return rc;
}

/*
 * The paths the settings name, where the daemon will use them: at
 * --check-config, the start and a reload.  --check-config passed a
 * state_dir or database whose directory did not exist (the start then
 * failed naming no setting) and a web_root without the client's files
 * (found by every visitor: admin probe).  Only what is surely wrong: a
 * directory the checking user may not read is the service's to judge.
 */
static int paths_check(const struct config *cfg, const struct config *running, char *err,
                       size_t errlen)
{
	struct stat st;
	if (stat(cfg->state_dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "state_dir = %s: not a directory", cfg->state_dir);
			return -1;
		}
	} else if (errno == ENOENT && dir_of(cfg->state_dir) < 0) {
		snprintf(err, errlen, "state_dir = %s: its parent directory does not exist (kriegd "
		         "makes the last directory alone)", cfg->state_dir);
		return -1;
	}
	if (cfg->db_file != NULL && dir_of(cfg->db_file) < 0) {
		snprintf(err, errlen, "database = %s: its directory does not exist", cfg->db_file);
		return -1;
	}
	if (cfg->web_root != NULL && web_root_check(cfg->web_root, err, errlen) != 0) {
		/* A reload keeping the running web_root is not refused for it:
		 * a certificate's renewal would be, for a file gone (a review). */
		if (running == NULL || running->web_root == NULL ||
		    strcmp(running->web_root, cfg->web_root) != 0)
			return -1;
		log_warnx("%s (the running web_root, kept)", err);
	}
	return 0;
}

/* A socket the service manager passed: bound beyond loopback?  Its
 * address into name. */
static bool passed_public(int fd, char *name, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof ss;
	char host[INET6_ADDRSTRLEN] = "?";

	if (getsockname(fd, (struct sockaddr *)&ss, &sslen) != 0)
		return false;
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;
		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof host);
		snprintf(name, len, "%s:%u", host, ntohs(s4->sin_port));
		return ntohl(s4->sin_addr.s_addr) >> 24 != 127;
	}
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;
		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof host);
		snprintf(name, len, "[%s]:%u", host, ntohs(s6->sin6_port));
		return !IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
	}
	return false;   /* a Unix socket: this host's */
}

/*
 * Without cert and key the daemon serves its development certificate,
 * self-signed for localhost: right on loopback, a warning on a listener
 * beyond it (at start and at each reload: cert can be unset by one).  A
 * browser shows its certificate warning; a line client cannot verify it
 * either, only pin it on first use.  passed: the service manager's
 * sockets, which replace listen.
 */
static void warn_dev_cert(const struct config *cfg, int passed)
{
	static const char *const dev = "beyond loopback with the development certificate "
	                               "(self-signed, for localhost)";
	static const char *const line = "clients cannot verify it, only pin it on first use; "
	                                "set cert and key";
	char name[INET6_ADDRSTRLEN + 16];

	if (cfg->cert_file != NULL)
		return;
	for (int i = 0; i < passed; i++)
		if (passed_public(SD_LISTEN_FDS_START + i, name, sizeof name))
			log_warnx("listen %s (passed by the service manager): %s: %s", name, dev, line);
	for (size_t i = 0; passed == 0 && i < cfg->nlisten; i++)
		if (!listener_host_loopback(cfg->listen[i]))
			log_warnx("listen %s: %s: %s", cfg->listen[i], dev, line);
	for (size_t i = 0; i < cfg->nlisten_web; i++)
		if (!listener_host_loopback(cfg->listen_web[i]))
			log_warnx("listen_web %s: %s: browsers will warn; set cert and key",
			          cfg->listen_web[i], dev);
}

/* The session ticket key's timer (tls.h): every TLS_TICKET_KEY_MS, or
 * KRIEGD_TICKET_KEY_MS milliseconds (a test's hook). */
static void rotate_ticket_key(evutil_socket_t fd, short what, void *arg)
{
	struct server *srv = arg;

	(void)fd;
	(void)what;
	if (tls_rotate_ticket_key(srv->tls) == 0)
		log_debug("tls: session ticket key rotated");
}

static struct event *ticket_timer_new(struct server *srv)
{
	const char *env = getenv("KRIEGD_TICKET_KEY_MS");
	long ms = env != NULL && atol(env) > 0 ? atol(env) : TLS_TICKET_KEY_MS;
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	struct event *ev = event_new(srv->base, -1, EV_PERSIST, rotate_ticket_key, srv);

	if (ev == NULL || event_add(ev, &tv) != 0)
		fatalx("cannot start the session ticket key timer");
	return ev;
}

/*
 * SIGHUP: the settings and the certificate again.  All or nothing: a bad
 * file or certificate is logged and everything stays as it was.  Modules
 * read srv->cfg when they use a setting, so swapping it is the reload;
 * what is fixed at start keeps its running value and is named.
 */
static void on_reload(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *dm = arg;
	struct server *srv = dm->srv;
	char err[1024], fixed[256], kept[1024] = "";
	struct config *next;

	service_reloading(dm->svc);
	log_info("signal=%d reloading config=%s", (int)sig,
	         dm->cli->config_file != NULL ? dm->cli->config_file : "(none)");
	if ((next = config_build(dm->cli, err, sizeof err)) == NULL) {
		log_msg(LOGL_ERROR, "reload failed, keeping the running settings: %s", err);
		goto out;
	}
	/* The file's values before the running ones are put back, for the
	 * warning (it named the settings alone: admin probe). */
	char *asked = config_text(next);
	config_keep_restart_only(next, srv->cfg, fixed, sizeof fixed);
	if (asked != NULL && fixed[0] != '\0')
		config_restart_only_words(asked, srv->cfg, fixed, kept, sizeof kept);
	free(asked);
	if (paths_check(next, srv->cfg, err, sizeof err) != 0) {
		log_msg(LOGL_ERROR, "reload failed, keeping the running settings: %s", err);
		config_free(next);
		goto out;
	}
	if (tls_reload(srv->tls, next, err, sizeof err) != 0) {
		log_msg(LOGL_ERROR, "reload failed, keeping the running settings and certificate: %s",
		        err);
		config_free(next);
		goto out;
	}
	if (fixed[0] != '\0')
		log_warnx("reload: changed settings that take effect only on restart: %s; running on: %s",
		          fixed, kept);
	char changed[1024];
	config_changed_names(srv->cfg, next, changed, sizeof changed);
	config_free(srv->cfg);
	srv->cfg = next;
	log_set_level((enum log_level)next->log_level);
	games_set_grace(srv->games, next->abandon_grace_ms);
	games_set_untimed_grace(srv->games, next->untimed_abandon_grace_ms);
	auth_reconfigure(srv);
	warn_dev_cert(next, dm->passed);
	log_info("reloaded sha256=%s changed=%s", tls_fingerprint(srv->tls),
	         changed[0] != '\0' ? changed : "none");
out:
	/* Back to READY either way: the daemon serves, with old or new settings. */
	service_ready(dm->svc);
}

/* Stopping: the loop ends once every connection has its output out
 * (connset_drained), or after close_linger at the latest (a peer that
 * does not read). */
static void drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *dm = arg;

	if (connset_drained(dm->srv) || mstime_mono() >= dm->drain_until)
		event_base_loopexit(dm->srv->base, NULL);
}

/* An upgrade can take minutes (deploy/BACKUP.md): the journal says why
 * the start waits. */
static void upgrading(const char *path, int64_t from, int to)
{
	if (from == 0)   /* a new database: nothing to upgrade, nothing to read about */
		log_info("database=%s new: creating schema version %d", path, to);
	else
		log_info("database=%s upgrading schema from version %lld to %d (deploy/BACKUP.md)",
		         path, (long long)from, to);
}

/* One daemon a database: a second kriegd on the same file (another port,
 * the same state directory by mistake, a link to the file) would recover
 * the same games and serve them beside the first, each with its own
 * board in memory (one refusing what the other stored), or write its
 * restart's clock charges into games the first is playing before it
 * found its port taken.  So the daemon holds an exclusive flock(2) on the
 * database file itself (whatever the path or link it is reached by) from
 * before SQLite opens it until it exits; SQLite's own locks are fcntl(2)
 * locks, which flock does not touch on Linux.  The descriptor is closed
 * only after the store (closing a descriptor of the file would drop
 * SQLite's locks of this process).  Not `kriegd user` or `backup`, which
 * work beside a running daemon. */
static int hold_database(const char *db, bool *made)
{
	*made = access(db, F_OK) != 0 && errno == ENOENT;   /* a new database: empty, and ours */
	int fd = open(db, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		fatal("open %s", db);
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EWOULDBLOCK)
			fatalx("%s: another kriegd serves this database; stop it first", db);
		fatal("flock %s", db);
	}
	/* The umask made a new one private; one put back by hand (a restored
	 * backup, a copy) keeps its mode, and SQLite gives its -wal and -shm
	 * the same. */
	struct stat st;
	if (fstat(fd, &st) == 0 && (st.st_mode & 077) != 0)
		log_warnx("database=%s is readable by group or others (mode %04o): it holds password "
		          "hashes and every game's hidden moves; chmod 600 it (and its -wal and -shm)",
		          db, (unsigned)(st.st_mode & 07777));
	return fd;
}

/* --check-config: the database the start would open, read only.  An
 * upgrade it would make is said now, so that the backup is taken before
 * the restart (the upgrade probe: CLUB.md runs --check-config first, and
 * it said nothing of one); one it would refuse fails the check.  One this
 * user cannot read is said, not failed (the settings are what is checked:
 * a review). */
static int check_database(const struct config *cfg, char *err, size_t errlen)
{
	char path[4096];
	int64_t version = 0;
	bool wal = false;
	if (!config_db_path(cfg, path, sizeof path)) {
		snprintf(err, errlen, "database path too long");
		return -1;
	}
	switch (store_peek_version(path, &version, &wal, err, errlen)) {
	case STORE_PEEK_REFUSED:
		return -1;
	case STORE_PEEK_UNREAD:
		log_warnx("the database was not looked at (%s): the settings are checked", err);
		return 0;
	case STORE_PEEK_OK:
		if (version > 0 && version < STORE_SCHEMA_VERSION)
			log_warnx("database=%s is at schema version %lld%s: this kriegd upgrades it to %d at "
			          "its start, in place; back it up first (deploy/BACKUP.md \"Upgrades and "
			          "schema versions\")", path, (long long)version,
			          wal ? " as its file says (its -wal, not read, may hold later commits)" : "",
			          STORE_SCHEMA_VERSION);
		return 0;
	default:
		return 0;
	}
}

/* stall.h: the time the loop stood is charged to nobody's silence. */
static void server_stalled(void *arg, int64_t ms)
{
	struct server *srv = arg;
	games_stalled(srv->games, ms);
	conn_stalled(srv, ms);
	web_stalled(srv);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *dm = arg;
	struct server *srv = dm->srv;

	if (dm->drain != NULL) {   /* a second signal: stop now */
		log_info("signal=%d stopping now", (int)sig);
		event_base_loopexit(srv->base, NULL);
		return;
	}
	service_stopping(dm->svc);
	log_info("signal=%d shutting down", (int)sig);
	listener_free_all(srv);
	/* This turn's moves are committed, and what they announced is sent
	 * out, before each connection's close_notify (connset_drain). */
	games_flush(srv->games);
	games_stop(srv->games);
	web_free(srv->web);
	srv->web = NULL;
	connset_drain(srv);
	struct timeval tick = mstime_timeval(DRAIN_TICK_MS);
	dm->drain_until = mstime_mono() + srv->cfg->linger_ms + DRAIN_TICK_MS;
	if ((dm->drain = event_new(srv->base, -1, EV_PERSIST, drain_cb, dm)) == NULL ||
	    event_add(dm->drain, &tick) != 0)
		fatalx("cannot wait for the connections to close");
	drain_cb(-1, 0, dm);
}

/* The web door (web.h): off unless listen_web or listen_web_plain is set. */
static void open_web_listeners(struct server *srv)
{
	const struct config *cfg = srv->cfg;
	char err[512];
	bool unavailable;

	for (size_t i = 0; i < cfg->nlisten_web + cfg->nlisten_web_plain; i++) {
		bool plain = i >= cfg->nlisten_web;
		const char *addr = plain ? cfg->listen_web_plain[i - cfg->nlisten_web] : cfg->listen_web[i];

		if (listener_open_kind(srv, addr, plain ? LISTENER_WEB_PLAIN : LISTENER_WEB,
		                       &unavailable, err, sizeof err) != 0)
			fatalx("%s", err);
	}
}

/* The line listeners; the number of sockets the service manager passed
 * (they replace the listen settings). */
static int open_listeners(struct server *srv)
{
	static const char *const defaults[] = { "127.0.0.1:7474", "[::1]:7474" };
	const struct config *cfg = srv->cfg;
	const char *const *addrs = defaults;
	size_t n = sizeof defaults / sizeof defaults[0], opened = 0;
	char err[512];
	int passed = service_listen_fds(srv);

	/* Socket activation (kriegd.socket): the service manager's sockets
	 * replace the listen settings. */
	if (passed < 0)
		fatalx("cannot use the sockets passed by the service manager");
	if (passed > 0) {
		if (cfg->nlisten > 0)
			log_info("listen settings ignored: %d socket(s) passed by the service manager",
			         passed);
		return passed;
	}
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
	return 0;
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
		{ "check-config", no_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli cli = { 0 };
	struct server srv;
	char err[1024], path[4096];
	bool check_config = false;
	int ch, asked = 0;   /* 'h' or 'V': --help or --version */

	memset(&srv, 0, sizeof srv);
	/* '+': options end at the first word, so a subcommand's own options
	 * (`user add NAME --role umpire`) are left to it. */
	while ((ch = getopt_long(argc, argv, "+c:l:s:o:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			cli.config_file = optarg;
			break;
		case 'l':
			if (cli.nlistens >= CONFIG_LISTEN_MAX)
				fatalx("more than %d --listen", CONFIG_LISTEN_MAX);
			cli.listens[cli.nlistens++] = optarg;
			break;
		case 's':
			cli.state_dir = optarg;
			break;
		case 'o':
			if (cli.nsets >= CLI_SETS_MAX)
				fatalx("more than %d --set", CLI_SETS_MAX);
			cli.sets[cli.nsets++] = optarg;
			break;
		case 'C':
			check_config = true;
			break;
		case 'h':
		case 'V':
			asked = ch;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	/* --help and --version answer, after every option was read: `--help
	 * extra` answered 0 (admin probe). */
	if (asked != 0 && optind != argc) {
		fprintf(stderr, "kriegd: unexpected word '%s' after %s\n", argv[optind],
		        asked == 'h' ? "--help" : "--version");
		usage(stderr);
		return 2;
	}
	if (asked == 'h') {
		usage(stdout);
		return 0;
	}
	if (asked == 'V') {   /* as the other programs say theirs */
		printf("kriegd %s (protocol %d)\n", KRIEG_RELEASE, PROTO_VERSION);
		return 0;
	}
	/* `kriegd [flags] backup FILE`: an online copy of the database (backup.c). */
	bool backup = optind + 2 == argc && strcmp(argv[optind], "backup") == 0;
	bool user = optind < argc && strcmp(argv[optind], "user") == 0;
	if (optind != argc && !backup && !user) {
		/* What was wrong first, then how it is said (it printed the usage
		 * alone: admin probe). */
		if (strcmp(argv[optind], "backup") == 0)
			fprintf(stderr, "kriegd: backup takes one FILE, the copy to write\n");
		else
			fprintf(stderr, "kriegd: unexpected word '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (check_config && optind != argc) {
		fprintf(stderr, "kriegd: --check-config takes no subcommand (%s): it only checks the "
		        "settings\n", argv[optind]);
		return 2;
	}

	struct config *cfg = config_build(&cli, err, sizeof err);
	if (cfg == NULL)
		fatalx("%s", err);
	srv.cfg = cfg;
	if (check_config) {
		/* The certificate too: a renewed pair that does not load is the
		 * mistake an administrator checks for before `systemctl reload`.
		 * Not a pair of systemd credentials from a shell: only the
		 * service can read those (CLUB.md); the rest is checked. */
		bool elsewhere = tls_credentials_elsewhere(cfg);
		int bad = (elsewhere ? config_validate(cfg, err, sizeof err)
		                     : tls_check(cfg, err, sizeof err)) != 0 ||
		          paths_check(cfg, NULL, err, sizeof err) != 0;
		if (elsewhere && !bad)
			log_warnx("cert = %s and key = %s name systemd credentials, and "
			          "$CREDENTIALS_DIRECTORY is not set here: the certificate is not checked "
			          "(the service reads it at its start; `systemctl status kriegd` after)",
			          cfg->cert_file, cfg->key_file);
		if (!bad)
			bad = check_database(cfg, err, sizeof err) != 0;
		if (bad) {
			log_msg(LOGL_ERROR, "%s", err);
		} else {
			warn_dev_cert(cfg, 0);
			config_print(cfg, stdout);
		}
		config_free(cfg);
		return bad ? EXIT_FAILURE : 0;
	}
	log_set_level((enum log_level)cfg->log_level);
	/* Everything kriegd creates (the database and its -wal/-shm, the
	 * generated key and certificate, a backup) holds password hashes,
	 * umpire records or secrets: readable by its owner only. */
	umask(077);
	if (user) {
		int status = useradm_main(cfg, argc - optind, argv + optind);
		config_free(cfg);
		return status;
	}
	if (backup) {
		int status = backup_main(cfg, argv[optind + 1]);
		config_free(cfg);
		return status;
	}

	if (paths_check(cfg, NULL, err, sizeof err) != 0)
		fatalx("%s", err);
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
	if (!config_db_path(cfg, path, sizeof path))
		fatalx("database path too long");
	bool made = false;
	int held = hold_database(path, &made);
	struct store_options sopt = { 0 };
	sopt.made_empty = made;
	sopt.synchronous = cfg->store_synchronous;
	sopt.busy_timeout_ms = cfg->busy_timeout_ms;
	sopt.checkpoint_pages = cfg->store_ckpt_pages;
	sopt.upgrading = upgrading;
	if ((srv.store = store_open_opts(path, &sopt, err, sizeof err)) == NULL)
		fatalx("store %s: %s", path, err);
	if ((srv.tls = tls_new(cfg, err, sizeof err)) == NULL)
		fatalx("tls: %s", err);
	srv.conns = connset_new();
	srv.web = web_new(&srv);
	if ((srv.auth = auth_new(&srv)) == NULL)
		fatalx("auth_new failed");
	if ((srv.lobby = lobby_new(&srv)) == NULL)
		fatalx("lobby_new failed");
	if ((srv.games = games_new(&srv)) == NULL)
		fatalx("games_new failed");
	srv.replays = announce_cache_new(ANNOUNCE_CACHE_GAMES, ANNOUNCE_STRIDE, ANNOUNCE_CACHE_MIN);
	srv.pgns = pgn_cache_new(PGN_CACHE_ENTRIES, PGN_CACHE_BYTES);
	if ((srv.reader = reader_new(&srv, err, sizeof err)) == NULL)
		log_warnx("reader thread: %s; long replays are made on the loop", err);
	/* The lobby's first: a login hears its challenges, then its games,
	 * then its messages (games_conn_login). */
	conn_hook_add(&srv, lobby_conn_login, lobby_conn_closed);
	conn_hook_add(&srv, games_conn_login, games_conn_closed);
	games_set_grace(srv.games, cfg->abandon_grace_ms);
	if (cfg->untimed_abandon_grace_ms > 0)
		games_set_untimed_grace(srv.games, cfg->untimed_abandon_grace_ms);
	if (games_recover(srv.games) != 0)
		fatalx("could not recover the unfinished games");
	if (lobby_load(srv.lobby) != 0)
		fatalx("could not read the waiting offers");

	struct daemon dm = { .srv = &srv, .cli = &cli, .svc = service_new(&srv) };
	struct event *sigterm = evsignal_new(srv.base, SIGTERM, on_signal, &dm);
	struct event *sigint = evsignal_new(srv.base, SIGINT, on_signal, &dm);
	struct event *sighup = evsignal_new(srv.base, SIGHUP, on_reload, &dm);
	if (sigterm == NULL || sigint == NULL || sighup == NULL || evsignal_add(sigterm, NULL) != 0 ||
	    evsignal_add(sigint, NULL) != 0 || evsignal_add(sighup, NULL) != 0)
		fatalx("cannot install signal handlers");
	struct trim *trim = trim_new(srv.base, TRIM_INTERVAL_MS);
	if (trim == NULL)
		fatalx("cannot start the memory trim timer");
	struct event *tickets = ticket_timer_new(&srv);

	/* After the start's own work (a recovery's replays are not a
	 * standstill of the games it resumes). */
	if ((srv.stall = stall_new(srv.base, server_stalled, &srv)) == NULL)
		fatalx("cannot start the standstill timer");

	/* Nothing kriegd does needs root, and everything it reads comes from
	 * the network (the ops probe: started by hand as root it served as
	 * root, and said nothing).  kriegd.service runs it as a DynamicUser;
	 * a start by hand is told. */
	if (geteuid() == 0)
		log_warnx("running as root: kriegd needs no privilege; run it as a user of its own "
		          "(systemd/kriegd.service does, DynamicUser=yes)");
	/* Last, so a client never reaches a half-started daemon. */
	dm.passed = open_listeners(&srv);
	open_web_listeners(&srv);
	warn_dev_cert(cfg, dm.passed);
	/* Whatever log_level says, as the listening lines (listener.c). */
	log_always(LOGL_INFO, "ready database=%s synchronous=%s max_connections=%d", path,
	           cfg->store_synchronous, cfg->max_conns);
	service_ready(dm.svc);

	if (event_base_dispatch(srv.base) < 0)
		fatalx("event loop failed");
	/* The last turn's deferred callbacks (libevent runs 32 a turn, the
	 * rest the next): each holds its bufferevent, freed with the
	 * connections, until it has run, and event_base_free would drop them
	 * unrun, the bufferevents with them. */
	event_base_loop(srv.base, EVLOOP_NONBLOCK);

	/* Its last jobs' requests run now, while their connections exist
	 * (and replay in place: no reader any more). */
	struct reader *reader = srv.reader;
	srv.reader = NULL;
	reader_free(reader);
	listener_free_all(&srv);
	stall_free(srv.stall);
	srv.stall = NULL;
	games_flush(srv.games);
	web_free(srv.web);
	connset_free(&srv);
	games_free(srv.games);
	announce_cache_free(srv.replays);
	pgn_cache_free(srv.pgns);
	lobby_free(srv.lobby);
	auth_free(srv.auth);
	store_close(srv.store);
	if (dm.drain != NULL)
		event_free(dm.drain);
	event_free(sigterm);
	event_free(sigint);
	event_free(sighup);
	service_free(dm.svc);
	trim_free(trim);
	event_free(tickets);
	tls_free(srv.tls);
	event_base_free(srv.base);
	libevent_global_shutdown();
	config_free(srv.cfg);
	close(held);
	log_info("stopped");
	return 0;
}
