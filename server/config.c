/*
 * config.c — see config.h.  Allocation failure is fatal (xmalloc.h), as
 * everywhere in the daemon.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "board.h"
#include "fen.h"
#include "text.h"
#include "game.h"
#include "kdf.h"
#include "listener.h"
#include "log.h"
#include "proto.h"
#include "store.h"
#include "xmalloc.h"

struct config *config_new(void)
{
	struct config *cfg = xcalloc(1, sizeof *cfg);

	cfg->state_dir = xstrdup("./var");
	cfg->log_level = LOGL_INFO;
	cfg->max_conns = CONN_MAX_DEFAULT;
	cfg->max_conns_per_ip = CONN_MAX_PER_IP_DEFAULT;
	cfg->max_live_games = LIVE_GAMES_MAX_DEFAULT;
	cfg->handshake_timeout_ms = HANDSHAKE_TIMEOUT_MS_DEFAULT;
	cfg->idle_timeout_ms = IDLE_TIMEOUT_MS_DEFAULT;
	cfg->output_max = OUTPUT_MAX_DEFAULT;
	cfg->rate_limit = RATE_LIMIT_DEFAULT;
	cfg->rate_burst = RATE_BURST_DEFAULT;
	cfg->rate_rows = RATE_ROWS_DEFAULT;
	cfg->rate_strikes = RATE_STRIKES_DEFAULT;
	cfg->linger_ms = LINGER_MS_DEFAULT;
	cfg->accept_pause_ms = ACCEPT_PAUSE_MS_DEFAULT;
	cfg->store_synchronous = xstrdup("full");
	cfg->store_ckpt_pages = STORE_CKPT_PAGES;
	cfg->password_cost = KDF_LN_DEFAULT;
	guard_settings_default(&cfg->guard);
	admin_policy_default(&cfg->policy);
	return cfg;
}

void config_clear_listen(struct config *cfg)
{
	for (size_t i = 0; i < cfg->nlisten; i++)
		free(cfg->listen[i]);
	cfg->nlisten = 0;
}

/* The web door's repeatable keys, one row each (config_set, config_print,
 * config_free). */
static const struct {
	const char *key;
	size_t off, count_off;
	int listener;                 /* enum listener_kind of an address, or -1 */
} web_lists[] = {
	{ "listen_web", offsetof(struct config, listen_web), offsetof(struct config, nlisten_web),
	  LISTENER_WEB },
	{ "listen_web_plain", offsetof(struct config, listen_web_plain),
	  offsetof(struct config, nlisten_web_plain), LISTENER_WEB_PLAIN },
	{ "web_origins", offsetof(struct config, web_origins), offsetof(struct config, nweb_origins),
	  -1 },
	{ "web_trusted_proxy", offsetof(struct config, web_trusted_proxy),
	  offsetof(struct config, nweb_trusted_proxy), -1 },
};

/*
 * web_origins: an origin as a browser's Origin header writes it
 * (RFC 6454): "https://" HOST [":" PORT], nothing else, since upgrade
 * origins are compared as strings (web.c).  HOST a DNS name (letters,
 * digits, '-', '_', non-empty labels), a dotted IPv4 address, or an IPv6
 * address in brackets in its canonical form; PORT 1 to 65535 without
 * leading zeros, and never 443 (a browser leaves the default port out).
 * "null" (a sandboxed frame, a file:// page), wildcards, paths and a
 * trailing '/' are refused: each would be an origin no browser sends, or
 * one any page can send.  http:// is refused too: the plain listener
 * already accepts http:// + a loopback Host, and another page over plain
 * HTTP is anyone's on its way.  0, or -1 with the reason in err.
 */
