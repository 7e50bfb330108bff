/*
 * config.h — kriegd's settings: built-in defaults, then the config file
 * (`key = value` lines, '#' comments; see deploy/kriegd.conf.example), then
 * the command line.  Every limit the daemon enforces is a named default
 * here with a config key to override it.
 */
#ifndef KRIEG_CONFIG_H
#define KRIEG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "admin.h"
#include "guard.h"
#include <stdio.h>

#define CONFIG_LISTEN_MAX 16
#define CONFIG_MOTD_MAX 500        /* motd: bytes of UTF-8 */
#define CONFIG_PORT_DEFAULT 7474

/* Defaults of the named limits. */
#define CONN_MAX_DEFAULT 1024              /* max_connections */
#define CONN_MAX_PER_IP_DEFAULT 32         /* max_connections_per_ip */
#define LIVE_GAMES_MAX_DEFAULT 100         /* max_live_games: one account's live games */
#define HANDSHAKE_TIMEOUT_MS_DEFAULT 10000 /* handshake_timeout */
#define IDLE_TIMEOUT_MS_DEFAULT 60000      /* idle_timeout; a ping event goes out at half */
#define OUTPUT_MAX_DEFAULT (1024 * 1024)   /* output_buffer_max, bytes queued to one client */
/* Its least: two of the longest line (PROTO_LINE_MAX), so that a reply of
 * one long line (a record's page) does not drop a client that reads. */
#define OUTPUT_MAX_MIN (2 * 16384)
#define RATE_LIMIT_DEFAULT 20              /* rate_limit: requests per second, sustained */
#define RATE_BURST_DEFAULT 40              /* rate_burst: requests in a burst */
#define RATE_STRIKES_DEFAULT 100           /* rate_limit_close: refused requests before closing */
#define RATE_ROWS_DEFAULT 1000             /* rate_rows: a game record's rows read that cost a
                                              request more (a replay of 50,000 actions: 50) */
#define LINGER_MS_DEFAULT 2000             /* close_linger: flushing a last reply before close */
#define ACCEPT_PAUSE_MS_DEFAULT 500        /* accept_pause: on EMFILE/ENFILE */
#define BUSY_TIMEOUT_MS_MAX 60000          /* busy_timeout: longest wait for the write lock */

struct config {
	char *state_dir;            /* state_dir; --state-dir */
	char *cert_file;            /* cert; NULL: generated under state_dir */
	char *key_file;             /* key */
	char *db_file;              /* database; NULL: state_dir/kriegd.db */
	char *listen[CONFIG_LISTEN_MAX];
	size_t nlisten;             /* 0: the defaults 127.0.0.1:7474 and [::1]:7474 */
	int log_level;              /* log_level: enum log_level */

	int max_conns;
	int max_conns_per_ip;
	int max_live_games;         /* a game that would make a player's more is refused (lobby.c) */
	int handshake_timeout_ms;
	int idle_timeout_ms;
	size_t output_max;
	int rate_limit;
	int rate_burst;
	int rate_strikes;
	int rate_rows;
	int linger_ms;
	int accept_pause_ms;

	/* Durability and storage (deploy/BACKUP.md). */
	char *store_synchronous;    /* store_synchronous: off, normal, full (default), extra */
	int busy_timeout_ms;        /* busy_timeout; 0: STORE_BUSY_TIMEOUT_MS */
	int password_cost;          /* password_cost: scrypt's log2(N) for new hashes (kdf.h) */
	int store_ckpt_pages;       /* store_checkpoint_pages (store_ckpt.c) */
	int abandon_grace_ms;       /* abandon_grace; 0: GAME_ABANDON_GRACE_MS */
	int untimed_abandon_grace_ms; /* untimed_abandon_grace; 0: untimed games are never abandoned */
	int spectator_delay;        /* spectator_delay: plies rated games reach spectators late; 0: umpires only (watch.c) */
	bool rate_bots_vs_humans;   /* rate_bots_vs_humans: rated games between a bot account and a person (game.c) */

	/* The web door (server/web.c): HTTPS listeners, loopback-only plain
	 * ones behind a TLS-terminating proxy, the allowed page origins and
	 * the proxies whose X-Forwarded-For is believed. */
	char *listen_web[CONFIG_LISTEN_MAX];        /* listen_web; none: no web door */
	size_t nlisten_web;
	char *listen_web_plain[CONFIG_LISTEN_MAX];  /* listen_web_plain: 127.0.0.1 / ::1 only */
	size_t nlisten_web_plain;
	char *web_root;             /* web_root: serve the client's files from here (development) */
	char *web_origins[CONFIG_LISTEN_MAX];       /* web_origins: "https://host[:port]" each */
	size_t nweb_origins;
	char *web_trusted_proxy[CONFIG_LISTEN_MAX]; /* web_trusted_proxy: addresses */
	size_t nweb_trusted_proxy;

