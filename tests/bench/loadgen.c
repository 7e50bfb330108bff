/*
 * loadgen.c — kriegd against the transport ceiling, in one run.
 *
 *   loadgen [options] KRIEGD ECHOD
 *     -c CONNS     connections (2 per game; default 32)
 *     -d SECONDS   measured window (default 5), after -w SECONDS of warm-up (default 1)
 *     -t MS        think time before each try, drawn from 0.5..1.5 x MS (default 0)
 *     -s SYNC      kriegd's store_synchronous (default full)
 *     -i N         idle mode: N TLS connections that only say hello; reports
 *                  daemon memory per connection
 *     -r           also print the result as one row of make bench's table
 *     --who MS     kriegd: during the window the first player also asks
 *                  `who` every MS ms (a server-wide list: every user
 *                  online) and reads it to its last page, as krieg and the
 *                  web page do; reports how long a page and a whole list
 *                  took (p50/max), beside what the games' latency did
 *                  meanwhile
 *     --ws         the WebSocket door instead of echod: kriegd twice, with
 *                  the same lines over its line transport and then over
 *                  listen_web (GET /ws, one protocol line per text
 *                  message); reports WebSocket over line (ECHOD may be
 *                  left out)
 *     --soak SECONDS  kriegd alone (ECHOD may be left out) for SECONDS,
 *                  games played one after another on every pair; its
 *                  memory sampled every -S INTERVAL seconds (default 10),
 *                  one line a sample; then a verdict, FLAT or GROWING, on
 *                  the RSS after the warm-up (-w; default 20% of SECONDS,
 *                  at least 120 s, at most half).  Exit status 1 when
 *                  GROWING.
 *
 * For each server (echod first, then kriegd, each started by loadgen on
 * 127.0.0.1:0 with a fresh state directory under $TMPDIR) it opens CONNS
 * TLS connections from this one process (libevent + OpenSSL), logs them in
 * (kriegd: hello + guest; echod: hello + pair), starts CONNS/2 games
 * (kriegd: a challenge and its accept, untimed... 1 h + 2 s, so nothing
 * flags) and replays games computed before the clock starts: seeded random
 * tries (legal or not) with a local referee, so during the run the client
 * only sends prepared lines and matches answers.  Each pair sends one try,
 * waits for its ok and, for a legal try, for the opponent's "moved"
 * announcement (echod announces every try, and loadgen waits for it), then
 * thinks and sends the next.  A finished game is followed by the next one.
 *
 * Reported per server: tries/s, games/s, latency try -> ok and try ->
 * opponent's announcement (p50/p99/p99.9), the daemon's CPU per try (from
 * /proc/PID/stat over the window), its RSS per connection (after login,
 * over the RSS before any connection) and per live game (after the games
 * started, over the RSS after login), and loadgen's own CPU; then kriegd's
 * figures as a ratio of echod's.  Loopback only; every loop is bounded and
 * the run stops by itself (a run that cannot finish dies with a message).
 *
 * --soak is the leak hunt of issue 13: the clock runs SECONDS in all, a
 * pair's finished game is followed by the next (so per-game state is made
 * and dropped throughout), and every INTERVAL kriegd's VmRSS, VmHWM,
 * RssAnon/RssFile/RssShmem, the live and finished games and the tries so
 * far are printed.  Over the samples after the warm-up a least-squares
 * line of RSS against time gives the slope (KiB per minute, and per cent
 * of the RSS at the end of the warm-up per minute); the verdict is FLAT
 * when that line grows less than LG_SOAK_FLAT_KIB over the time after the
 * warm-up.  The slope of the second half alone is printed too: a cache
 * still filling (SQLite's pages up to cache_size) flattens there, a leak
 * does not.  The usual figures (tries/s, latency, CPU per try) are those
 * of the time after the warm-up.  The default warm-up is measured, not
 * guessed: at 200 games (30..90 ms think time) kriegd's RSS climbs from
 * about 21 MiB (connections and games set up) to a plateau near 53 MiB and
 * reaches it after 100-150 s (the allocator's arenas and SQLite's page
 * caches settling under the load), then wanders within a few MiB of it.
 *
 * --ws is a browser's side of the door: after TLS, an HTTP/1.1 GET /ws with
 * a random Sec-WebSocket-Key and the page's own Origin; the 101 and its
 * Sec-WebSocket-Accept (SHA-1 and base64 with OpenSSL) are checked, then
 * wslay frames the lines (client frames masked, server frames not).  Both
 * kriegd runs of --ws have the web listener open, so only the transport
 * differs between them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <wslay/wslay.h>

#include "event.h"
#include "notation.h"
#include "proto.h"
#include "referee.h"
#include "ruleset.h"

#define LG_GAMES_POOL 64        /* distinct pre-computed games, replayed in turn */
#define LG_TRIES_MAX 4000       /* a game not over by then is resigned */
#define LG_HANDSHAKES 64        /* connections being set up at once */
#define LG_SETUP_S 120          /* setting up every connection and game */
#define LG_DRAIN_S 5            /* tries in flight at the end of the window */
#define LG_WS_HEAD_MAX 4096     /* the server's 101 response head */
/* --soak: FLAT when the fitted RSS line grows less than this over the time
 * after the warm-up.  1 MiB, because (a) with nothing leaking, kriegd's RSS
 * still wanders by a few hundred KiB between samples (glibc's arenas, one
 * per thread, take and return memory in chunks; SQLite's page cache
 * recycles pages), and the fitted line over dozens of samples moves far
 * less than that; (b) a leak that matters does not hide under it: the
 * 10-minute run at 200 games finishes thousands of games and plays about a
 * million tries, so 1 MiB bounds a per-game leak to a few hundred bytes and
 * a per-try leak to about one byte.  The verdict prints those bounds. */
#define LG_SOAK_FLAT_KIB 1024.0

enum server_kind { SRV_ECHOD, SRV_KRIEGD };

struct pgame {                  /* one pre-computed game */
	int n;
	char (*line)[NOTATION_MAX]; /* the try's text (coordinates) */
	unsigned char *legal;       /* played (the opponent hears "moved") */
	unsigned char *color;       /* who tries */
	bool over;                  /* ends by the referee after the last try */
};

struct lconn;

struct pair {
	struct lconn *c[2];         /* WHITE, BLACK */
	int index;
	long long game;             /* kriegd's game id */
	const struct pgame *g;
	int pool_next;
	int pos;                    /* next try in g */
	bool ready;                 /* both logged in */
	bool playing;
	bool in_flight, got_ok, got_ann, want_ann, ending;
	long long want_id;
	double t_sent;
	struct event *think;
};

struct lconn {
	struct bufferevent *bev;
	struct pair *p;
	int side;
	int stage;                  /* 0 handshake, 1 greeting, 2 hello, 3 login, 4 ready */
	long long next_id, want_id;
	char name[64];              /* kriegd's guest name */
	/* --ws: the framing, once the 101 was checked (NULL before). */
	wslay_event_context_ptr ws;
	char ws_accept[32];         /* the Sec-WebSocket-Accept expected */
};

struct samples {
	uint32_t *v;                /* microseconds */
	size_t n, cap;
};

struct mem {                    /* from /proc/PID/status, KiB */
	long rss, hwm, anon, file, shmem;
};

