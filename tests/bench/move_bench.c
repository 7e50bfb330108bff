/*
 * move_bench.c — moves per second through a real kriegd, and how many
 * actions share one commit (group commit, server/batch.c).
 *
 *   make bench          (runs build/release/bench/move_bench bin/kriegd)
 *   build/release/bench/move_bench [KRIEGD] [SECONDS]
 *   build/release/bench/move_bench --stall NOTES ROUNDS [KRIEGD]
 *                       (how long one client's first read of a long
 *                       record holds every other client: stall() below)
 *   build/release/bench/move_bench --hidden NOTES ROUNDS [KRIEGD]
 *                       (what a view of a live game costs for the actions
 *                       its reader was not told of: hidden() below)
 *
 * For each setting it starts kriegd on a fresh state directory (under
 * $TMPDIR) with log_level = debug, opens G games between guests, and keeps
 * every game busy for SECONDS: the side to move sends a try chosen at
 * random among referee_possible() (a local referee follows each game, so
 * the try is always ruled on, legal or not) and waits for its ok before
 * the next.  It reports tries per second and, from the daemon's
 * "store commit actions=N" lines, the commits and actions per commit.
 * A single game is latency-bound (one commit per try); many games share
 * commits.
 *
 * On the shared 2-core build machine (ext4 on virtio, release build, 3 s):
 *   synchronous=full   games=1     2788 tries/s   1.00 actions/commit
 *   synchronous=full   games=16   10176 tries/s   7.88 actions/commit
 *   synchronous=normal games=16   14134 tries/s   7.76 actions/commit
 * (That disk's fsync is cheap; where it costs milliseconds, one game drops
 * to ~1/fsync-time tries/s while 16 games keep sharing each fsync.)
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <jansson.h>
#include <openssl/ssl.h>

#include "event.h"
#include "notation.h"
#include "referee.h"
#include "ruleset.h"

#define GAMES_MAX 64
#define LINE_MAX_BENCH 65536

struct bconn {
	int fd;
	SSL *ssl;
	char buf[LINE_MAX_BENCH];
	size_t len;
	long long next_id;
};

struct bgame {
	long long id;
	struct bconn *side[2];
	struct referee *ref;
	long long waiting;           /* request id awaiting its ok, or 0 */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The daemon of the setting being run: a failure stops it too (else it
 * outlives the benchmark, holding the caller's stdout open). */
static pid_t daemon_pid;

static _Noreturn void die(const char *what)
{
	fprintf(stderr, "move_bench: %s\n", what);
	if (daemon_pid > 0)
		kill(daemon_pid, SIGTERM);
	exit(1);
}

static void write_all(struct bconn *c, const char *p, int n)
{
	while (n > 0) {
		int w = SSL_write(c->ssl, p, n);
		if (w > 0) {
			p += w;
			n -= w;
			continue;
		}
		int e = SSL_get_error(c->ssl, w);
		struct pollfd pfd = { c->fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, 0 };
		if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
			die("write failed");
		poll(&pfd, 1, 1000);
	}
}

/* One write per line: two small TLS records in a row would meet Nagle and
 * delayed ACKs (40 ms stalls), measuring TCP instead of kriegd. */
static void bsend(struct bconn *c, const char *line)
{
	char buf[1024];
	int n = snprintf(buf, sizeof buf, "%s\n", line);
	if (n < 0 || (size_t)n >= sizeof buf)
		die("request too long");
	write_all(c, buf, n);
}

/* One line if a whole one is buffered: NUL-terminated in place, consumed
 * by the next call.  Returns NULL if none. */
static char *take_line(struct bconn *c, size_t *consumed)
{
	char *nl = memchr(c->buf, '\n', c->len);
	if (!nl)
		return NULL;
	*nl = '\0';
	*consumed = (size_t)(nl - c->buf) + 1;
	return c->buf;
}

static void drop(struct bconn *c, size_t n)
{
	memmove(c->buf, c->buf + n, c->len - n);
	c->len -= n;
}

static void fill(struct bconn *c)
{
	if (c->len == sizeof c->buf)
		die("line too long");
	int r = SSL_read(c->ssl, c->buf + c->len, (int)(sizeof c->buf - c->len));
	if (r > 0) {
		c->len += (size_t)r;
		return;
	}
	int e = SSL_get_error(c->ssl, r);
	/* Non-blocking (the timed phase): a record that held no data yet. */
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
		return;
	die("connection closed");
}

/* Send a request; returns its id. */
static long long request(struct bconn *c, const char *type, json_t *fields)
{
	long long id = ++c->next_id;
	json_t *req = fields ? fields : json_object();
	json_object_set_new(req, "id", json_integer(id));
	json_object_set_new(req, "type", json_string(type));
	char *s = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	bsend(c, s);
	free(s);
	return id;
}

/* Wait for the response to request id, which must be ok (events and
 * other responses are skipped). */
static json_t *response(struct bconn *c, long long id, const char *type)
{
	for (;;) {
		size_t used;
		char *line;
		while ((line = take_line(c, &used)) != NULL) {
			json_t *j = json_loads(line, 0, NULL);
			drop(c, used);
			if (j && json_integer_value(json_object_get(j, "id")) == id) {
				if (!json_is_true(json_object_get(j, "ok"))) {
					char *text = json_dumps(j, JSON_COMPACT);
					fprintf(stderr, "move_bench: %s refused: %s\n", type,
					        text ? text : "?");
					die(type);
				}
				return j;
			}
			json_decref(j);
		}
		struct pollfd pfd = { c->fd, POLLIN, 0 };
		if (SSL_pending(c->ssl) == 0 && poll(&pfd, 1, 10000) == 0)
			die("no response");
		fill(c);
	}
}

/* Send a request and wait for its response. */
static json_t *call(struct bconn *c, const char *type, json_t *fields)
{
	return response(c, request(c, type, fields), type);
}

/* A connection past its hello. */
static struct bconn *bopen(SSL_CTX *ctx, int port)
{
	struct bconn *c = calloc(1, sizeof *c);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (!c || (c->fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    connect(c->fd, (struct sockaddr *)&sa, sizeof sa) != 0)
		die("connect");
	c->ssl = SSL_new(ctx);
	SSL_set_fd(c->ssl, c->fd);
	if (SSL_connect(c->ssl) != 1)
		die("TLS handshake");
	json_decref(call(c, "hello", json_pack("{s:i}", "version", 1)));
	return c;
}

/* A guest's connection. */
static struct bconn *bconnect(SSL_CTX *ctx, int port)
{
	struct bconn *c = bopen(ctx, port);
	json_decref(call(c, "guest", NULL));
	return c;
}

static void bclose(struct bconn *c)
{
	SSL_shutdown(c->ssl);
	SSL_free(c->ssl);
	close(c->fd);
	free(c);
}

/* Start kriegd; returns its pid, the port in *port. */
static pid_t start_kriegd(const char *kriegd, const char *dir, const char *sync, int *port,
                          char *logpath, size_t loglen)
{
	char set_sync[64];
	snprintf(logpath, loglen, "%s/log", dir);
	snprintf(set_sync, sizeof set_sync, "store_synchronous=%s", sync);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		execl(kriegd, "kriegd", "--state-dir", dir, "--listen", "127.0.0.1:0", "--set",
		      "log_level=debug", "--set", "rate_limit=1000000", "--set", "rate_burst=1000000",
		      "--set", "max_connections_per_ip=1000", "--set", "guests_per_address=0",
		      "--set", "games_per_hour=0", "--set", set_sync, (char *)NULL);
		_exit(127);
	}
	daemon_pid = pid;
	for (int i = 0; i < 3000; i++) {
		char text[8192] = "";
		FILE *f = fopen(logpath, "r");
		if (f) {
			size_t n = fread(text, 1, sizeof text - 1, f);
			text[n] = '\0';
			fclose(f);
		}
		const char *p = strstr(text, "listening on 127.0.0.1:");
		if (p && strstr(text, "ready")) {
			*port = atoi(p + strlen("listening on 127.0.0.1:"));
			return pid;
		}
		usleep(10000);
	}
	die("kriegd did not start");
}

/* Commits and actions from the log's "store commit actions=N" lines. */
static void count_commits(const char *logpath, long *commits, long *actions)
{
	FILE *f = fopen(logpath, "r");
	char line[512];
	*commits = *actions = 0;
	while (f && fgets(line, sizeof line, f)) {
		const char *p = strstr(line, "store commit actions=");
		if (p) {
			(*commits)++;
			*actions += atol(p + strlen("store commit actions="));
		}
	}
	if (f)
		fclose(f);
}

/* A new game between the game's two players (again, when one ended). */
static void new_game(struct bgame *g, const struct ruleset *rs)
{
	char err[128];
	json_t *r = call(g->side[WHITE], "seek", json_pack("{s:s}", "color", "white"));
	json_int_t offer = json_integer_value(json_object_get(r, "offer"));
	json_decref(r);
	r = call(g->side[BLACK], "accept", json_pack("{s:I}", "offer", offer));
	g->id = json_integer_value(json_object_get(r, "game"));
	json_decref(r);
	struct evlist out;
	evlist_init(&out);
	referee_free(g->ref);
	g->ref = referee_new(rs, NULL, err, sizeof err);
	if (!g->ref || referee_begin(g->ref, &out) != REF_OK)
		die("local referee");
	evlist_free(&out);
	g->waiting = 0;
}

static void next_try(struct bgame *g, unsigned *seed)
{
	struct movelist ml;
	struct evlist out;
	char uci[NOTATION_MAX], line[200];
	int color = referee_side_to_move(g->ref);
	referee_possible(g->ref, color, &ml);
	if (ml.n == 0)
		die("no try to make in a live game");
	notation_uci(ml.m[rand_r(seed) % (unsigned)ml.n], uci);
	evlist_init(&out);
	if (referee_attempt(g->ref, color, uci, &out) != REF_OK)
		die("local referee refused a possible try");
	evlist_free(&out);
	struct bconn *c = g->side[color];
	g->waiting = ++c->next_id;
	snprintf(line, sizeof line, "{\"id\":%lld,\"type\":\"move\",\"game\":%lld,\"move\":\"%s\"}",
	         g->waiting, g->id, uci);
	bsend(c, line);
}

/* A setting's fresh state directory into dir (BENCH_DIR_MAX) under the
 * disk under test, TMPDIR (e.g. the file system kriegd's state lives
 * on), and a TLS client context for it: bench_end undoes both. */
#define BENCH_DIR_MAX 256
static SSL_CTX *bench_begin(char *dir)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, BENCH_DIR_MAX, "%s/krieg-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		die("mkdtemp");
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);   /* a benchmark on localhost */
	return ctx;
}