static int origin_check(const char *v, char *err, size_t errlen)
{
	static const char *const form = "expected https://HOST or https://HOST:PORT, as a browser "
	                                "sends it (no path, no trailing '/', no wildcard)";
	const char *h, *he, *p;

	if (strncasecmp(v, "https://", 8) != 0) {
		const char *hint = "";
		if (strncasecmp(v, "http://", 7) == 0)
			hint = "; not http:// (a plain listener takes http:// + a loopback Host by itself)";
		else if (strcasecmp(v, "null") == 0)
			hint = "; \"null\" is the origin of sandboxed frames and file:// pages, which "
			       "any site can make";
		snprintf(err, errlen, "%s%s", form, hint);
		return -1;
	}
	h = v + 8;
	if (*h == '[') {
		char addr[INET6_ADDRSTRLEN + 1], canon[INET6_ADDRSTRLEN];
		struct in6_addr a6;

		if ((he = strchr(h, ']')) == NULL || (size_t)(he - h - 1) >= sizeof addr) {
			snprintf(err, errlen, "%s: an IPv6 host is [ADDR]", form);
			return -1;
		}
		memcpy(addr, h + 1, (size_t)(he - h - 1));
		addr[he - h - 1] = '\0';
		if (inet_pton(AF_INET6, addr, &a6) != 1) {
			snprintf(err, errlen, "%s: not an IPv6 address in []", form);
			return -1;
		}
		inet_ntop(AF_INET6, &a6, canon, sizeof canon);
		if (strcasecmp(canon, addr) != 0) {
			snprintf(err, errlen, "write the address as a browser does: [%s]", canon);
			return -1;
		}
		he++;
	} else {
		size_t label = 0;
		const char *last = h;
		bool digits = true;

		for (he = h; *he != '\0' && *he != ':'; he++) {
			unsigned char c = (unsigned char)*he;
			if (c == '.') {
				if (label == 0)
					break;
				label = 0;
				last = he + 1;
				digits = true;
				continue;
			}
			if (!isalnum(c) && c != '-' && c != '_')
				break;
			digits = digits && isdigit(c);
			label++;
		}
		if (he == h || label == 0 || (*he != '\0' && *he != ':') || he - h > 253) {
			snprintf(err, errlen, "%s", form);
			return -1;
		}
		/* A name whose last label is a number is an IPv4 address to a
		 * browser, which writes it dotted (WHATWG URL). */
		if (digits && last < he) {
			char addr[INET_ADDRSTRLEN];
			struct in_addr a4;
			size_t n = (size_t)(he - h);
			if (n < sizeof addr) {
				memcpy(addr, h, n);
				addr[n] = '\0';
			}
			if (n >= sizeof addr || inet_pton(AF_INET, addr, &a4) != 1) {
				snprintf(err, errlen, "%s: not an IPv4 address", form);
				return -1;
			}
		}
	}
	if (*he == '\0')
		return 0;
	if (*he != ':') {
		snprintf(err, errlen, "%s", form);
		return -1;
	}
	long port = 0;
	for (p = he + 1; isdigit((unsigned char)*p) && port <= 65535; p++)
		port = port * 10 + (*p - '0');
	if (p == he + 1 || *p != '\0' || he[1] == '0' || port > 65535) {
		snprintf(err, errlen, "%s: PORT 1 to 65535", form);
		return -1;
	}
	if (port == 443) {
		snprintf(err, errlen, "leave out :443, as a browser does (https://HOST)");
		return -1;
	}
	return 0;
}

/*
 * web_trusted_proxy: one literal address, IPv4 or IPv6 (a peer's address
 * is compared with it as a string); written to canon in the form the
 * peer's is (inet_ntop), so that "0:0:0:0:0:0:0:1" matches ::1.  No
 * names, ports, brackets or ranges.  0, or -1 with the reason in err.
 */
static int proxy_check(const char *v, char *canon, size_t len, char *err, size_t errlen)
{
	unsigned char bin[sizeof(struct in6_addr)];

	if (strchr(v, '/') != NULL) {
		snprintf(err, errlen, "address ranges are not taken; list each proxy's address "
		         "(repeat the key)");
		return -1;
	}
	if (inet_pton(AF_INET, v, bin) == 1) {
		inet_ntop(AF_INET, bin, canon, (socklen_t)len);
		return 0;
	}
	if (inet_pton(AF_INET6, v, bin) == 1) {
		inet_ntop(AF_INET6, bin, canon, (socklen_t)len);
		return 0;
	}
	snprintf(err, errlen, "expected the proxy's IPv4 or IPv6 address, such as 127.0.0.1 or ::1 "
	         "(no name, port, brackets or range)");
	return -1;
}

static char **web_list(const struct config *cfg, size_t i, size_t **n)
{
	*n = (size_t *)((char *)cfg + web_lists[i].count_off);
	return (char **)((char *)cfg + web_lists[i].off);
}