struct soak_sample {            /* --soak: one sample */
	double t;                   /* seconds since the clock started */
	struct mem m;
	int live;                   /* pairs in a game */
	long games, tries;          /* finished since the clock started */
	long cpu;                   /* the daemon's utime+stime, ticks */
	long long db_kib, wal_kib;  /* kriegd.db and kriegd.db-wal */
};

struct run {
	enum server_kind kind;
	const char *path, *sync;
	int conns, pairs, idle;
	bool web;                   /* kriegd with listen_web too */
	bool ws;                    /* the clients connect to it, over WebSocket */
	int web_port;
	double think_ms, warm_s, window_s;
	struct event_base *base;
	SSL_CTX *ctx;
	int port;
	pid_t pid;
	char dir[256], log[300];
	struct lconn *lc;
	struct pair *pr;
	int opened, logged_in, setting_up, games_started;
	int phase;                  /* 0 setup, 1 warm-up, 2 window, 3 drain */
	double t_window0, t_window1;
	long tries, games_done, errors;
	long cpu0, cpu1;            /* daemon's utime+stime, ticks */
	long flt0, flt1;            /* daemon's minor page faults */
	long rss_base, rss_conns, rss_games;   /* KiB */
	double self_cpu0, self_cpu1;
	struct samples answer, ann;
	double who_ms;              /* --who: the interval; 0: none */
	struct event *who_timer;
	long long who_id;           /* the `who` page in flight on lc[0]; 0: none */
	double who_sent, who_page_sent;
	struct samples who, who_page;   /* whole lists, pages */
	unsigned seed;
	/* --soak (soak_s > 0): warm_s + window_s = soak_s. */
	double soak_s, sample_s, t_clock0;
	long tries_all, games_all;  /* since the clock started (every phase) */
	struct event *sampler;
	struct soak_sample *ss;
	size_t nss, capss;
};

static struct pgame pool[LG_GAMES_POOL];
static pid_t server_pid;        /* the server running now: stopped by die() too */

/* ---- small things ---------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static _Noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("loadgen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	if (server_pid > 0)
		kill(server_pid, SIGTERM);
	exit(1);
}

static void *xcalloc_lg(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die("out of memory");
	return p;
}

static void sample_add(struct samples *s, double seconds)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 4096;
		s->v = realloc(s->v, s->cap * sizeof *s->v);
		if (!s->v)
			die("out of memory");
	}
	double us = seconds * 1e6;
	s->v[s->n++] = us > 4e9 ? 4000000000u : (uint32_t)us;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The q-quantile in milliseconds (samples sorted). */
static double quantile_ms(const struct samples *s, double q)
{
	if (s->n == 0)
		return 0;
	size_t i = (size_t)(q * (double)(s->n - 1) + 0.5);
	return s->v[i] / 1000.0;
}

/* What a process's /proc/PID/stat says of it: utime + stime in clock
 * ticks, returned, and its minor page faults in *minflt when not NULL
 * (malloc giving memory back and faulting it in again once cost kriegd a
 * quarter of its CPU a try: BENCHMARKS.md, "2026-12-06"). */
static long proc_stat(pid_t pid, long *minflt)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	/* Fields after the command name, which ends at the last ')'. */
	char *p = strrchr(buf, ')');
	long ut = 0, st = 0, mf = 0;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %ld %*u %*u %*u %ld %ld", &mf, &ut, &st) != 3)
		die("cannot read %s", path);
	if (minflt)
		*minflt = mf;
	return ut + st;
}

/* The memory lines of /proc/PID/status (each -1 where it cannot be read). */
static struct mem proc_mem(pid_t pid)
{
	char path[64], line[256];
	struct mem m = { -1, -1, -1, -1, -1 };
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f)) {
		if (sscanf(line, "VmRSS: %ld", &m.rss) == 1 || sscanf(line, "VmHWM: %ld", &m.hwm) == 1 ||
		    sscanf(line, "RssAnon: %ld", &m.anon) == 1 ||
		    sscanf(line, "RssFile: %ld", &m.file) == 1 ||
		    sscanf(line, "RssShmem: %ld", &m.shmem) == 1)
			continue;
	}
	if (f)
		fclose(f);
	return m;
}

/* Size of a file in KiB, 0 if there is none. */
static long long file_kib(const char *dir, const char *name)
{
	char path[400];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return stat(path, &st) == 0 ? (long long)st.st_size / 1024 : 0;
}

static double self_cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* ---- the pre-computed games ------------------------------------------------- */

static void pool_build(unsigned seed)
{
	const struct ruleset *rs = ruleset_find("icc");
	char err[128];

	for (int k = 0; k < LG_GAMES_POOL; k++) {
		struct pgame *g = &pool[k];
		struct evlist out;
		struct referee *ref = referee_new(rs, NULL, err, sizeof err);

		evlist_init(&out);
		if (!ref || referee_begin(ref, &out) != REF_OK)
			die("local referee: %s", err);
		evlist_free(&out);
		g->line = xcalloc_lg(LG_TRIES_MAX, sizeof *g->line);
		g->legal = xcalloc_lg(LG_TRIES_MAX, 1);
		g->color = xcalloc_lg(LG_TRIES_MAX, 1);
		while (g->n < LG_TRIES_MAX && !referee_over(ref)) {
			struct movelist ml;
			int color = referee_side_to_move(ref);
			referee_possible(ref, color, &ml);
			if (ml.n == 0)
				die("no try in a live game");
			notation_uci(ml.m[rand_r(&seed) % (unsigned)ml.n], g->line[g->n]);
			evlist_init(&out);
			if (referee_attempt(ref, color, g->line[g->n], &out) != REF_OK)
				die("local referee refused a possible try");
			evlist_free(&out);
			g->color[g->n] = (unsigned char)color;
			g->legal[g->n] = referee_over(ref) || referee_side_to_move(ref) != color;
			g->n++;
		}
		g->over = referee_over(ref);
		referee_free(ref);
	}
}

/* ---- the servers ------------------------------------------------------------ */