/* The setting's daemon stopped (if it still runs), ctx freed, dir gone. */
static void bench_end(SSL_CTX *ctx, const char *dir)
{
	char cmd[BENCH_DIR_MAX + 16];
	if (daemon_pid > 0) {
		kill(daemon_pid, SIGTERM);
		waitpid(daemon_pid, NULL, 0);
		daemon_pid = 0;
	}
	SSL_CTX_free(ctx);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "move_bench: could not remove %s\n", dir);
}

static void run(const char *kriegd, const char *sync, int ngames, double seconds)
{
	char dir[BENCH_DIR_MAX], logpath[300];
	int port;
	unsigned seed = 7;
	SSL_CTX *ctx = bench_begin(dir);
	pid_t pid = start_kriegd(kriegd, dir, sync, &port, logpath, sizeof logpath);

	static struct bgame games[GAMES_MAX];
	const struct ruleset *rs = ruleset_find("icc");
	for (int i = 0; i < ngames; i++) {
		struct bgame *g = &games[i];
		memset(g, 0, sizeof *g);
		g->side[WHITE] = bconnect(ctx, port);
		g->side[BLACK] = bconnect(ctx, port);
		new_game(g, rs);
	}
	/* From here on nothing may block: a socket can be readable with only
	 * a TLS record that holds no data (a session ticket). */
	for (int i = 0; i < ngames; i++)
		for (int s2 = 0; s2 < 2; s2++)
			fcntl(games[i].side[s2]->fd, F_SETFL,
			      fcntl(games[i].side[s2]->fd, F_GETFL) | O_NONBLOCK);
	long commits0, actions0;
	count_commits(logpath, &commits0, &actions0);

	long moves = 0, finished = 0;
	double t0 = now_s(), t1 = t0;
	for (int i = 0; i < ngames; i++)
		next_try(&games[i], &seed);
	while ((t1 = now_s()) - t0 < seconds) {
		struct pollfd pfd[2 * GAMES_MAX];
		struct bconn *pc[2 * GAMES_MAX];
		int n = 0;
		for (int i = 0; i < ngames; i++)
			for (int s = 0; s < 2; s++) {
				pc[n] = games[i].side[s];
				pfd[n].fd = pc[n]->fd;
				pfd[n].events = POLLIN;
				/* Bytes OpenSSL already holds count as readable. */
				pfd[n].revents = SSL_pending(pc[n]->ssl) > 0 ? POLLIN : 0;
				n++;
			}
		int any = 0;
		for (int k = 0; k < n; k++)
			any |= pfd[k].revents;
		if (!any && poll(pfd, (nfds_t)n, 1000) < 0 && errno != EINTR)
			die("poll");
		for (int k = 0; k < n; k++) {
			if (!(pfd[k].revents & POLLIN))
				continue;
			struct bconn *c = pc[k];
			fill(c);
			size_t used;
			char *line;
			while ((line = take_line(c, &used)) != NULL) {
				json_t *j = json_loads(line, 0, NULL);
				drop(c, used);
				json_t *id = j ? json_object_get(j, "id") : NULL;
				for (int i = 0; id && i < ngames; i++) {
					struct bgame *g = &games[i];
					if (g->waiting == 0 || json_integer_value(id) != g->waiting ||
					    (g->side[WHITE] != c && g->side[BLACK] != c))
						continue;
					if (!json_is_true(json_object_get(j, "ok")))
						die("a try was refused");
					g->waiting = 0;
					moves++;
					/* A finished game is replaced, so G games stay busy. */
					if (referee_over(g->ref)) {
						new_game(g, rs);
						finished++;
					}
					next_try(g, &seed);
				}
				json_decref(j);
			}
		}
	}
	double elapsed = t1 - t0;
	long commits, actions;
	for (int i = 0; i < ngames; i++) {
		bclose(games[i].side[WHITE]);
		bclose(games[i].side[BLACK]);
		referee_free(games[i].ref);
	}
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	daemon_pid = 0;
	count_commits(logpath, &commits, &actions);
	commits -= commits0;
	actions -= actions0;
	printf("synchronous=%-6s games=%-3d %7.0f tries/s  %6ld commits  %5.2f actions/commit"
	       "  (%ld games finished)\n", sync, ngames, moves / elapsed, commits,
	       commits ? (double)actions / commits : 0.0, finished);
	bench_end(ctx, dir);
}