bool config_clear_list(struct config *cfg, const char *key)
{
	if (strcmp(key, "listen") == 0) {
		config_clear_listen(cfg);
		return true;
	}
	for (size_t i = 0; i < sizeof web_lists / sizeof web_lists[0]; i++) {
		size_t *n;
		char **v = web_list(cfg, i, &n);
		if (strcmp(key, web_lists[i].key) != 0)
			continue;
		for (size_t k = 0; k < *n; k++)
			free(v[k]);
		*n = 0;
		return true;
	}
	return false;
}

void config_free(struct config *cfg)
{
	if (cfg == NULL)
		return;
	config_clear_listen(cfg);
	for (size_t i = 0; i < sizeof web_lists / sizeof web_lists[0]; i++)
		config_clear_list(cfg, web_lists[i].key);
	free(cfg->web_root);
	free(cfg->state_dir);
	free(cfg->cert_file);
	free(cfg->key_file);
	free(cfg->db_file);
	free(cfg->store_synchronous);
	free(cfg->test_start_fen);
	free(cfg->motd);
	free(cfg);
}

int config_parse_duration_ms(const char *s, int *ms)
{
	/* Decimal digits only, with one optional fraction: strtod alone took
	 * "0x10" for 16 s, "1e3", "inf" and leading spaces (the time probe). */
	size_t n = strspn(s, "0123456789");
	if (n == 0)
		return -1;
	if (s[n] == '.') {
		size_t f = strspn(s + n + 1, "0123456789");
		if (f == 0)
			return -1;
		n += 1 + f;
	}
	const char *end = s + n;
	double mult;
	if (*end == '\0' || strcmp(end, "s") == 0)
		mult = 1000.0;
	else if (strcmp(end, "ms") == 0)
		mult = 1.0;
	else if (strcmp(end, "m") == 0)
		mult = 60000.0;
	else if (strcmp(end, "h") == 0)
		mult = 3600000.0;
	else if (strcmp(end, "d") == 0)
		mult = 86400000.0;
	else
		return -1;
	double v = strtod(s, NULL) * mult;
	if (v > INT_MAX)
		return -1;
	/* A value above 0 is never 0 ms: several settings read 0 as "never"
	 * ("0.5ms" of grace had untimed games never abandoned). */
	long long r = llround(v);
	*ms = (int)(v > 0 && r == 0 ? 1 : r);
	return 0;
}

int config_parse_size(const char *s, size_t *bytes)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	unsigned long long mult = 1;
	if (*end == '\0')
		mult = 1;
	else if (strcmp(end, "k") == 0 || strcmp(end, "K") == 0)
		mult = 1024;
	else if (strcmp(end, "M") == 0)
		mult = 1024 * 1024;
	else
		return -1;
	if (v > (unsigned long long)SIZE_MAX / mult)
		return -1;
	*bytes = (size_t)(v * mult);
	return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* The integer and duration settings, one row each (config_set parses them,
 * config_print shows them). */
static const struct {
	const char *key;
	size_t off;
	int lo, hi;
} ints[] = {
	{ "max_connections", offsetof(struct config, max_conns), 1, 1000000 },
	{ "max_connections_per_ip", offsetof(struct config, max_conns_per_ip), 1, 1000000 },
	{ "max_live_games", offsetof(struct config, max_live_games), 1, 1000000 },
	{ "rate_limit", offsetof(struct config, rate_limit), 1, 1000000 },
	{ "rate_burst", offsetof(struct config, rate_burst), 1, 1000000 },
	{ "rate_limit_close", offsetof(struct config, rate_strikes), 1, 1000000 },
	{ "rate_rows", offsetof(struct config, rate_rows), 1, 100000000 },
	{ "spectator_delay", offsetof(struct config, spectator_delay), 0, 1000 },
	{ "store_checkpoint_pages", offsetof(struct config, store_ckpt_pages), 10, 1000000 },
	{ "password_cost", offsetof(struct config, password_cost), KDF_LN_MIN, KDF_LN_MAX },
};