static void start_server(struct run *r)
{
	const char *tmp = getenv("TMPDIR");
	char maxc[64], maxip[64], sync[64];

	snprintf(r->dir, sizeof r->dir, "%s/krieg-loadgen-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(r->dir))
		die("mkdtemp: %s", strerror(errno));
	snprintf(r->log, sizeof r->log, "%s/log", r->dir);
	snprintf(maxc, sizeof maxc, "max_connections=%d", r->conns + r->idle + 100);
	snprintf(maxip, sizeof maxip, "max_connections_per_ip=%d", r->conns + r->idle + 100);
	snprintf(sync, sizeof sync, "store_synchronous=%s", r->sync);
	r->pid = fork();
	if (r->pid < 0)
		die("fork");
	if (r->pid == 0) {
		/* Whatever happens to loadgen, its server does not outlive it. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		int fd = open(r->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		if (r->kind == SRV_ECHOD)
			execl(r->path, "echod", "600", (char *)NULL);
		else if (!r->web)
			execl(r->path, "kriegd", "--state-dir", r->dir, "--listen", "127.0.0.1:0",
			      "--set", "rate_limit=1000000", "--set", "rate_burst=1000000",
			      "--set", maxc, "--set", maxip, "--set", sync,
			      "--set", "guests_per_address=0", "--set", "guests_per_hour=0",
			      "--set", "register_per_hour=0", "--set", "games_per_hour=0",
			      "--set", "idle_timeout=600s", (char *)NULL);
		else
			/* The web listener opens after the line one: its
			 * "listening on" comes second in the log. */
			execl(r->path, "kriegd", "--state-dir", r->dir, "--listen", "127.0.0.1:0",
			      "--set", "rate_limit=1000000", "--set", "rate_burst=1000000",
			      "--set", maxc, "--set", maxip, "--set", sync,
			      "--set", "guests_per_address=0", "--set", "guests_per_hour=0",
			      "--set", "register_per_hour=0", "--set", "games_per_hour=0",
			      "--set", "idle_timeout=600s", "--set", "listen_web=127.0.0.1:0",
			      (char *)NULL);
		_exit(127);
	}
	server_pid = r->pid;
	for (int i = 0; i < 3000; i++) {
		char text[16384] = "";
		FILE *f = fopen(r->log, "r");
		if (f) {
			size_t n = fread(text, 1, sizeof text - 1, f);
			text[n] = '\0';
			fclose(f);
		}
		const char *p = strstr(text, "listening on 127.0.0.1:");
		if (p && strstr(text, "ready")) {
			r->port = atoi(p + strlen("listening on 127.0.0.1:"));
			if (r->web) {
				const char *q = strstr(p + 1, "listening on 127.0.0.1:");
				if (!q)
					die("%s: no web listener in its log:\n%s", r->path, text);
				r->web_port = atoi(q + strlen("listening on 127.0.0.1:"));
			}
			return;
		}
		if (waitpid(r->pid, NULL, WNOHANG) == r->pid)
			die("%s exited at start:\n%s", r->path, text);
		usleep(10000);
	}
	die("%s did not start", r->path);
}

static void stop_server(struct run *r)
{
	char cmd[400];
	int status = 0;

	kill(r->pid, SIGTERM);
	for (int i = 0; i < 3000 && waitpid(r->pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	if (waitpid(r->pid, &status, WNOHANG) == 0) {
		kill(r->pid, SIGKILL);
		waitpid(r->pid, &status, 0);
		fprintf(stderr, "loadgen: %s did not exit within 30 s of SIGTERM\n", r->path);
	}
	server_pid = 0;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", r->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "loadgen: could not remove %s\n", r->dir);
}

/* ---- the connections ---------------------------------------------------------- */

static struct run *R;   /* the run in progress (libevent callbacks) */

/* ---- the WebSocket client (--ws) ----------------------------------------------- */

static void on_line(struct lconn *c, const char *line);

/* Masking keys.  RFC 6455 wants them unpredictable to the page's script,
 * which this benchmark has none of; a cheap generator keeps loadgen's own
 * CPU, on the same cores as kriegd, out of the comparison. */
static int ws_genmask_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, void *arg)
{
	static uint64_t x = 0x9e3779b97f4a7c15u;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (uint8_t)x;
	}
	return 0;
}

static ssize_t ws_recv_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags,
                          void *arg)
{
	struct lconn *c = arg;
	int n = evbuffer_remove(bufferevent_get_input(c->bev), buf, len);

	if (n <= 0) {
		wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
		return -1;
	}
	return n;
}

static ssize_t ws_send_cb(wslay_event_context_ptr ctx, const uint8_t *data, size_t len,
                          int flags, void *arg)
{
	struct lconn *c = arg;

	if (evbuffer_add(bufferevent_get_output(c->bev), data, len) != 0)
		die("out of memory");
	return (ssize_t)len;
}

/* One text message is one line, without its newline. */
static void ws_msg_cb(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *arg,
                      void *user)
{
	struct lconn *c = user;
	char line[PROTO_LINE_MAX];

	switch (arg->opcode) {
	case WSLAY_TEXT_FRAME:
		/* max_recv_msg_length keeps it under PROTO_LINE_MAX. */
		if (arg->msg_length >= sizeof line || memchr(arg->msg, '\n', arg->msg_length))
			die("connection %ld: a message that is not one line", (long)(c - R->lc));
		memcpy(line, arg->msg, arg->msg_length);
		line[arg->msg_length] = '\0';
		on_line(c, line);
		return;
	case WSLAY_CONNECTION_CLOSE:
		die("connection %ld: the server closed its WebSocket (status %u)", (long)(c - R->lc),
		    (unsigned)arg->status_code);
	case WSLAY_BINARY_FRAME:
		die("connection %ld: a binary message from the server", (long)(c - R->lc));
	default:
		return;          /* ping (wslay queues the pong) and pong */
	}
}

static void ws_send(struct lconn *c, const char *msg, size_t n)
{
	struct wslay_event_msg m = { WSLAY_TEXT_FRAME, (const uint8_t *)msg, n };

	if (wslay_event_queue_msg(c->ws, &m) != 0 || wslay_event_send(c->ws) != 0)
		die("connection %ld: wslay cannot send", (long)(c - R->lc));
}

/* After TLS: the upgrade request, as a browser on the door's own page sends it. */
static void ws_upgrade(struct lconn *c)
{
	static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
	unsigned char raw[16], md[EVP_MAX_MD_SIZE];
	char key[32], cat[32 + sizeof guid];
	unsigned int mdlen = 0;

	if (RAND_bytes(raw, sizeof raw) != 1)
		die("RAND_bytes failed");
	EVP_EncodeBlock((unsigned char *)key, raw, sizeof raw);       /* 24 characters */
	snprintf(cat, sizeof cat, "%s%s", key, guid);
	if (EVP_Digest(cat, strlen(cat), md, &mdlen, EVP_sha1(), NULL) != 1 || mdlen != 20)
		die("SHA-1 failed");
	EVP_EncodeBlock((unsigned char *)c->ws_accept, md, 20);       /* 28 characters */
	evbuffer_add_printf(bufferevent_get_output(c->bev),
	                    "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	                    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
	                    "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
	                    "Origin: https://127.0.0.1:%d\r\n\r\n",
	                    R->web_port, key, R->web_port);
}

/* The value of a header field of head (its name case-insensitive), or NULL. */
static const char *head_field(const char *head, const char *name, size_t *len)
{
	size_t nl = strlen(name);

	for (const char *l = strstr(head, "\r\n"); l && l[2] != '\r'; l = strstr(l + 2, "\r\n")) {
		if (strncasecmp(l + 2, name, nl) == 0 && l[2 + nl] == ':') {
			const char *v = l + 3 + nl;
			v += strspn(v, " \t");
			*len = strcspn(v, " \t\r");
			return v;
		}
	}
	return NULL;
}

/* The server's response to the upgrade, once its head is whole: a 101
 * with the right Sec-WebSocket-Accept, or the run dies.  True when the
 * connection speaks WebSocket from here on. */