/* ---- --stall: how long one reader of a long record holds the others ---- */

#define STALL_PINGS 65536
#define STALL_PASSWORD "sesame-open"

/* The pinger's round trips, on its own thread and connection. */
struct pinger {
	struct bconn *c;
	pthread_t thread;
	atomic_bool stop;
	size_t n;                   /* read after the join */
	double start[STALL_PINGS], end[STALL_PINGS];
};

static void *pinger_main(void *arg)
{
	struct pinger *p = arg;
	while (!atomic_load(&p->stop) && p->n < STALL_PINGS) {
		double t = now_s();
		json_decref(call(p->c, "ping", NULL));
		p->start[p->n] = t;
		p->end[p->n++] = now_s();
		usleep(1000);
	}
	return NULL;
}

/* The worst round trip of the pings that overlapped [t0, t1]. */
static double worst_ping(const struct pinger *p, double t0, double t1)
{
	double w = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->start[i] < t1 && p->end[i] > t0 && p->end[i] - p->start[i] > w)
			w = p->end[i] - p->start[i];
	return w;
}

/* `kriegd --state-dir dir user add ump --role umpire --password-stdin`. */
static void add_umpire(const char *kriegd, const char *dir)
{
	int fd[2];
	if (pipe(fd) != 0)
		die("pipe");
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[0], 0);
		close(fd[1]);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execl(kriegd, "kriegd", "--state-dir", dir, "user", "add", "ump", "--role", "umpire",
		      "--password-stdin", (char *)NULL);
		_exit(127);
	}
	close(fd[0]);
	if (write(fd[1], STALL_PASSWORD "\n", strlen(STALL_PASSWORD) + 1) < 0)
		die("write");
	close(fd[1]);
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		die("user add");
}