static const struct {
	const char *key;
	size_t off;
	int min_ms, max_ms;
} durations[] = {
	{ "handshake_timeout", offsetof(struct config, handshake_timeout_ms), 50, INT_MAX },
	{ "idle_timeout", offsetof(struct config, idle_timeout_ms), 100, INT_MAX },
	{ "close_linger", offsetof(struct config, linger_ms), 0, INT_MAX },
	{ "accept_pause", offsetof(struct config, accept_pause_ms), 10, INT_MAX },
	/* A cap, so "busy_timeout = 5000" (seconds) is an error, not a stalled daemon. */
	{ "busy_timeout", offsetof(struct config, busy_timeout_ms), 1, BUSY_TIMEOUT_MS_MAX },
	{ "abandon_grace", offsetof(struct config, abandon_grace_ms), 100, INT_MAX },
	{ "untimed_abandon_grace", offsetof(struct config, untimed_abandon_grace_ms), 0, INT_MAX },
};

static void set_str(char **slot, const char *value)
{
	free(*slot);
	*slot = xstrdup(value);
}

int config_set(struct config *cfg, const char *key, const char *value, char *err, size_t errlen)
{
	int lvl;
	/* The account guard's settings (guard.h) are its own to parse. */
	int guard_rc = guard_settings_set(&cfg->guard, key, value, err, errlen);
	if (guard_rc <= 0)
		return guard_rc;
	/* So is the registration policy (admin.h). */
	int policy_rc = admin_policy_set(&cfg->policy, key, value, err, errlen);
	if (policy_rc <= 0)
		return policy_rc;

	if (strcmp(key, "listen") == 0) {
		if (cfg->nlisten >= CONFIG_LISTEN_MAX) {
			snprintf(err, errlen, "more than %d listen addresses", CONFIG_LISTEN_MAX);
			return -1;
		}
		if (listener_addr_check(value, LISTENER_LINE, err, errlen) != 0)
			return -1;
		cfg->listen[cfg->nlisten++] = xstrdup(value);
		return 0;
	}
	for (size_t i = 0; i < sizeof web_lists / sizeof web_lists[0]; i++) {
		size_t *n;
		char **v = web_list(cfg, i, &n);

		if (strcmp(key, web_lists[i].key) != 0)
			continue;
		if (*n >= CONFIG_LISTEN_MAX) {
			snprintf(err, errlen, "more than %d %s values", CONFIG_LISTEN_MAX, key);
			return -1;
		}
		if (web_lists[i].listener >= 0 &&
		    listener_addr_check(value, (enum listener_kind)web_lists[i].listener, err, errlen) != 0)
			return -1;
		char why[256], canon[INET6_ADDRSTRLEN];
		if (strcmp(key, "web_origins") == 0 && origin_check(value, why, sizeof why) != 0) {
			snprintf(err, errlen, "web_origins '%s': %s", value, why);
			return -1;
		}
		if (strcmp(key, "web_trusted_proxy") == 0) {
			if (proxy_check(value, canon, sizeof canon, why, sizeof why) != 0) {
				snprintf(err, errlen, "web_trusted_proxy '%s': %s", value, why);
				return -1;
			}
			value = canon;
		}
		v[(*n)++] = xstrdup(value);
		return 0;
	}
	/* An empty path is no path: state_dir's would be the filesystem's
	 * root ("/kriegd.db"), the others' a file named "" that only a start
	 * finds missing; refused here, where --check-config sees it too. */
	static const char *const paths[] = { "state_dir", "cert", "key", "database", "web_root" };
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
		if (strcmp(key, paths[i]) == 0 && value[0] == '\0') {
			snprintf(err, errlen, "%s: an empty path (leave the setting out for its default)", key);
			return -1;
		}
	if (strcmp(key, "web_root") == 0) {
		set_str(&cfg->web_root, value);
		return 0;
	}
	if (strcmp(key, "motd") == 0) {
		/* Sent to every client as it is: the wire's plain text (text.h),
		 * short enough for a greeting line. */
		if (!text_plain(value) || strlen(value) > CONFIG_MOTD_MAX) {
			snprintf(err, errlen, "motd: at most %d bytes of UTF-8 without control characters",
			         CONFIG_MOTD_MAX);
			return -1;
		}
		free(cfg->motd);
		cfg->motd = value[0] ? xstrdup(value) : NULL;   /* motd = (empty): none */
		return 0;
	}
	if (strcmp(key, "state_dir") == 0) {
		set_str(&cfg->state_dir, value);
		return 0;
	}
	if (strcmp(key, "cert") == 0) {
		set_str(&cfg->cert_file, value);
		return 0;
	}
	if (strcmp(key, "key") == 0) {
		set_str(&cfg->key_file, value);
		return 0;
	}
	if (strcmp(key, "database") == 0) {
		set_str(&cfg->db_file, value);
		return 0;
	}
	if (strcmp(key, "store_synchronous") == 0) {
		if (!store_synchronous_valid(value)) {
			snprintf(err, errlen, "store_synchronous: expected off, normal, full or extra");
			return -1;
		}
		set_str(&cfg->store_synchronous, value);
		return 0;
	}
	if (strcmp(key, "test_start_fen") == 0) {
		/* Off by default: lets the integration tests reach endings cheaply. */
		struct board b;
		char ferr[128];
		if (strlen(value) >= FEN_MAX || fen_parse(value, &b, ferr, sizeof ferr) != 0) {
			snprintf(err, errlen, "test_start_fen: not a valid position");
			return -1;
		}
		set_str(&cfg->test_start_fen, value);
		return 0;
	}
	if (strcmp(key, "rate_bots_vs_humans") == 0) {
		if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0) {
			snprintf(err, errlen, "rate_bots_vs_humans: expected on or off");
			return -1;
		}
		cfg->rate_bots_vs_humans = strcmp(value, "on") == 0;
		return 0;
	}
	if (strcmp(key, "log_level") == 0) {
		if ((lvl = log_level_parse(value)) < 0) {
			snprintf(err, errlen, "log_level: expected debug, info, warn or error");
			return -1;
		}
		cfg->log_level = lvl;
		return 0;
	}

	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
		if (strcmp(key, ints[i].key) != 0)
			continue;
		if (parse_int(value, ints[i].lo, ints[i].hi, (int *)((char *)cfg + ints[i].off)) != 0) {
			snprintf(err, errlen, "%s: expected an integer from %d to %d", key, ints[i].lo,
			         ints[i].hi);
			return -1;
		}
		return 0;
	}

	for (size_t i = 0; i < sizeof durations / sizeof durations[0]; i++) {
		int *slot = (int *)((char *)cfg + durations[i].off);
		int ms;

		if (strcmp(key, durations[i].key) != 0)
			continue;
		if (config_parse_duration_ms(value, &ms) != 0 || ms < durations[i].min_ms ||
		    ms > durations[i].max_ms) {
			config_duration_range_err(err, errlen, key, durations[i].min_ms, durations[i].max_ms);
			return -1;
		}
		*slot = ms;
		return 0;
	}

	_Static_assert(OUTPUT_MAX_MIN == 2 * PROTO_LINE_MAX, "output_buffer_max's least: two lines");
	if (strcmp(key, "output_buffer_max") == 0) {
		size_t b;

		if (config_parse_size(value, &b) != 0 || b < OUTPUT_MAX_MIN) {
			snprintf(err, errlen, "output_buffer_max: expected a size of at least %d bytes: "
			         "digits, then nothing, k or M (\"32k\", \"1M\"; no other unit)",
			         OUTPUT_MAX_MIN);
			return -1;
		}
		cfg->output_max = b;
		return 0;
	}
	snprintf(err, errlen, "unknown setting '%s'", key);
	return -1;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int config_split(char *s, char **key, char **value)
{
	char *eq = strchr(s, '=');

	if (eq == NULL)
		return -1;
	*eq = '\0';
	*key = trim(s);
	*value = trim(eq + 1);
	return 0;
}