static bool ws_head(struct lconn *c)
{
	static const struct wslay_event_callbacks cbs = {
		.recv_callback = ws_recv_cb,
		.send_callback = ws_send_cb,
		.genmask_callback = ws_genmask_cb,
		.on_msg_recv_callback = ws_msg_cb,
	};
	struct evbuffer *in = bufferevent_get_input(c->bev);
	struct evbuffer_ptr p = evbuffer_search(in, "\r\n\r\n", 4, NULL);
	char head[LG_WS_HEAD_MAX + 1];
	const char *v;
	size_t vl = 0;
	long i = (long)(c - R->lc);

	if (p.pos < 0) {
		if (evbuffer_get_length(in) > LG_WS_HEAD_MAX)
			die("connection %ld: a response head over %d bytes", i, LG_WS_HEAD_MAX);
		return false;
	}
	size_t n = (size_t)p.pos + 4;
	if (n > LG_WS_HEAD_MAX || evbuffer_remove(in, head, n) != (int)n)
		die("connection %ld: a response head over %d bytes", i, LG_WS_HEAD_MAX);
	head[n] = '\0';
	if (strncmp(head, "HTTP/1.1 101 ", 13) != 0)
		die("connection %ld: upgrade refused: %.*s", i, (int)strcspn(head, "\r"), head);
	if (!(v = head_field(head, "Upgrade", &vl)) || vl != 9 || strncasecmp(v, "websocket", 9) != 0)
		die("connection %ld: a 101 without Upgrade: websocket", i);
	if (!(v = head_field(head, "Sec-WebSocket-Accept", &vl)) || vl != strlen(c->ws_accept) ||
	    memcmp(v, c->ws_accept, vl) != 0)
		die("connection %ld: wrong or missing Sec-WebSocket-Accept", i);
	if (wslay_event_context_client_init(&c->ws, &cbs, c) != 0)
		die("out of memory");
	wslay_event_config_set_max_recv_msg_length(c->ws, PROTO_LINE_MAX - 1);
	return true;
}

static void send_line(struct lconn *c, const char *fmt, ...)
{
	va_list ap;

	if (c->ws) {
		char msg[PROTO_LINE_MAX];
		va_start(ap, fmt);
		int n = vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		if (n < 0 || (size_t)n >= sizeof msg)
			die("a line over PROTO_LINE_MAX");
		ws_send(c, msg, (size_t)n);
		return;
	}
	struct evbuffer *out = bufferevent_get_output(c->bev);

	va_start(ap, fmt);
	evbuffer_add_vprintf(out, fmt, ap);
	va_end(ap);
	evbuffer_add(out, "\n", 1);
}

static long long request(struct lconn *c, const char *type, const char *fields)
{
	c->want_id = ++c->next_id;
	send_line(c, "{\"id\":%lld,\"type\":\"%s\"%s%s}", c->want_id, type,
	          fields && *fields ? "," : "", fields ? fields : "");
	return c->want_id;
}

static void open_more(void);
static void start_game(struct pair *p);
static void next_try(struct pair *p);

/* --who: the next `who` on the first connection, unless one is in flight. */
static void who_cb(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;

	(void)fd;
	(void)what;
	if (r->who_id != 0 || r->phase != 2)
		return;
	r->who_sent = r->who_page_sent = now_s();
	r->who_id = ++r->lc[0].next_id;
	send_line(&r->lc[0], "{\"id\":%lld,\"type\":\"who\"}", r->who_id);
}

static void think_cb(evutil_socket_t fd, short what, void *arg)
{
	next_try(arg);
}

static void after_try(struct pair *p)
{
	struct run *r = R;

	p->in_flight = false;
	if (r->phase == 2) {
		r->tries++;
		if (p->pos == p->g->n && !p->ending)
			r->games_done++;
	}
	if (r->phase == 1 || r->phase == 2) {
		r->tries_all++;
		if (p->pos == p->g->n && !p->ending)
			r->games_all++;
	}
	if (r->phase >= 3)
		return;
	if (p->pos == p->g->n) {
		if (r->kind == SRV_KRIEGD && !p->g->over) {
			/* Not over by LG_TRIES_MAX: resign, then the next game. */
			char f[64];
			snprintf(f, sizeof f, "\"game\":%lld", p->game);
			p->ending = true;
			p->in_flight = true;
			p->want_id = request(p->c[WHITE], "resign", f);
			return;
		}
		start_game(p);
		return;
	}
	if (r->think_ms > 0) {
		double ms = r->think_ms * (0.5 + (double)rand_r(&r->seed) / RAND_MAX);
		struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)((long)ms % 1000 * 1000) };
		evtimer_add(p->think, &tv);
	} else {
		next_try(p);
	}
}

static void next_try(struct pair *p)
{
	struct run *r = R;

	if (r->phase >= 3 || p->in_flight)
		return;
	int k = p->pos++;
	struct lconn *c = p->c[p->g->color[k]];
	p->in_flight = true;
	p->got_ok = p->got_ann = false;
	p->want_ann = r->kind == SRV_ECHOD || p->g->legal[k];
	p->want_id = ++c->next_id;
	p->t_sent = now_s();
	send_line(c, "{\"id\":%lld,\"type\":\"move\",\"game\":%lld,\"move\":\"%s\"}", p->want_id,
	          p->game, p->g->line[k]);
}

static void start_game(struct pair *p)
{
	struct run *r = R;

	p->g = &pool[p->pool_next];
	p->pool_next = (p->pool_next + 1) % LG_GAMES_POOL;
	p->pos = 0;
	p->ending = false;
	p->playing = false;
	if (r->kind == SRV_ECHOD) {
		p->playing = true;
		if (!p->ready)
			return;
		r->games_started++;
		if (r->phase > 0)
			next_try(p);
		return;
	}
	char f[160];
	snprintf(f, sizeof f, "\"user\":\"%s\",\"color\":\"white\",\"time\":{\"base\":3600,\"inc\":2}",
	         p->c[BLACK]->name);
	p->in_flight = true;
	p->want_id = request(p->c[WHITE], "challenge", f);
}

/* The number after key in line, or -1. */
static long long num_after(const char *line, const char *key)
{
	const char *q = strstr(line, key);
	return q ? strtoll(q + strlen(key), NULL, 10) : -1;
}

static void on_line(struct lconn *c, const char *line)
{
	struct run *r = R;
	struct pair *p = c->p;
	bool response = strncmp(line, "{\"id\":", 6) == 0;
	long long id = response ? strtoll(line + 6, NULL, 10) : -1;
	bool ok = response && strstr(line, "\"ok\":true") != NULL;

	if (c->stage < 4) {
		if (c->stage == 1 && strstr(line, "\"event\":\"greeting\"")) {
			c->stage = 2;
			request(c, "hello", "\"version\":1");
			return;
		}
		if (!response || id != c->want_id)
			return;
		if (!ok)
			die("setup refused: %s", line);
		if (c->stage == 2 && r->idle) {
			c->stage = 4;
			r->logged_in++;
			r->setting_up--;
			open_more();
			return;
		}
		if (c->stage == 2) {
			c->stage = 3;
			if (r->kind == SRV_KRIEGD) {
				request(c, "guest", NULL);
			} else {
				char f[32];
				snprintf(f, sizeof f, "\"key\":%d", p->index);
				request(c, "pair", f);
			}
			return;
		}
		const char *u = strstr(line, "\"user\":\"");
		if (u)
			snprintf(c->name, sizeof c->name, "%.*s", (int)strcspn(u + 8, "\""), u + 8);
		c->stage = 4;
		r->logged_in++;
		r->setting_up--;
		open_more();
		return;
	}
	if (response && c == &r->lc[0] && r->who_id != 0 && id == r->who_id) {
		if (!ok)
			die("who refused: %s", line);
		sample_add(&r->who_page, now_s() - r->who_page_sent);
		long long next = num_after(line, "\"next\":");
		if (next > 0) {
			r->who_page_sent = now_s();
			r->who_id = ++c->next_id;
			send_line(c, "{\"id\":%lld,\"type\":\"who\",\"from\":%lld}", r->who_id, next);
			return;
		}
		sample_add(&r->who, now_s() - r->who_sent);
		r->who_id = 0;
		return;
	}
	if (!p)
		return;
	if (!response) {
		bool ann = strstr(line, "\"event\":\"moved\"") || strstr(line, "\"event\":\"game_over\"");
		if (ann && p->in_flight && p->want_ann && !p->got_ann && p->playing &&
		    c != p->c[p->g->color[p->pos - 1]]) {
			p->got_ann = true;
			if (r->phase == 2)
				sample_add(&r->ann, now_s() - p->t_sent);
			if (p->got_ok)
				after_try(p);
		}
		return;
	}
	if (!p->in_flight || id != p->want_id)
		return;
	if (!ok)
		die("refused: %s", line);
	if (!p->playing) {
		/* kriegd: the challenge's offer, then black's accept of it. */
		if (c->side == WHITE) {
			char f[64];
			snprintf(f, sizeof f, "\"offer\":%lld", num_after(line, "\"offer\":"));
			p->want_id = request(p->c[BLACK], "accept", f);
			return;
		}
		p->game = num_after(line, "\"game\":");
		p->playing = true;
		p->in_flight = false;
		r->games_started++;
		if (r->phase > 0)
			next_try(p);
		return;
	}
	if (p->ending) {
		p->in_flight = false;
		start_game(p);
		return;
	}
	p->got_ok = true;
	if (r->phase == 2)
		sample_add(&r->answer, now_s() - p->t_sent);
	if (!p->want_ann || p->got_ann)
		after_try(p);
}