/* `notes` notes (public or private) in game from u, in the chair: n0, n1 ... */
static void umpire_notes(struct bconn *u, long long game, int notes, bool public)
{
	for (int k = 0; k < notes; k += 100) {
		long long ids[100];
		int n = notes - k < 100 ? notes - k : 100;
		for (int i = 0; i < n; i++) {
			char text[16];
			snprintf(text, sizeof text, "n%d", k + i);
			ids[i] = request(u, "note", json_pack("{s:I, s:s, s:b}", "game", (json_int_t)game,
			                                      "text", text, "public", public));
		}
		for (int i = 0; i < n; i++)
			json_decref(response(u, ids[i], "note"));
	}
}

/* A game of two guests with `notes` umpire's notes: its id.  Finished,
 * or with token (STALL_TOKEN_MAX) live, White's session token in it. */
#define STALL_TOKEN_MAX 128
/* A game of guests w (White) and b, 1. e4 played, u logged in as the
 * umpire (add_umpire) and in its chair: its id. */
static long long umpired_game(struct bconn *w, struct bconn *b, struct bconn *u)
{
	json_decref(call(u, "login", json_pack("{s:s, s:s}", "user", "ump", "password", STALL_PASSWORD)));
	json_t *r = call(w, "seek", json_pack("{s:s}", "color", "white"));
	json_int_t offer = json_integer_value(json_object_get(r, "offer"));
	json_decref(r);
	r = call(b, "accept", json_pack("{s:I}", "offer", offer));
	long long game = json_integer_value(json_object_get(r, "game"));
	json_decref(r);
	json_decref(call(w, "move", json_pack("{s:I, s:s}", "game", (json_int_t)game, "move", "e4")));
	json_decref(call(u, "umpire", json_pack("{s:I}", "game", (json_int_t)game)));
	return game;
}