int config_load(struct config *cfg, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[1024], msg[256];
	int lineno = 0, rc = 0;

	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			snprintf(err, errlen, "%s:%d: line too long", path, lineno);
			rc = -1;
			break;
		}
		/* A UTF-8 byte-order mark, which some Windows editors write, is
		 * no part of the first key (it was "unknown setting" with the
		 * mark unseen inside the quotes: admin probe). */
		char *start = line;
		if (lineno == 1 && strncmp(line, "\xEF\xBB\xBF", 3) == 0)
			start += 3;
		char *hash = strchr(start, '#');
		if (hash != NULL)
			*hash = '\0';
		char *s = trim(start);
		if (*s == '\0')
			continue;
		char *key, *value;
		if (config_split(s, &key, &value) != 0) {
			snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
			rc = -1;
			break;
		}
		if (config_set(cfg, key, value, msg, sizeof msg) != 0) {
			snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
			rc = -1;
			break;
		}
	}
	if (rc == 0 && ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -1;
	}
	fclose(f);
	return rc;
}

int config_validate(const struct config *cfg, char *err, size_t errlen)
{
	if ((cfg->cert_file == NULL) != (cfg->key_file == NULL)) {
		snprintf(err, errlen, "set both 'cert' and 'key', or neither");
		return -1;
	}
	/* Each failure doubles the window up to the longest: a first one
	 * longer than that is a contradiction, taken without a word before
	 * (admin probe). */
	if (cfg->guard.login_backoff_ms > cfg->guard.login_backoff_max_ms) {
		char first[CONFIG_DURATION_STR_MAX], most[CONFIG_DURATION_STR_MAX];
		config_duration_str(first, sizeof first, cfg->guard.login_backoff_ms);
		config_duration_str(most, sizeof most, cfg->guard.login_backoff_max_ms);
		snprintf(err, errlen, "login_backoff (%s) is longer than login_backoff_max (%s), the "
		         "longest window", first, most);
		return -1;
	}
	return 0;
}