static void read_cb(struct bufferevent *bev, void *arg)
{
	struct lconn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	char *line;
	size_t n;

	if (R->ws) {
		if (!c->ws && (c->stage == 0 || !ws_head(c)))
			return;
		/* Every whole message goes to on_line; then the pongs wslay queued. */
		if (wslay_event_recv(c->ws) != 0 || wslay_event_send(c->ws) != 0)
			die("connection %ld: WebSocket protocol error from the server", (long)(c - R->lc));
		return;
	}
	while ((line = evbuffer_readln(in, &n, EVBUFFER_EOL_LF)) != NULL) {
		on_line(c, line);
		free(line);
	}
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct lconn *c = arg;

	if (what & BEV_EVENT_CONNECTED) {
		c->stage = 1;
		if (R->ws)
			ws_upgrade(c);
		return;
	}
	unsigned long e = bufferevent_get_openssl_error(bev);
	die("connection %ld closed by the server (%s)%s%s", (long)(c - R->lc),
	    what & BEV_EVENT_EOF ? "eof" : "error", e ? ": " : "",
	    e ? ERR_error_string(e, NULL) : "");
}

static void conn_open(struct run *r, struct lconn *c)
{
	int port = r->ws ? r->web_port : r->port;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	SSL *ssl = SSL_new(r->ctx);

	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	c->bev = bufferevent_openssl_socket_new(r->base, -1, ssl, BUFFEREVENT_SSL_CONNECTING,
	                                        BEV_OPT_CLOSE_ON_FREE);
	if (!ssl || !c->bev)
		die("bufferevent_openssl_socket_new");
	bufferevent_setcb(c->bev, read_cb, NULL, event_cb, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	if (bufferevent_socket_connect(c->bev, (struct sockaddr *)&sa, sizeof sa) != 0)
		die("connect: %s", strerror(errno));
	int one = 1;
	setsockopt(bufferevent_getfd(c->bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* Keep LG_HANDSHAKES connections being set up until all are open. */
static void open_more(void)
{
	struct run *r = R;
	int total = r->idle ? r->idle : r->conns;

	while (r->opened < total && r->setting_up < LG_HANDSHAKES) {
		struct lconn *c = &r->lc[r->opened++];
		r->setting_up++;
		conn_open(r, c);
	}
	if (r->logged_in == total)
		event_base_loopbreak(r->base);
}

/* ---- --soak: the memory samples ------------------------------------------ */

static void soak_take(struct run *r)
{
	if (r->nss == r->capss) {
		r->capss = r->capss ? r->capss * 2 : 256;
		r->ss = realloc(r->ss, r->capss * sizeof *r->ss);
		if (!r->ss)
			die("out of memory");
	}
	struct soak_sample *s = &r->ss[r->nss++];
	s->t = now_s() - r->t_clock0;
	s->m = proc_mem(r->pid);
	if (s->m.rss < 0)
		die("cannot read the memory of process %d", (int)r->pid);
	s->live = 0;
	for (int i = 0; i < r->pairs; i++)
		s->live += r->pr[i].playing;
	s->games = r->games_all;
	s->tries = r->tries_all;
	s->cpu = proc_stat(r->pid, NULL);
	s->db_kib = file_kib(r->dir, "kriegd.db");
	s->wal_kib = file_kib(r->dir, "kriegd.db-wal");

	const struct soak_sample *p = r->nss > 1 ? s - 1 : s;
	double dt = s->t - p->t;
	long tick = sysconf(_SC_CLK_TCK);
	printf("soak %6.0f s  VmRSS %7ld KiB  VmHWM %7ld KiB  (anon %ld, file %ld, shmem %ld)"
	       "  live games %d  finished %ld  tries %ld  %.0f tries/s  kriegd CPU %.0f%%"
	       "  db %lld KiB  wal %lld KiB%s\n",
	       s->t, s->m.rss, s->m.hwm, s->m.anon, s->m.file, s->m.shmem, s->live, s->games,
	       s->tries, dt > 0 ? (double)(s->tries - p->tries) / dt : 0,
	       dt > 0 ? 100.0 * (double)(s->cpu - p->cpu) / tick / dt : 0, s->db_kib, s->wal_kib,
	       s->t < r->warm_s - r->sample_s / 2 ? "  (warm-up)" : "");
	fflush(stdout);
}

static void sampler_cb(evutil_socket_t fd, short what, void *arg)
{
	soak_take(arg);
}

/* Least-squares slope of RSS (KiB) over time (s) of samples [a, b), and
 * its standard error in *se (0 with fewer than 3 samples).  The samples
 * are not independent (RSS moves slowly), so the error is a lower bound
 * on the real uncertainty: a hint, not a test. */
static double soak_slope(const struct soak_sample *s, size_t a, size_t b, double *se)
{
	double n = (double)(b - a), st = 0, sr = 0, stt = 0, str = 0, ssr = 0;

	*se = 0;
	if (b - a < 2)
		return 0;
	for (size_t i = a; i < b; i++) {
		st += s[i].t;
		sr += (double)s[i].m.rss;
	}
	double mt = st / n, mr = sr / n;
	for (size_t i = a; i < b; i++) {
		stt += (s[i].t - mt) * (s[i].t - mt);
		str += (s[i].t - mt) * ((double)s[i].m.rss - mr);
	}
	if (stt <= 0)
		return 0;
	double k = str / stt;
	for (size_t i = a; i < b; i++) {
		double e = (double)s[i].m.rss - (mr + k * (s[i].t - mt));
		ssr += e * e;
	}
	if (b - a > 2)
		*se = sqrt(ssr / (n - 2) / stt);
	return k;
}

/* The verdict over the samples after the warm-up; true when FLAT. */
static bool soak_verdict(const struct run *r)
{
	const struct soak_sample *s = r->ss;
	size_t a = 0, n = r->nss;

	while (a < n && s[a].t < r->warm_s - r->sample_s / 2)
		a++;
	if (n - a < 3)
		die("soak: %zu samples after the warm-up; at least 3 are needed (a longer run or a"
		    " shorter -S)", n - a);
	size_t h = a;
	while (h < n && s[h].t < (s[a].t + s[n - 1].t) / 2)
		h++;
	double span = s[n - 1].t - s[a].t;
	double se, se2;
	double slope = soak_slope(s, a, n, &se) * 60, slope2 = soak_slope(s, h, n, &se2) * 60;
	double growth = slope / 60 * span;      /* slopes in KiB/min */
	long max = 0, min = s[a].m.rss, max_after = 0;
	for (size_t i = 0; i < n; i++)
		max = s[i].m.rss > max ? s[i].m.rss : max;
	for (size_t i = a; i < n; i++) {
		min = s[i].m.rss < min ? s[i].m.rss : min;
		max_after = s[i].m.rss > max_after ? s[i].m.rss : max_after;
	}
	long games = s[n - 1].games - s[a].games, tries = s[n - 1].tries - s[a].tries;
	bool flat = growth < LG_SOAK_FLAT_KIB;

	printf("soak: %zu samples every %.0f s over %.0f s, %d connections (%d games at a time),"
	       " think %.0f ms; warm-up %.0f s\n", n, r->sample_s, s[n - 1].t, r->conns, r->pairs,
	       r->think_ms, r->warm_s);
	/* VmHWM is the kernel's peak, updated lazily: it can lag a sampled VmRSS. */
	printf("soak: VmRSS %ld KiB at the start, %ld KiB at the end of the warm-up (t=%.0f s),"
	       " %ld KiB at the end, %ld..%ld KiB after the warm-up, max %ld KiB; VmHWM %ld KiB\n",
	       s[0].m.rss, s[a].m.rss, s[a].t, s[n - 1].m.rss, min, max_after, max,
	       s[n - 1].m.hwm);
	printf("soak: after the warm-up %ld games finished (%ld in all), %ld tries; slope %+.1f"
	       " +- %.1f KiB/min (%+.3f%%/min), second half %+.1f +- %.1f KiB/min; fitted growth"
	       " %+.0f +- %.0f KiB over %.0f s (+- 2 standard errors)\n", games, s[n - 1].games,
	       tries, slope, 2 * se * 60, 100 * slope / (double)s[a].m.rss, slope2, 2 * se2 * 60,
	       growth, 2 * se * span, span);
	if (games > 0 && tries > 0)
		printf("soak: a leak below the threshold is under %.0f bytes per finished game or"
		       " %.2f bytes per try\n", LG_SOAK_FLAT_KIB * 1024 / (double)games,
		       LG_SOAK_FLAT_KIB * 1024 / (double)tries);
	printf("soak: %s (threshold: fitted growth under %.0f KiB after the warm-up)\n",
	       flat ? "FLAT" : "GROWING", LG_SOAK_FLAT_KIB);
	if (!flat && slope2 / 60 * span < LG_SOAK_FLAT_KIB)
		printf("soak: the second half alone is flat (%+.0f KiB over the same time): a cache"
		       " still filling? run longer\n", slope2 / 60 * span);
	return flat;
}

/* ---- one run -------------------------------------------------------------- */

static void deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	die("%s", (const char *)arg);
}

static void loop_for(struct run *r, double seconds)
{
	struct timeval tv = { (time_t)seconds, (suseconds_t)((seconds - (long)seconds) * 1e6) };
	event_base_loopexit(r->base, &tv);
	event_base_dispatch(r->base);
}

static bool all_idle(const struct run *r)
{
	for (int i = 0; i < r->pairs; i++)
		if (r->pr[i].in_flight)
			return false;
	return true;
}

static void run_one(struct run *r)
{
	R = r;
	r->seed = 12345;
	r->base = event_base_new();
	r->ctx = SSL_CTX_new(TLS_client_method());
	if (!r->base || !r->ctx)
		die("out of memory");
	SSL_CTX_set_verify(r->ctx, SSL_VERIFY_NONE, NULL);   /* loopback benchmark */
	start_server(r);
	usleep(200000);
	r->rss_base = proc_mem(r->pid).rss;

	int total = r->idle ? r->idle : r->conns;
	r->lc = xcalloc_lg((size_t)total, sizeof *r->lc);
	r->pairs = r->idle ? 0 : r->conns / 2;
	r->pr = xcalloc_lg((size_t)(r->pairs ? r->pairs : 1), sizeof *r->pr);
	for (int i = 0; i < r->pairs; i++) {
		struct pair *p = &r->pr[i];
		p->index = i;
		p->pool_next = i % LG_GAMES_POOL;
		p->think = evtimer_new(r->base, think_cb, p);
		for (int s = 0; s < 2; s++) {
			p->c[s] = &r->lc[2 * i + s];
			p->c[s]->p = p;
			p->c[s]->side = s;
		}
	}

	struct event *deadline = evtimer_new(r->base, deadline_cb, "setup did not finish in time");
	struct timeval setup_tv = { LG_SETUP_S, 0 };
	evtimer_add(deadline, &setup_tv);
	open_more();
	event_base_dispatch(r->base);      /* until every connection is logged in */
	usleep(200000);
	r->rss_conns = proc_mem(r->pid).rss;
	if (r->idle) {
		event_free(deadline);
		return;
	}
	for (int i = 0; i < r->pairs; i++) {
		r->pr[i].ready = true;
		start_game(&r->pr[i]);
	}
	while (r->games_started < r->pairs)
		loop_for(r, 0.05);
	event_del(deadline);
	usleep(200000);
	r->rss_games = proc_mem(r->pid).rss;

	/* The clock starts: warm-up, then the measured window. */
	r->phase = 1;
	r->t_clock0 = now_s();
	if (r->soak_s > 0) {
		struct timeval tv = { (time_t)r->sample_s,
		                      (suseconds_t)((r->sample_s - (long)r->sample_s) * 1e6) };
		r->sampler = event_new(r->base, -1, EV_PERSIST, sampler_cb, r);
		if (!r->sampler || evtimer_add(r->sampler, &tv) != 0)
			die("out of memory");
		soak_take(r);
	}
	for (int i = 0; i < r->pairs; i++) {
		struct pair *p = &r->pr[i];
		if (r->think_ms > 0) {
			/* Spread the first tries over one think time. */
			double ms = r->think_ms * (double)rand_r(&r->seed) / RAND_MAX;
			struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)((long)ms % 1000 * 1000) };
			evtimer_add(p->think, &tv);
		} else {
			next_try(p);
		}
	}
	loop_for(r, r->warm_s);
	r->phase = 2;
	if (r->who_ms > 0 && r->kind == SRV_KRIEGD) {
		struct timeval tv = { (time_t)(r->who_ms / 1000),
		                      (suseconds_t)((long)r->who_ms % 1000 * 1000) };
		r->who_timer = event_new(r->base, -1, EV_PERSIST, who_cb, r);
		if (!r->who_timer || evtimer_add(r->who_timer, &tv) != 0)
			die("out of memory");
	}
	r->cpu0 = proc_stat(r->pid, &r->flt0);
	r->self_cpu0 = self_cpu();
	r->t_window0 = now_s();
	loop_for(r, r->window_s);
	r->t_window1 = now_s();
	r->cpu1 = proc_stat(r->pid, &r->flt1);
	r->self_cpu1 = self_cpu();
	if (r->sampler) {
		event_free(r->sampler);
		r->sampler = NULL;
		if (r->nss == 0 || now_s() - r->t_clock0 - r->ss[r->nss - 1].t >= r->sample_s / 2)
			soak_take(r);
	}
	r->phase = 3;
	if (r->who_timer) {
		event_free(r->who_timer);
		r->who_timer = NULL;
	}
	for (int i = 0; i < r->pairs; i++)
		evtimer_del(r->pr[i].think);
	double until = now_s() + LG_DRAIN_S;
	while (!all_idle(r) && now_s() < until)
		loop_for(r, 0.05);
	event_free(deadline);
}

static void run_free(struct run *r)
{
	int total = r->idle ? r->idle : r->conns;

	for (int i = 0; i < total; i++) {
		if (r->lc[i].ws)
			wslay_event_context_free(r->lc[i].ws);
		if (r->lc[i].bev)
			bufferevent_free(r->lc[i].bev);
	}
	for (int i = 0; i < r->pairs; i++)
		event_free(r->pr[i].think);
	free(r->lc);
	free(r->pr);
	free(r->answer.v);
	free(r->ann.v);
	free(r->who.v);
	free(r->who_page.v);
	free(r->ss);
	event_base_free(r->base);
	SSL_CTX_free(r->ctx);
}

/* ---- reports ---------------------------------------------------------------- */

struct figures {
	double tries_s, games_s, cpu_us, self_us, faults;   /* faults: the daemon's minor faults a try */
	double ans[3], ann[3];     /* p50, p99, p99.9 in ms */
	double kib_conn, kib_game;
};

static struct figures figures_of(struct run *r)
{
	struct figures f = { 0 };
	double w = r->t_window1 - r->t_window0;
	long tick = sysconf(_SC_CLK_TCK);
	const double q[3] = { 0.50, 0.99, 0.999 };
	int total = r->idle ? r->idle : r->conns;

	f.kib_conn = (double)(r->rss_conns - r->rss_base) / total;
	if (r->idle)
		return f;
	f.tries_s = r->tries / w;
	f.games_s = r->games_done / w;
	f.cpu_us = r->tries ? (double)(r->cpu1 - r->cpu0) / tick / r->tries * 1e6 : 0;
	f.self_us = r->tries ? (r->self_cpu1 - r->self_cpu0) / r->tries * 1e6 : 0;
	f.faults = r->tries ? (double)(r->flt1 - r->flt0) / r->tries : 0;
	f.kib_game = (double)(r->rss_games - r->rss_conns) / r->pairs;
	qsort(r->answer.v, r->answer.n, sizeof *r->answer.v, cmp_u32);
	qsort(r->ann.v, r->ann.n, sizeof *r->ann.v, cmp_u32);
	qsort(r->who.v, r->who.n, sizeof *r->who.v, cmp_u32);
	qsort(r->who_page.v, r->who_page.n, sizeof *r->who_page.v, cmp_u32);
	for (int i = 0; i < 3; i++) {
		f.ans[i] = quantile_ms(&r->answer, q[i]);
		f.ann[i] = quantile_ms(&r->ann, q[i]);
	}
	return f;
}

static void print_figures(const char *name, const struct figures *f, const struct run *r)
{
	if (r->idle) {
		printf("%-7s %d idle %s connections: %.1f KiB each (RSS %ld -> %ld KiB)\n", name,
		       r->idle, r->ws ? "WebSocket" : "TLS", f->kib_conn, r->rss_base, r->rss_conns);
		return;
	}
	printf("%-7s %8.0f tries/s %7.2f games/s  try->ok p50/p99/p99.9 %.2f/%.2f/%.2f ms"
	       "  try->opponent %.2f/%.2f/%.2f ms\n", name, f->tries_s, f->games_s, f->ans[0],
	       f->ans[1], f->ans[2], f->ann[0], f->ann[1], f->ann[2]);
	printf("%-7s %8.1f us server CPU/try  %.1f us loadgen CPU/try  %.2f server page faults/try"
	       "  %.1f KiB/connection  %.1f KiB/live game  (%ld tries, %ld errors)\n", "", f->cpu_us,
	       f->self_us, f->faults, f->kib_conn, f->kib_game, r->tries, r->errors);
	if (r->who.n > 0)   /* sorted by figures_of */
		printf("%-7s who every %.0f ms: %zu answered (%zu pages), a page p50/max %.2f/%.2f ms,"
		       " the whole list %.2f/%.2f ms\n", "", r->who_ms, r->who.n, r->who_page.n,
		       quantile_ms(&r->who_page, 0.5), quantile_ms(&r->who_page, 1.0),
		       quantile_ms(&r->who, 0.5), quantile_ms(&r->who, 1.0));
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: loadgen [-c CONNS] [-d SECONDS] [-w SECONDS] [-t THINK_MS] "
	                "[-s SYNC] [-i IDLE] [-r] [--who MS] KRIEGD ECHOD\n"
	                "       loadgen --ws [options] KRIEGD [ECHOD]\n"
	                "       loadgen --soak SECONDS [-S INTERVAL] [options] KRIEGD [ECHOD]\n");
	exit(2);
}