/* The players leave before the notes and White comes back after them by
 * its session: they would read none of them, and a player who does not
 * read is closed as a slow reader once its output passes
 * output_buffer_max (40,000 notes did, on 2026-12-07: the bench died on
 * the resign). An untimed game abandons nobody. */
static long long noted_game(SSL_CTX *ctx, int port, int notes, char *token)
{
	struct bconn *w = bopen(ctx, port), *b = bconnect(ctx, port), *u = bopen(ctx, port);
	char kept[STALL_TOKEN_MAX];
	json_t *r = call(w, "guest", NULL);
	snprintf(kept, sizeof kept, "%s", json_string_value(json_object_get(r, "token")));
	if (token != NULL)
		snprintf(token, STALL_TOKEN_MAX, "%s", kept);
	json_decref(r);
	long long game = umpired_game(w, b, u);
	bclose(w);
	bclose(b);
	umpire_notes(u, game, notes, true);
	if (token == NULL) {
		w = bopen(ctx, port);
		json_decref(call(w, "resume", json_pack("{s:s}", "token", kept)));
		json_decref(call(w, "resign", json_pack("{s:I}", "game", (json_int_t)game)));
		bclose(w);
	}
	bclose(u);
	return game;
}

/* What one round of stall() reads first: a record's PGN or its first
 * page (of the finished game), or White's state of the live one, sent
 * after a resume (the ping sent behind the resume is answered after the
 * whole state). */
enum { STALL_PGN, STALL_RECORD, STALL_LOGIN, STALL__KINDS };
static const char *const stall_kind[STALL__KINDS] = { "pgn", "record", "login" };