void config_duration_str(char *out, size_t len, int ms)
{
	if (ms % 3600000 == 0 && ms > 0)
		snprintf(out, len, "%dh", ms / 3600000);
	else if (ms % 60000 == 0 && ms > 0)
		snprintf(out, len, "%dm", ms / 60000);
	else if (ms % 1000 == 0)
		snprintf(out, len, "%ds", ms / 1000);
	else
		snprintf(out, len, "%dms", ms);
}

void config_duration_range_err(char *err, size_t errlen, const char *key, int lo, int hi)
{
	/* In the units a person writes them (they said "1000ms to 3600000ms":
	 * admin probe); INT_MAX ms, the most an int of ms holds, said so
	 * (720h was "expected at least 0ms"). */
	char los[CONFIG_DURATION_STR_MAX], his[CONFIG_DURATION_STR_MAX];
	config_duration_str(los, sizeof los, lo);
	config_duration_str(his, sizeof his, hi);
	if (hi < INT_MAX)
		snprintf(err, errlen, "%s: expected a duration from %s to %s (\"5s\", \"500ms\", \"15m\"; "
		         "a bare number is seconds)", key, los, his);
	else
		snprintf(err, errlen, "%s: expected a duration of at least %s and at most about 596.5h "
		         "(\"30s\", \"500ms\", \"2h\", \"7d\"; a bare number is seconds)", key, los);
}

void config_print_duration(FILE *f, const char *key, int ms)
{
	char d[CONFIG_DURATION_STR_MAX];

	config_duration_str(d, sizeof d, ms);
	fprintf(f, "%s = %s\n", key, d);
}

bool config_db_path(const struct config *cfg, char *buf, size_t len)
{
	int n = cfg->db_file != NULL ? snprintf(buf, len, "%s", cfg->db_file)
	                             : snprintf(buf, len, "%s/kriegd.db", cfg->state_dir);
	return n >= 0 && (size_t)n < len;
}