static void pool_free(void)
{
	for (int k = 0; k < LG_GAMES_POOL; k++) {
		free(pool[k].line);
		free(pool[k].legal);
		free(pool[k].color);
	}
}

/* Within 15% of the line transport (issue 16): more is better for a rate,
 * less for a latency. */
static bool within15(double ws_over_line, bool rate)
{
	return rate ? ws_over_line >= 0.85 : ws_over_line <= 1.15;
}

/* --soak: kriegd alone for soak_s; its samples, figures and verdict. */
static int main_soak(const struct run *base, const char *kriegd)
{
	struct run k = *base;

	k.kind = SRV_KRIEGD;
	k.path = kriegd;
	printf("== soak: %d connections (%d games), think %.0f ms, synchronous=%s, %.0f s"
	       " (warm-up %.0f s), a sample every %.0f s\n", k.conns, k.conns / 2, k.think_ms,
	       k.sync, k.soak_s, k.warm_s, k.sample_s);
	fflush(stdout);
	run_one(&k);
	struct figures f = figures_of(&k);
	bool flat = soak_verdict(&k);
	stop_server(&k);
	printf("after the warm-up (%.0f s):\n", k.t_window1 - k.t_window0);
	print_figures("kriegd", &f, &k);
	run_free(&k);
	return flat ? 0 : 1;
}