	/* For tests only: every new game starts from this FEN (NULL: the standard start). */
	char *test_start_fen;       /* test_start_fen */
	char *motd;                 /* motd: the club's message of the day, in every greeting; NULL: none */

	/* Defence against abuse of accounts: registration rate, guests,
	 * login back-off, fair hashing, bounded logs (guard.h). */
	struct guard_settings guard;

	/* Who may register and whether guests may play (admin.h). */
	struct admin_policy policy;
};

struct config *config_new(void);
void config_free(struct config *cfg);

/* Apply one setting; returns 0, or -1 with a message in err. */
int config_set(struct config *cfg, const char *key, const char *value, char *err, size_t errlen);
/* Read a file of settings; returns 0, or -1 with "path:line: message" in err. */
int config_load(struct config *cfg, const char *path, char *err, size_t errlen);
/* "key = value" as a config file's line reads: split at the first '='
 * (in place), blanks around both dropped.  0, or -1 without a '='. */
int config_split(char *s, char **key, char **value);
/* Forget configured listen addresses (the command line replaces them). */
void config_clear_listen(struct config *cfg);
/* A repeatable key's values forgotten (`--set` replaces the file's list):
 * true if key is one (listen, listen_web, listen_web_plain, web_origins,
 * web_trusted_proxy), false and nothing changed otherwise. */
bool config_clear_list(struct config *cfg, const char *key);
/* Checks across settings (cert and key come together); 0, or -1 and err. */
int config_validate(const struct config *cfg, char *err, size_t errlen);
/* Every setting's effective value, one "key = value" line each, in a form
 * config_load reads back; unset optional ones as '#' comments
 * (`kriegd --check-config`). */
void config_print(const struct config *cfg, FILE *f);

/* The database's path into buf: db_file, else state_dir/kriegd.db.
 * false if it does not fit. */
bool config_db_path(const struct config *cfg, char *buf, size_t len);
/*
 * A reload (SIGHUP) applies a new config to a running daemon, but some
 * settings are fixed at start: the listening sockets (listen), where the
 * database is and how it was opened (state_dir, database,
 * store_synchronous, busy_timeout).  This copies the running values of
 * those from cur into next, so next describes what actually runs, and
 * writes the names of the ones that differed, comma-separated, into names
 * ("" if none).
 */
void config_keep_restart_only(struct config *next, const struct config *cur, char *names,
                              size_t len);

/* config_print's text of cfg, as a string to free; NULL if out of memory. */
char *config_text(const struct config *cfg);

/*
 * For the reload's warning: each of the comma-separated setting names
 * (config_keep_restart_only's) with the value that runs on and the
 * file's, as --check-config prints them, into out: "password_cost = 10
 * (the file: 12); ...".  file_text: config_text of the settings read,
 * before config_keep_restart_only put the running values back; NULL
 * leaves out empty.
 */
void config_restart_only_words(const char *file_text, const struct config *running, const char *names,
                               char *out, size_t len);

/*
 * The settings whose values differ between a and b (as config_print writes
 * them), comma-separated in the order printed, into out; "" when none.
 * The reload's log line names them (the club admin probe: a reload said
 * nothing of what it changed).
 */
void config_changed_names(const struct config *a, const struct config *b, char *out, size_t len);

/* Durations: "250ms", "10s", "5m", "1h"; a bare number is seconds. */
int config_parse_duration_ms(const char *s, int *ms);
/* ms in the largest whole unit ("2h", "15m", "30s", "250ms"), as
 * config_print and the range errors say it. */
#define CONFIG_DURATION_STR_MAX 16
void config_duration_str(char *out, size_t len, int ms);
/* "KEY: expected a duration from LO to HI ..." into err: a duration
 * setting's range error, config's and the guard's alike. */
void config_duration_range_err(char *err, size_t errlen, const char *key, int lo, int hi);
/* "KEY = 90s" (or 250ms, 5m, 2h: the largest unit that divides ms exactly),
 * as config_print writes a duration, so that it loads back the same. */
void config_print_duration(FILE *f, const char *key, int ms);
/* Sizes: "65536", "64k", "1M". */
int config_parse_size(const char *s, size_t *bytes);

#endif