void config_print(const struct config *cfg, FILE *f)
{
	static const char *const level_names[] = { "debug", "info", "warn", "error" };

	if (cfg->nlisten == 0)
		fprintf(f, "listen = 127.0.0.1:%d\nlisten = [::1]:%d\n", CONFIG_PORT_DEFAULT,
		        CONFIG_PORT_DEFAULT);
	for (size_t i = 0; i < cfg->nlisten; i++)
		fprintf(f, "listen = %s\n", cfg->listen[i]);
	fprintf(f, "state_dir = %s\n", cfg->state_dir);
	if (cfg->cert_file != NULL)
		fprintf(f, "cert = %s\nkey = %s\n", cfg->cert_file, cfg->key_file);
	else
		fprintf(f, "# cert, key: unset; a self-signed pair under %s\n", cfg->state_dir);
	if (cfg->db_file != NULL)
		fprintf(f, "database = %s\n", cfg->db_file);
	else
		fprintf(f, "# database: unset; %s/kriegd.db\n", cfg->state_dir);
	if (cfg->log_level >= 0 && cfg->log_level <= LOGL_ERROR)
		fprintf(f, "log_level = %s\n", level_names[cfg->log_level]);
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
		fprintf(f, "%s = %d\n", ints[i].key, *(const int *)((const char *)cfg + ints[i].off));
	for (size_t i = 0; i < sizeof durations / sizeof durations[0]; i++) {
		int ms = *(const int *)((const char *)cfg + durations[i].off);

		/* Two keys keep 0 for "the module's own default" (their minimum is
		 * above 0, so 0 was never set); show that default's value.  For the
		 * others 0 is the value itself (close_linger = 0: no lingering). */
		if (ms == 0 && strcmp(durations[i].key, "busy_timeout") == 0)
			ms = STORE_BUSY_TIMEOUT_MS;
		if (ms == 0 && strcmp(durations[i].key, "abandon_grace") == 0)
			ms = GAME_ABANDON_GRACE_MS;
		if (ms == 0 && strcmp(durations[i].key, "untimed_abandon_grace") == 0)
			fprintf(f, "# 0: untimed games are never abandoned (a guest's after abandon_grace)\n");
		config_print_duration(f, durations[i].key, ms);
	}
	fprintf(f, "output_buffer_max = %zu\n", cfg->output_max);
	fprintf(f, "store_synchronous = %s\n", cfg->store_synchronous);
	fprintf(f, "rate_bots_vs_humans = %s\n", cfg->rate_bots_vs_humans ? "on" : "off");
	admin_policy_print(&cfg->policy, f);
	guard_settings_print(&cfg->guard, f);
	if (cfg->test_start_fen != NULL)
		fprintf(f, "test_start_fen = %s\n", cfg->test_start_fen);
	else   /* every key shows, unset ones as comments (admin probe) */
		fprintf(f, "# test_start_fen: unset; games start from the standard position\n");
	/* The web door's keys, unset ones as comments, so that every key shows
	 * (and tests/service/run.sh holds kriegd.conf(5) to documenting it). */
	static const char *const web_unset[] = {
		"the web door is off", "no plain listener for a proxy",
		"only the door's own origin", "X-Forwarded-For is ignored",
	};
	_Static_assert(sizeof web_unset / sizeof web_unset[0] == sizeof web_lists / sizeof web_lists[0],
	               "one 'unset' wording per web list");
	for (size_t i = 0; i < sizeof web_lists / sizeof web_lists[0]; i++) {
		size_t *n;
		char **v = web_list(cfg, i, &n);
		if (*n == 0)
			fprintf(f, "# %s: unset; %s\n", web_lists[i].key, web_unset[i]);
		for (size_t k = 0; k < *n; k++)
			fprintf(f, "%s = %s\n", web_lists[i].key, v[k]);
	}
	if (cfg->web_root != NULL)
		fprintf(f, "web_root = %s\n", cfg->web_root);
	else
		fprintf(f, "# web_root: unset; the client files compiled into kriegd\n");
	if (cfg->motd != NULL)
		fprintf(f, "motd = %s\n", cfg->motd);
	else
		fprintf(f, "# motd: unset; no message of the day\n");
}

/* The values of key in config_print's text t, joined by ", " into out
 * ("unset" when the text has none: a comment stands for it). */
static void printed_values(const char *t, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key), used = 0;
	out[0] = '\0';
	for (const char *p = t; *p && used < len;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n > klen + 3 && strncmp(p, key, klen) == 0 && strncmp(p + klen, " = ", 3) == 0)
			used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? ", " : "",
			                         (int)(n - klen - 3), p + klen + 3);
		p += n + (nl != NULL);
	}
	if (out[0] == '\0')
		snprintf(out, len, "unset");
}

char *config_text(const struct config *cfg)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	if (f == NULL)
		return NULL;
	config_print(cfg, f);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static void name_append(char *names, size_t len, const char *name);

/* Does the comma-separated list names hold name? */
static bool names_hold(const char *names, const char *name)
{
	size_t k = strlen(name);
	for (const char *p = names; *p != '\0';) {
		size_t n = strcspn(p, ",");
		if (n == k && strncmp(p, name, k) == 0)
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

void config_changed_names(const struct config *a, const struct config *b, char *out, size_t len)
{
	char *t[2] = { config_text(a), config_text(b) };
	out[0] = '\0';
	/* every key printed in either (one unset is not printed: motd), once */
	for (int i = 0; i < 2 && t[0] != NULL && t[1] != NULL; i++)
		for (const char *p = t[i]; *p;) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) : strlen(p), k = strcspn(p, " ");
			char key[64], was[4096], now[4096];   /* the longest value (motd, 500 bytes) whole */
			if (k > 0 && k < sizeof key && k < n) {
				snprintf(key, sizeof key, "%.*s", (int)k, p);
				printed_values(t[0], key, was, sizeof was);
				printed_values(t[1], key, now, sizeof now);
				if (strcmp(was, now) != 0 && !names_hold(out, key))
					name_append(out, len, key);
			}
			p += n + (nl != NULL);
		}
	free(t[0]);
	free(t[1]);
}