/* --ws: the same kriegd and lines over its line transport, then over
 * WebSocket; the WebSocket figures as a ratio of the line ones. */
static void main_ws(const struct run *base, const char *kriegd, bool row)
{
	struct run line = *base, web = *base;

	line.kind = web.kind = SRV_KRIEGD;
	line.path = web.path = kriegd;
	line.web = web.web = true;
	web.ws = true;
	run_one(&line);
	struct figures fl = figures_of(&line);
	stop_server(&line);
	run_free(&line);
	run_one(&web);
	struct figures fw = figures_of(&web);
	stop_server(&web);

	if (base->idle)
		printf("== %d idle connections, kriegd: line transport v WebSocket\n", base->idle);
	else
		printf("== %d connections (%d games), think %.0f ms, synchronous=%s, %.0f s window,"
		       " kriegd: line transport v WebSocket\n", base->conns, base->conns / 2,
		       base->think_ms, base->sync, base->window_s);
	print_figures("line", &fl, &line);
	print_figures("ws", &fw, &web);
	if (base->idle) {
		printf("ws-line memory per idle connection %+.1f KiB\n", fw.kib_conn - fl.kib_conn);
		if (row)
			printf("WSROW| idle connections (hello only) | %d | %.1f KiB | %.1f KiB | %+.1f KiB "
			       "| %s |\n", base->idle, fw.kib_conn, fl.kib_conn, fw.kib_conn - fl.kib_conn,
			       fw.kib_conn - fl.kib_conn <= 2.0 ? "yes" : "no");
	} else {
		double rt = ratio(fw.tries_s, fl.tries_s), rp = ratio(fw.ans[1], fl.ans[1]);
		double ra = ratio(fw.ann[1], fl.ann[1]);
		printf("ratio   ws/line: tries/s %.2f, CPU/try %.2f, try->ok p50 %.2f p99 %.2f,"
		       " try->opponent p99 %.2f\n", rt, ratio(fw.cpu_us, fl.cpu_us),
		       ratio(fw.ans[0], fl.ans[0]), rp, ra);
		if (row)
			printf("WSROW| %d | %.0f ms | %.0f / %.0f | %.2f | %.2f / %.2f | %.2f "
			       "| %.2f / %.2f | %.1f / %.1f | %s |\n",
			       base->conns, base->think_ms, fw.tries_s, fl.tries_s, rt, fw.ans[1],
			       fl.ans[1], rp, fw.ann[1], fl.ann[1], fw.cpu_us, fl.cpu_us,
			       within15(rt, true) && within15(rp, false) ? "yes" : "no");
	}
	run_free(&web);
}