static void stall_read(struct bconn *a, int kind, long long game, const char *token)
{
	if (kind == STALL_LOGIN) {
		json_decref(call(a, "resume", json_pack("{s:s}", "token", token)));
		json_decref(call(a, "ping", NULL));
		return;
	}
	json_decref(call(a, stall_kind[kind], json_pack("{s:I, s:s}", "game", (json_int_t)game,
	                                                "view", "umpire")));
}

/*
 * Two records of `notes` umpire's notes, one finished and one live, then
 * for each round a kriegd started afresh on them (every cache cold): a
 * pinger pings every millisecond on a connection of its own while another
 * connection asks for the finished record's first `pgn` chunk, or its
 * first `record` page, or resumes White's session in the live one (its
 * game_state holds the whole record: rounds take the three in turn).
 * Reported: how long that read took, and the worst ping round trip while
 * it was out (against the worst before it): how long the one read held
 * everyone else.
 */
static void stall(const char *kriegd, int notes, int rounds)
{
	char dir[BENCH_DIR_MAX], logpath[300];
	SSL_CTX *ctx = bench_begin(dir);
	add_umpire(kriegd, dir);
	int port;
	pid_t pid = start_kriegd(kriegd, dir, "full", &port, logpath, sizeof logpath);
	char token[STALL_TOKEN_MAX];
	long long game = noted_game(ctx, port, notes, NULL);
	long long live = noted_game(ctx, port, notes, token);
	double worst[STALL__KINDS] = { 0 };
	for (int r = 0; r < rounds; r++) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		unlink(logpath);   /* its port is not the next one's */
		pid = start_kriegd(kriegd, dir, "full", &port, logpath, sizeof logpath);
		int kind = r % STALL__KINDS;
		struct pinger *p = calloc(1, sizeof *p);
		struct bconn *a = kind == STALL_LOGIN ? bopen(ctx, port) : bconnect(ctx, port);
		if (!p)
			die("calloc");
		p->c = bconnect(ctx, port);
		if (pthread_create(&p->thread, NULL, pinger_main, p) != 0)
			die("pthread_create");
		usleep(300 * 1000);
		double t0 = now_s();
		stall_read(a, kind, kind == STALL_LOGIN ? live : game, token);
		double t1 = now_s();
		usleep(100 * 1000);
		atomic_store(&p->stop, true);
		pthread_join(p->thread, NULL);
		double during = worst_ping(p, t0, t1), before = worst_ping(p, 0, t0);
		if (during > worst[kind])
			worst[kind] = during;
		printf("stall: %-6s of %d notes, cold: answered in %6.1f ms; worst ping meanwhile "
		       "%6.2f ms (before it %5.2f ms)\n", stall_kind[kind], notes, (t1 - t0) * 1000,
		       during * 1000, before * 1000);
		bclose(a);
		bclose(p->c);
		free(p);
	}
	printf("stall: worst ping while a long record was first read: pgn %.2f ms, record %.2f ms, "
	       "login %.2f ms\n", worst[STALL_PGN] * 1000, worst[STALL_RECORD] * 1000,
	       worst[STALL_LOGIN] * 1000);
	bench_end(ctx, dir);
}

/* ---- --hidden: what a view costs for the actions its reader was not told of ---- */

#define HIDDEN_ROUNDS_MAX 100000

/* A live game of two guests with `hidden` private notes (heard by no
 * player and no spectator) and then a public one: its id, and in c
 * White's connection, Black's and a seated spectator's (HIDDEN_WHITE ...). */