void config_restart_only_words(const char *ft, const struct config *running, const char *names, char *out,
                               size_t len)
{
	char *rt = config_text(running);
	size_t used = 0;
	out[0] = '\0';
	for (const char *p = names; ft && rt && *p && used < len;) {
		size_t n = strcspn(p, ",");
		char key[64], was[256], wants[256];
		snprintf(key, sizeof key, "%.*s", (int)n, p);
		printed_values(rt, key, was, sizeof was);
		printed_values(ft, key, wants, sizeof wants);
		used += (size_t)snprintf(out + used, len - used, "%s%s = %s (the file: %s)", used ? "; " : "", key,
		                         was, wants);
		p += n + (p[n] == ',');
	}
	free(rt);
}

static bool str_differs(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a != b;
	return strcmp(a, b) != 0;
}

static void name_append(char *names, size_t len, const char *name)
{
	size_t used = strlen(names);

	snprintf(names + used, len - used, "%s%s", used > 0 ? "," : "", name);
}

void config_keep_restart_only(struct config *next, const struct config *cur, char *names,
                              size_t len)
{
	bool listen_differs = next->nlisten != cur->nlisten;

	names[0] = '\0';
	for (size_t i = 0; !listen_differs && i < cur->nlisten; i++)
		listen_differs = strcmp(next->listen[i], cur->listen[i]) != 0;
	if (listen_differs) {
		name_append(names, len, "listen");
		config_clear_listen(next);
		for (size_t i = 0; i < cur->nlisten; i++)
			next->listen[i] = xstrdup(cur->listen[i]);
		next->nlisten = cur->nlisten;
	}
	for (size_t i = 0; i < 2; i++) {   /* listen_web, listen_web_plain: the sockets */
		size_t *nn, *cn;
		char **nv = web_list(next, i, &nn), **cv = web_list(cur, i, &cn);
		bool differs = *nn != *cn;
		for (size_t k = 0; !differs && k < *cn; k++)
			differs = strcmp(nv[k], cv[k]) != 0;
		if (!differs)
			continue;
		name_append(names, len, web_lists[i].key);
		for (size_t k = 0; k < *nn; k++)
			free(nv[k]);
		for (size_t k = 0; k < *cn; k++)
			nv[k] = xstrdup(cv[k]);
		*nn = *cn;
	}
	if (str_differs(next->state_dir, cur->state_dir)) {
		name_append(names, len, "state_dir");
		set_str(&next->state_dir, cur->state_dir);
	}
	if (str_differs(next->db_file, cur->db_file)) {
		name_append(names, len, "database");
		free(next->db_file);
		next->db_file = cur->db_file != NULL ? xstrdup(cur->db_file) : NULL;
	}
	if (str_differs(next->store_synchronous, cur->store_synchronous)) {
		name_append(names, len, "store_synchronous");
		set_str(&next->store_synchronous, cur->store_synchronous);
	}
	if (next->busy_timeout_ms != cur->busy_timeout_ms) {
		name_append(names, len, "busy_timeout");
		next->busy_timeout_ms = cur->busy_timeout_ms;
	}
	/* A live game's spectators were told a delay: a reload lowering it
	 * would release the withheld plies to them at once (to 0: a rated
	 * game live to anyone holding a seat), raising it would hold again
	 * what they were sent (probe). */
	if (next->spectator_delay != cur->spectator_delay) {
		name_append(names, len, "spectator_delay");
		next->spectator_delay = cur->spectator_delay;
	}
	/* Unknown names are verified against a hash made at start at this
	 * cost (auth.c), so that their answer takes as long as a real one's. */
	if (next->password_cost != cur->password_cost) {
		name_append(names, len, "password_cost");
		next->password_cost = cur->password_cost;
	}
	if (next->store_ckpt_pages != cur->store_ckpt_pages) {
		name_append(names, len, "store_checkpoint_pages");
		next->store_ckpt_pages = cur->store_ckpt_pages;
	}
}