int main(int argc, char **argv)
{
	struct run base = { .conns = 32, .window_s = 5, .warm_s = 1, .sync = "full",
	                    .sample_s = 10 };
	static const struct option longopts[] = {
		{ "ws", no_argument, NULL, 'W' },
		{ "soak", required_argument, NULL, 'K' },
		{ "who", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	bool row = false, ws = false, warm_set = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "c:d:w:t:s:i:rS:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c': base.conns = atoi(optarg); break;
		case 'd': base.window_s = atof(optarg); break;
		case 'w': base.warm_s = atof(optarg); warm_set = true; break;
		case 'K': base.soak_s = atof(optarg); break;
		case 'S': base.sample_s = atof(optarg); break;
		case 't': base.think_ms = atof(optarg); break;
		case 's': base.sync = optarg; break;
		case 'i': base.idle = atoi(optarg); break;
		case 'r': row = true; break;
		case 'W': ws = true; break;
		case 'H': base.who_ms = atof(optarg); break;
		default: usage();
		}
	}
	bool soak = base.soak_s != 0;
	if (soak) {
		if (base.soak_s < 0 || base.soak_s > 86400 || base.sample_s < 0.1 ||
		    base.sample_s > base.soak_s || ws || row || base.idle)
			usage();
		if (!warm_set) {
			base.warm_s = base.soak_s / 5 < 120 ? 120 : base.soak_s / 5;
			base.warm_s = base.warm_s > base.soak_s / 2 ? base.soak_s / 2 : base.warm_s;
		}
		if (base.warm_s >= base.soak_s)
			usage();
		base.window_s = base.soak_s - base.warm_s;
	}
	if ((ws || soak ? argc - optind < 1 || argc - optind > 2 : argc - optind != 2) || base.conns < 2 || base.conns % 2 || base.conns > 100000 ||
	    base.idle < 0 || base.idle > 100000 || base.window_s <= 0 || base.window_s > 86400 ||
	    (!soak && base.window_s > 3600) ||
	    base.warm_s < 0 || base.warm_s > 600 || base.think_ms < 0 || base.think_ms > 60000 ||
	    base.who_ms < 0 || base.who_ms > 60000 || (base.who_ms > 0 && (ws || soak || base.idle)))
		usage();
	signal(SIGPIPE, SIG_IGN);
	/* Both ends of every connection: this process, and the servers it starts. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur < (rlim_t)(base.idle ? base.idle : base.conns) + 64)
		die("RLIMIT_NOFILE %ld is too low for %d connections", (long)rl.rlim_cur,
		    base.idle ? base.idle : base.conns);
	pool_build(7);
	if (soak) {
		int status = main_soak(&base, argv[optind]);
		pool_free();
		return status;
	}
	if (ws) {
		main_ws(&base, argv[optind], row);
		pool_free();
		return 0;
	}

	struct run echo = base, krieg = base;
	echo.kind = SRV_ECHOD;
	echo.path = argv[optind + 1];
	krieg.kind = SRV_KRIEGD;
	krieg.path = argv[optind];
	run_one(&echo);
	struct figures fe = figures_of(&echo);
	stop_server(&echo);
	run_free(&echo);      /* its connections: 10,000 idle ones twice would not fit */
	run_one(&krieg);
	struct figures fk = figures_of(&krieg);
	stop_server(&krieg);

	if (base.idle)
		printf("== %d idle connections\n", base.idle);
	else
		printf("== %d connections (%d games), think %.0f ms, synchronous=%s, %.0f s window\n",
		       base.conns, base.conns / 2, base.think_ms, base.sync, base.window_s);
	print_figures("echod", &fe, &echo);
	print_figures("kriegd", &fk, &krieg);
	if (base.idle) {
		printf("ratio   kriegd/echod memory per idle connection %.2f\n",
		       ratio(fk.kib_conn, fe.kib_conn));
		if (row)
			printf("ROW| idle TLS connections | %d | %.1f KiB | %.1f KiB | %.2f |\n",
			       base.idle, fk.kib_conn, fe.kib_conn, ratio(fk.kib_conn, fe.kib_conn));
	} else {
		printf("ratio   kriegd/echod: tries/s %.2f, CPU/try %.2f, try->ok p50 %.2f p99 %.2f,"
		       " try->opponent p99 %.2f\n", ratio(fk.tries_s, fe.tries_s),
		       ratio(fk.cpu_us, fe.cpu_us), ratio(fk.ans[0], fe.ans[0]),
		       ratio(fk.ans[1], fe.ans[1]), ratio(fk.ann[1], fe.ann[1]));
		if (row) {
			char think[128];
			int at = snprintf(think, sizeof think, "%.0f ms", base.think_ms);
			if (krieg.who.n > 0)
				snprintf(think + at, sizeof think - (size_t)at,
				         "; who every %.0f ms: a page p50/max %.1f/%.1f ms, the list %.1f/%.1f",
				         base.who_ms, quantile_ms(&krieg.who_page, 0.5),
				         quantile_ms(&krieg.who_page, 1.0), quantile_ms(&krieg.who, 0.5),
				         quantile_ms(&krieg.who, 1.0));
			printf("ROW| %d | %s | %.0f | %.0f | %.2f | %.1f / %.1f | %.2f "
			       "| %.2f / %.2f | %.2f / %.2f | %.1f / %.1f |\n",
			       base.conns, think, fk.tries_s, fe.tries_s,
			       ratio(fk.tries_s, fe.tries_s), fk.cpu_us, fe.cpu_us, fk.games_s,
			       fk.ans[1], fe.ans[1], fk.ann[1], fe.ann[1], fk.kib_conn, fk.kib_game);
		}
	}
	run_free(&krieg);
	pool_free();
	return 0;
}