enum { HIDDEN_WHITE, HIDDEN_BLACK, HIDDEN_SPECTATOR, HIDDEN__CONNS };
static long long hidden_game(SSL_CTX *ctx, int port, int hidden, struct bconn *c[HIDDEN__CONNS])
{
	struct bconn *w = bconnect(ctx, port), *b = bconnect(ctx, port), *u = bopen(ctx, port);
	struct bconn *s = bconnect(ctx, port);
	long long game = umpired_game(w, b, u);
	umpire_notes(u, game, hidden, false);
	umpire_notes(u, game, 1, true);
	json_decref(call(s, "watch", json_pack("{s:I}", "game", (json_int_t)game)));
	bclose(u);
	c[HIDDEN_WHITE] = w;
	c[HIDDEN_BLACK] = b;
	c[HIDDEN_SPECTATOR] = s;
	return game;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median of n readings (sorted in place). */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* What a live game's views read (server/audlist.h) measured from outside, as
 * the timing probe did: two games in one kriegd, one with no hidden
 * action and one with `hidden` private notes, both then with a public
 * note; White's `game` and own `record`, and a spectator's `watch`, of
 * each in turn, `rounds` times: the medians, and what the hidden actions
 * add (a replay of the record added about 0.7 us each: PROTOCOL.md
 * "Games"). */
enum { HIDDEN_GAME, HIDDEN_RECORD, HIDDEN_WATCH, HIDDEN__VIEWS };
static const char *const hidden_view[HIDDEN__VIEWS] = { "game", "record", "watch" };

static void hidden(const char *kriegd, int notes, int rounds)
{
	char dir[BENCH_DIR_MAX], logpath[300];
	if (rounds > HIDDEN_ROUNDS_MAX)
		rounds = HIDDEN_ROUNDS_MAX;
	SSL_CTX *ctx = bench_begin(dir);
	add_umpire(kriegd, dir);
	int port;
	start_kriegd(kriegd, dir, "normal", &port, logpath, sizeof logpath);
	struct bconn *c[2][HIDDEN__CONNS];
	long long game[2] = { hidden_game(ctx, port, 0, c[0]), hidden_game(ctx, port, notes, c[1]) };
	static double t[HIDDEN__VIEWS][2][HIDDEN_ROUNDS_MAX];
	for (int r = 0; r < rounds; r++)
		for (int v = 0; v < HIDDEN__VIEWS; v++)
			for (int k = 0; k < 2; k++) {
				json_t *f = v == HIDDEN_RECORD
				            ? json_pack("{s:I, s:s}", "game", (json_int_t)game[k], "view", "white")
				            : json_pack("{s:I}", "game", (json_int_t)game[k]);
				double t0 = now_s();
				json_decref(call(c[k][v == HIDDEN_WATCH ? HIDDEN_SPECTATOR : HIDDEN_WHITE],
				                 hidden_view[v], f));
				t[v][k][r] = now_s() - t0;
			}
	for (int v = 0; v < HIDDEN__VIEWS; v++) {
		double none = median(t[v][0], rounds), some = median(t[v][1], rounds);
		printf("hidden: %-6s median %7.1f us with no hidden action, %7.1f us with %d: "
		       "%+7.1f us (%+.3f us an action)\n", hidden_view[v], none * 1e6, some * 1e6, notes,
		       (some - none) * 1e6, (some - none) * 1e6 / notes);
	}
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < HIDDEN__CONNS; i++)
			bclose(c[k][i]);
	bench_end(ctx, dir);
}

int main(int argc, char **argv)
{
	int stall_notes = 0, stall_rounds = 0, hidden_notes = 0, hidden_rounds = 0;
	if (argc > 3 && strcmp(argv[1], "--stall") == 0) {
		stall_notes = atoi(argv[2]);
		stall_rounds = atoi(argv[3]);
		argv += 3;
		argc -= 3;
	} else if (argc > 3 && strcmp(argv[1], "--hidden") == 0) {
		hidden_notes = atoi(argv[2]);
		hidden_rounds = atoi(argv[3]);
		argv += 3;
		argc -= 3;
	}
	const char *kriegd = argc > 1 ? argv[1] : getenv("KRIEGD") ? getenv("KRIEGD") : "bin/kriegd";
	double seconds = argc > 2 ? atof(argv[2]) : 3.0;
	if (access(kriegd, X_OK) != 0) {
		fprintf(stderr, "move_bench: %s not found (build it first)\n", kriegd);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	if (stall_notes > 0) {
		stall(kriegd, stall_notes, stall_rounds > 0 ? stall_rounds : 2);
		return 0;
	}
	if (hidden_notes > 0) {
		hidden(kriegd, hidden_notes, hidden_rounds > 0 ? hidden_rounds : 200);
		return 0;
	}
	run(kriegd, "full", 1, seconds);
	run(kriegd, "full", 16, seconds);
	run(kriegd, "normal", 16, seconds);
	return 0;
}
