/*
 * harness.c — see harness.h.
 */
#define _GNU_SOURCE 1
#include "harness.h"
#include "harness_replay.h"

#include "check_main.h"   /* check.h, with assertions that do not write on a pass */
#include <sqlite3.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "dispatch.h"
#include "proto.h"

#define KC_LINE_BUF (PROTO_LINE_MAX * 2)

struct kd {
	pid_t pid;
	int port;
	char dir[256];          /* temporary directory */
	char state[300];        /* dir/state */
	char logpath[300];      /* dir/kriegd.log */
	char confpath[300];     /* dir/kriegd.conf, if config given */
	bool has_conf;
	long log_start;         /* log offset where the current run began */
};

struct kc_line {
	char *text;
	json_t *json;
	bool taken;
};

struct kc {
	int fd;
	SSL_CTX *ctx;
	SSL *ssl;
	char buf[KC_LINE_BUF];
	size_t len;
	bool eof;
	bool close_notify;   /* the eof was TLS's close_notify: a clean close */
	struct kc_line *lines;
	size_t n, cap;
	size_t scan;            /* lines before this are all taken */
	long long next_id;
	json_t *greeting;
};

/* ---- time ---------------------------------------------------------------- */

long long kt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int kt_timeout_scale(void)
{
	static int scale;

	if (scale == 0) {
		const char *e = getenv("KRIEG_TIMEOUT_SCALE");
		long v = e ? strtol(e, NULL, 10) : 1;

		scale = v < 1 ? 1 : v > 1000 ? 1000 : (int)v;
	}
	return scale;
}

/* An explicit timeout, stretched like KC_TIMEOUT_MS but never past it (a
 * wait of KC_TIMEOUT_MS itself is already scaled). */
static long long scaled(int timeout_ms)
{
	long long t = (long long)timeout_ms * kt_timeout_scale();

	if (timeout_ms >= KC_TIMEOUT_MS)
		return timeout_ms;
	return t < KC_TIMEOUT_MS ? t : KC_TIMEOUT_MS;
}

int kt_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

void kt_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* ---- the daemon ------------------------------------------------------------ */

static const char *kriegd_path(void)
{
	const char *p = getenv("KRIEGD");

	if (p != NULL && *p != '\0')
		return p;
	if (access("build/asan/bin/kriegd", X_OK) == 0)
		return "build/asan/bin/kriegd";
	return "bin/kriegd";
}

static char *read_file_from(const char *path, long off)
{
	FILE *f = fopen(path, "r");
	char *s;
	long n;

	if (f == NULL)
		return strdup("");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	if (n < off)
		off = n;
	fseek(f, off, SEEK_SET);
	s = malloc((size_t)(n - off) + 1);
	ck_assert_ptr_nonnull(s);
	size_t got = fread(s, 1, (size_t)(n - off), f);
	s[got] = '\0';
	fclose(f);
	return s;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

static void kd_spawn(struct kd *d)
{
	const char *bin = kriegd_path();
	char *argv[12];
	int i = 0;

	d->log_start = file_size(d->logpath);
	argv[i++] = (char *)bin;
	argv[i++] = "--state-dir";
	argv[i++] = d->state;
	argv[i++] = "--listen";
	argv[i++] = "127.0.0.1:0";
	if (d->has_conf) {
		argv[i++] = "--config";
		argv[i++] = d->confpath;
	}
	argv[i] = NULL;

	pid_t parent = getpid();
	d->pid = fork();
	ck_assert_msg(d->pid >= 0, "fork: %s", strerror(errno));
	if (d->pid == 0) {
		int fd = open(d->logpath, O_WRONLY | O_CREAT | O_APPEND, 0600);
		int null = open("/dev/null", O_RDONLY);

		/* Never outlive the test process, even when an assert ends it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		if (fd < 0 || null < 0)
			_exit(127);
		/* A sanitized daemon: keep ASan's quarantine of freed memory small,
		 * so memory-bound tests measure the daemon, not the quarantine, and
		 * its freed memory kept, not faulted in again (make check's
		 * SUITE_ASAN, Makefile). */
		if (getenv("ASAN_OPTIONS") == NULL)
			setenv("ASAN_OPTIONS", "quarantine_size_mb=4:allocator_release_to_os_interval_ms=-1", 1);
		dup2(null, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(bin, argv);
		fprintf(stderr, "harness: exec %s: %s\n", bin, strerror(errno));
		_exit(127);
	}

	long long deadline = kt_now_ms() + KD_START_TIMEOUT_MS;
	const char *needle = "kriegd: listening on 127.0.0.1:";
	for (;;) {
		char *log = read_file_from(d->logpath, d->log_start);
		char *p = strstr(log, needle);
		if (p != NULL && strchr(p, '\n') != NULL) {
			d->port = atoi(p + strlen(needle));
			free(log);
			break;
		}
		int status;
		if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
			ck_abort_msg("kriegd (%s) exited during start-up; its log:\n%s", bin, log);
		}
		free(log);
		ck_assert_msg(kt_now_ms() < deadline, "kriegd did not start within %d ms",
		              KD_START_TIMEOUT_MS);
		kt_sleep_ms(10);
	}
	ck_assert_msg(d->port > 0, "bad port in the log");
	/* Ready once "ready" follows (listeners open last, but be exact). */
	ck_assert_msg(kd_log_wait(d, "kriegd: ready", KD_START_TIMEOUT_MS), "kriegd never ready");
}

struct kd *kd_start(const char *config)
{
	struct kd *d = calloc(1, sizeof *d);
	const char *tmp = getenv("TMPDIR");

	ck_assert_ptr_nonnull(d);
	snprintf(d->dir, sizeof d->dir, "%s/kriegd-test-XXXXXX",
	         tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	ck_assert_msg(mkdtemp(d->dir) != NULL, "mkdtemp: %s", strerror(errno));
	snprintf(d->state, sizeof d->state, "%s/state", d->dir);
	snprintf(d->logpath, sizeof d->logpath, "%s/kriegd.log", d->dir);
	snprintf(d->confpath, sizeof d->confpath, "%s/kriegd.conf", d->dir);
	/* Every test connects from 127.0.0.1: the per-address defences
	 * against abuse (guard.h) are off unless a test's config turns them
	 * on (its lines come after these and win). */
	FILE *f = fopen(d->confpath, "w");
	ck_assert_ptr_nonnull(f);
	fputs(KD_BASE_CONFIG, f);
	if (config != NULL)
		fputs(config, f);
	fclose(f);
	d->has_conf = true;
	kd_spawn(d);
	return d;
}

void kd_reload(struct kd *d, const char *config)
{
	FILE *f = fopen(d->confpath, "a");
	ck_assert_ptr_nonnull(f);
	fputs(config, f);
	fclose(f);
	int before = kd_log_count(d, "reloaded sha256=");
	ck_assert_int_eq(kill(d->pid, SIGHUP), 0);
	ck_assert_msg(kd_log_wait_count(d, "reloaded sha256=", before, KD_START_TIMEOUT_MS),
	              "kriegd did not reload");
}

/* What kriegd's log must not hold at a clean stop: a sanitizer's report,
 * or a request that replays records without the mark that makes it wait
 * for its address's budget (dispatch.h). */
static const char *const sanitizer_marks[] = {
	"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
	"WARNING: ThreadSanitizer", "ERROR: UndefinedBehaviorSanitizer", DISPATCH_UNMARKED_LOG,
};

/* SIGTERM and wait; assert a clean exit. */
static void kd_halt(struct kd *d)
{
	int status = 0;
	long long deadline = kt_now_ms() + 20000LL * kt_timeout_scale();
	pid_t r;

	/* pid 0 (down already: kd_down, then kd_stop) would be kill(0, ...),
	 * the whole process group, the test itself with it */
	ck_assert_msg(d->pid > 0, "kriegd is down already (kd_down without kd_up?)");
	ck_assert_msg(kill(d->pid, SIGTERM) == 0, "kriegd already gone: %s", strerror(errno));
	while ((r = waitpid(d->pid, &status, WNOHANG)) == 0 && kt_now_ms() < deadline)
		kt_sleep_ms(10);
	if (r == 0) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, &status, 0);
		ck_abort_msg("kriegd did not exit within 20 s of SIGTERM");
	}
	char *log = read_file_from(d->logpath, d->log_start);
	for (size_t i = 0; i < sizeof sanitizer_marks / sizeof sanitizer_marks[0]; i++)
		ck_assert_msg(strstr(log, sanitizer_marks[i]) == NULL,
		              "kriegd's log has a sanitizer report or a bad mark:\n%s", log);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	              "kriegd exited with status %d (signal %d); its log:\n%s",
	              WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	              WIFSIGNALED(status) ? WTERMSIG(status) : 0, log);
	free(log);
	d->pid = 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* Every game this daemon kept, through every consumer of a record
 * (harness_replay.h): recovery, the record views, PGN out and back in. */
static void kd_check_records(const struct kd *d)
{
	char path[4096], err[2048];
	snprintf(path, sizeof path, "%s/kriegd.db", kd_state_dir(d));
	if (access(path, F_OK) != 0)
		return;
	int n = replay_check_db(path, err, sizeof err);
	ck_assert_msg(n >= 0, "the records do not replay alike: %s", err);
}

void kd_stop(struct kd *d)
{
	if (d == NULL)
		return;
	kd_halt(d);
	kd_check_records(d);
	nftw(d->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(d);
}

void kd_restart(struct kd *d)
{
	kd_halt(d);
	kd_spawn(d);
}

void kd_down(struct kd *d)
{
	kd_halt(d);
}

void kd_up(struct kd *d)
{
	kd_spawn(d);
}

void kd_crash_restart(struct kd *d)
{
	int status;

	kill(d->pid, SIGKILL);
	waitpid(d->pid, &status, 0);
	kd_spawn(d);
}

int kd_port(const struct kd *d)
{
	return d->port;
}

pid_t kd_pid(const struct kd *d)
{
	return d->pid;
}

const char *kd_state_dir(const struct kd *d)
{
	return d->state;
}

const char *kd_config_path(const struct kd *d)
{
	return d->has_conf ? d->confpath : NULL;
}

bool kd_alive(struct kd *d)
{
	int status;

	return d->pid > 0 && waitpid(d->pid, &status, WNOHANG) == 0;
}

long kd_rss_kb(const struct kd *d)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)d->pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

char *kd_log(const struct kd *d)
{
	return read_file_from(d->logpath, 0);
}

bool kd_log_wait(const struct kd *d, const char *needle, int timeout_ms)
{
	long long deadline = kt_now_ms() + scaled(timeout_ms);

	for (;;) {
		char *log = read_file_from(d->logpath, d->log_start);
		bool found = strstr(log, needle) != NULL;

		free(log);
		if (found)
			return true;
		if (kt_now_ms() >= deadline)
			return false;
		kt_sleep_ms(10);
	}
}

int kd_log_count(const struct kd *d, const char *needle)
{
	char *log = kd_log(d);
	int n = 0;

	for (const char *p = log; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	free(log);
	return n;
}

int kd_log_last_int(const struct kd *d, const char *key)
{
	char *log = kd_log(d);
	int n = -1;

	for (const char *p = log; (p = strstr(p, key)) != NULL; p += strlen(key))
		n = atoi(p + strlen(key));
	free(log);
	return n;
}

bool kd_log_wait_count(const struct kd *d, const char *needle, int than, int timeout_ms)
{
	long long deadline = kt_now_ms() + scaled(timeout_ms);

	while (kd_log_count(d, needle) <= than) {
		if (kt_now_ms() >= deadline)
			return false;
		kt_sleep_ms(5);
	}
	return true;
}

/* ---- clients ----------------------------------------------------------------- */

/* from: a source address ("127.0.0.2": all of 127/8 is loopback), or NULL. */
static int tcp_connect(struct kd *d, int rcvbuf, const char *from)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_msg(fd >= 0, "socket: %s", strerror(errno));
	if (rcvbuf > 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)d->port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (from != NULL) {
		struct sockaddr_in src;
		memset(&src, 0, sizeof src);
		src.sin_family = AF_INET;
		ck_assert(inet_pton(AF_INET, from, &src.sin_addr) == 1);
		ck_assert_msg(bind(fd, (struct sockaddr *)&src, sizeof src) == 0, "bind %s: %s", from,
		              strerror(errno));
	}
	ck_assert_msg(connect(fd, (struct sockaddr *)&sin, sizeof sin) == 0, "connect: %s",
	              strerror(errno));
	return fd;
}

int kd_tcp(struct kd *d)
{
	return tcp_connect(d, 0, NULL);
}

int kc_fd(const struct kc *c)
{
	return c->fd;
}

int kd_tcp_from(struct kd *d, const char *from)
{
	return tcp_connect(d, 0, from);
}

/* Wait for fd readiness until deadline; false on timeout. */
static bool wait_fd(int fd, short events, long long deadline)
{
	for (;;) {
		long long left = deadline - kt_now_ms();
		struct pollfd p = { .fd = fd, .events = events };

		if (left <= 0)
			return false;
		int r = poll(&p, 1, (int)left);
		if (r > 0)
			return true;
		if (r < 0 && errno != EINTR)
			return false;
	}
}

static struct kc *kc_open_with(struct kd *d, int rcvbuf, const char *from)
{
	struct kc *c = calloc(1, sizeof *c);
	char cert[400];

	ck_assert_ptr_nonnull(c);
	c->next_id = 1;
	c->fd = tcp_connect(d, rcvbuf, from);
	fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
	c->ctx = SSL_CTX_new(TLS_client_method());
	ck_assert_ptr_nonnull(c->ctx);
	SSL_CTX_set_min_proto_version(c->ctx, TLS1_2_VERSION);
	/* Trust exactly the daemon's generated certificate. */
	snprintf(cert, sizeof cert, "%s/kriegd-cert.pem", d->state);
	ck_assert_msg(SSL_CTX_load_verify_locations(c->ctx, cert, NULL) == 1, "load %s", cert);
	X509_VERIFY_PARAM_set_flags(SSL_CTX_get0_param(c->ctx), X509_V_FLAG_PARTIAL_CHAIN);
	SSL_CTX_set_verify(c->ctx, SSL_VERIFY_PEER, NULL);
	SSL_CTX_set_mode(c->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	c->ssl = SSL_new(c->ctx);
	ck_assert_ptr_nonnull(c->ssl);
	SSL_set1_host(c->ssl, "localhost");
	SSL_set_fd(c->ssl, c->fd);

	long long deadline = kt_now_ms() + KC_TIMEOUT_MS;
	for (;;) {
		int r = SSL_connect(c->ssl);
		if (r == 1)
			break;
		int e = SSL_get_error(c->ssl, r);
		char why[256] = "";
		if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
			ERR_error_string_n(ERR_get_error(), why, sizeof why);
			ck_abort_msg("TLS handshake failed: %s (verify: %s)", why,
			             X509_verify_cert_error_string(SSL_get_verify_result(c->ssl)));
		}
		ck_assert_msg(wait_fd(c->fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline),
		              "TLS handshake timed out");
	}
	return c;
}

struct kc *kc_open(struct kd *d)
{
	return kc_open_with(d, 0, NULL);
}

struct kc *kc_open_rcvbuf(struct kd *d, int rcvbuf)
{
	return kc_open_with(d, rcvbuf, NULL);
}

struct kc *kc_hello_from(struct kd *d, const char *from)
{
	struct kc *c = kc_open_with(d, 0, from);

	c->greeting = kc_event(c, "greeting");
	kc_ok(c, kc_req(c, "hello", "{s:i, s:s}", "version", PROTO_VERSION, "client", "harness"));
	return c;
}

struct kc *kc_connect(struct kd *d)
{
	struct kc *c = kc_open(d);

	c->greeting = kc_event(c, "greeting");
	return c;
}

struct kc *kc_hello(struct kd *d)
{
	struct kc *c = kc_connect(d);
	long long id = kc_req(c, "hello", "{s:i, s:s}", "version", PROTO_VERSION, "client",
	                      "harness");

	kc_ok(c, id);
	return c;
}

json_t *kc_greeting(struct kc *c)
{
	return c->greeting;
}

void kc_close(struct kc *c)
{
	if (c == NULL)
		return;
	SSL_free(c->ssl);
	SSL_CTX_free(c->ctx);
	close(c->fd);
	for (size_t i = 0; i < c->n; i++) {
		free(c->lines[i].text);
		json_decref(c->lines[i].json);
	}
	free(c->lines);
	free(c);
}

int kc_write(struct kc *c, const void *buf, size_t len, int timeout_ms)
{
	const char *p = buf;
	long long deadline = kt_now_ms() + scaled(timeout_ms);

	while (len > 0) {
		int chunk = len > 65536 ? 65536 : (int)len;
		int r = SSL_write(c->ssl, p, chunk);

		if (r > 0) {
			p += r;
			len -= (size_t)r;
			continue;
		}
		int e = SSL_get_error(c->ssl, r);
		ERR_clear_error();
		if (e == SSL_ERROR_WANT_WRITE) {
			if (!wait_fd(c->fd, POLLOUT, deadline))
				return -1;
		} else if (e == SSL_ERROR_WANT_READ) {
			if (!wait_fd(c->fd, POLLIN, deadline))
				return -1;
		} else {
			return -1;
		}
	}
	return 0;
}

void kc_send(struct kc *c, const char *line)
{
	size_t n = strlen(line);
	/* One write for the line and its newline: two small TLS records in a
	 * row meet Nagle and the daemon's delayed ACK, ~40 ms per request. */
	char *buf = malloc(n + 2);

	ck_assert_msg(buf != NULL, "out of memory");
	memcpy(buf, line, n);
	if (n == 0 || line[n - 1] != '\n')
		buf[n++] = '\n';
	int rc = kc_write(c, buf, n, KC_TIMEOUT_MS);
	free(buf);
	ck_assert_msg(rc == 0, "send failed: %s", line);
}

static long long vreq(struct kc *c, const char *type, const char *fmt, va_list ap)
{
	json_t *req;
	json_error_t err;
	long long id = c->next_id++;

	if (fmt != NULL) {
		req = json_vpack_ex(&err, 0, fmt, ap);
		ck_assert_msg(req != NULL && json_is_object(req), "json_pack(%s): %s", fmt, err.text);
	} else {
		req = json_object();
	}
	json_object_set_new(req, "id", json_integer(id));
	json_object_set_new(req, "type", json_string(type));
	char *s = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	kc_send(c, s);
	free(s);
	return id;
}

long long kc_req(struct kc *c, const char *type, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	long long id = vreq(c, type, fmt, ap);
	va_end(ap);
	return id;
}

json_t *kc_call(struct kc *c, const char *type, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	long long id = vreq(c, type, fmt, ap);
	va_end(ap);
	return kc_response(c, id);
}

static void keep_line(struct kc *c, const char *text, size_t len)
{
	json_error_t err;

	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->lines = realloc(c->lines, c->cap * sizeof *c->lines);
		ck_assert_ptr_nonnull(c->lines);
	}
	struct kc_line *l = &c->lines[c->n++];
	l->text = strndup(text, len);
	ck_assert_ptr_nonnull(l->text);
	l->json = json_loadb(text, len, 0, &err);
	ck_assert_msg(json_is_object(l->json), "the server sent a line that is not a JSON object: %s",
	              l->text);
	l->taken = false;
}

/* Read more bytes into c->buf and split lines into the queue.  Returns
 * false on timeout or EOF. */
static bool pump(struct kc *c, long long deadline)
{
	if (c->eof)
		return false;
	for (;;) {
		ck_assert_msg(c->len < sizeof c->buf,
		              "the server sent a line longer than PROTO_LINE_MAX (%d)", PROTO_LINE_MAX);
		int r = SSL_read(c->ssl, c->buf + c->len, (int)(sizeof c->buf - c->len));
		if (r > 0) {
			c->len += (size_t)r;
			/* The lines are split in place and the rest moved to the
			 * front once: a move per line made a read of many short lines
			 * (a spectator's) quadratic in its bytes. */
			size_t at = 0;
			char *nl;
			while ((nl = memchr(c->buf + at, '\n', c->len - at)) != NULL) {
				size_t n = (size_t)(nl - (c->buf + at));
				ck_assert_msg(n + 1 <= PROTO_LINE_MAX,
				              "the server sent a line of %zu bytes", n + 1);
				keep_line(c, c->buf + at, n);
				at += n + 1;
			}
			memmove(c->buf, c->buf + at, c->len - at);
			c->len -= at;
			return true;
		}
		int e = SSL_get_error(c->ssl, r);
		ERR_clear_error();
		if (e == SSL_ERROR_WANT_READ) {
			if (!wait_fd(c->fd, POLLIN, deadline))
				return false;
		} else if (e == SSL_ERROR_WANT_WRITE) {
			if (!wait_fd(c->fd, POLLOUT, deadline))
				return false;
		} else {
			c->close_notify = e == SSL_ERROR_ZERO_RETURN;
			c->eof = true;   /* close_notify, EOF, reset */
			return false;
		}
	}
}

/* The first untaken line satisfying match, waiting until deadline. */
static json_t *take(struct kc *c, bool (*match)(json_t *j, const void *arg), const void *arg,
                    int timeout_ms)
{
	long long deadline = kt_now_ms() + scaled(timeout_ms);
	size_t i = c->scan;

	for (;;) {
		for (; i < c->n; i++) {
			if (!c->lines[i].taken && match(c->lines[i].json, arg)) {
				c->lines[i].taken = true;
				while (c->scan < c->n && c->lines[c->scan].taken)
					c->scan++;
				return c->lines[i].json;
			}
		}
		if (!pump(c, deadline))
			return NULL;
	}
}

static bool match_any(json_t *j, const void *arg)
{
	return true;
}

json_t *kc_next(struct kc *c, int timeout_ms)
{
	return take(c, match_any, NULL, timeout_ms);
}

static bool match_id(json_t *j, const void *arg)
{
	long long id = *(const long long *)arg;
	json_t *v = json_object_get(j, "id");

	if (json_object_get(j, "event") != NULL || v == NULL)
		return false;
	if (id == KC_NULL_ID)
		return json_is_null(v);
	return json_is_integer(v) && json_integer_value(v) == id;
}

static char *describe(const struct kc *c)
{
	static char buf[2048];
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = c->n > 8 ? c->n - 8 : 0; i < c->n && o < sizeof buf - 1; i++)
		o += (size_t)snprintf(buf + o, sizeof buf - o, "  %s\n", c->lines[i].text);
	if (o >= sizeof buf)
		buf[sizeof buf - 1] = '\0';
	return buf;
}

json_t *kc_response(struct kc *c, long long id)
{
	json_t *r = take(c, match_id, &id, KC_TIMEOUT_MS);

	ck_assert_msg(r != NULL, "no response with id %lld within %d ms%s; last lines:\n%s", id,
	              KC_TIMEOUT_MS, c->eof ? " (connection closed)" : "", describe(c));
	return r;
}

json_t *kc_ok(struct kc *c, long long id)
{
	json_t *r = kc_response(c, id);
	char *s = json_dumps(r, JSON_COMPACT);
	bool ok = json_is_true(json_object_get(r, "ok"));

	if (!ok) {
		char msg[1024];
		snprintf(msg, sizeof msg, "request %lld failed: %s", id, s);
		free(s);
		ck_abort_msg("%s", msg);
	}
	free(s);
	return r;
}

json_t *kc_error(struct kc *c, long long id, const char *code)
{
	json_t *r = kc_response(c, id);
	const char *got = json_string_value(json_object_get(json_object_get(r, "error"), "code"));

	if (!json_is_false(json_object_get(r, "ok")) || got == NULL || strcmp(got, code) != 0) {
		char *s = json_dumps(r, JSON_COMPACT);
		char msg[1024];
		snprintf(msg, sizeof msg, "request %lld: expected error %s, got %s", id, code, s);
		free(s);
		ck_abort_msg("%s", msg);
	}
	ck_assert_msg(json_is_string(json_object_get(json_object_get(r, "error"), "message")),
	              "error without a message");
	return r;
}

static bool match_event(json_t *j, const void *arg)
{
	const char *name = json_string_value(json_object_get(j, "event"));

	return name != NULL && strcmp(name, arg) == 0;
}

json_t *kc_event_maybe(struct kc *c, const char *name, int timeout_ms)
{
	return take(c, match_event, name, timeout_ms);
}

json_t *kc_event(struct kc *c, const char *name)
{
	json_t *e = take(c, match_event, name, KC_TIMEOUT_MS);

	ck_assert_msg(e != NULL, "no '%s' event within %d ms%s; last lines:\n%s", name,
	              KC_TIMEOUT_MS, c->eof ? " (connection closed)" : "", describe(c));
	return e;
}

/* Send a request of `type` on c as a barrier and assert that no untaken
 * event `name` arrived before its answer (harness.h explains the order). */
static void no_event_before(struct kc *c, const char *name, const char *type)
{
	json_t *r = kc_ok(c, kc_req(c, type, NULL));
	size_t at = 0;

	while (at < c->n && c->lines[at].json != r)
		at++;
	ck_assert_uint_lt(at, c->n);
	for (size_t i = c->scan; i < at; i++)
		ck_assert_msg(c->lines[i].taken || !match_event(c->lines[i].json, name),
		              "an unexpected '%s' event arrived before the %s barrier: %s", name, type,
		              c->lines[i].text);
}

void kc_no_event(struct kc *c, const char *name)
{
	no_event_before(c, name, "ping");
}

void kc_no_game_event(struct kc *c, const char *name)
{
	no_event_before(c, name, "games");
}

bool kc_closed(struct kc *c, int timeout_ms)
{
	long long deadline = kt_now_ms() + scaled(timeout_ms);

	while (!c->eof) {
		if (!pump(c, deadline) && !c->eof)
			return false;
	}
	return true;
}

bool kc_closed_cleanly(const struct kc *c)
{
	return c->eof && c->close_notify;
}

size_t kc_nlines(const struct kc *c)
{
	return c->n;
}

const char *kc_line(const struct kc *c, size_t i)
{
	return i < c->n ? c->lines[i].text : NULL;
}

long kc_first_line(const struct kc *c, const char *needle)
{
	for (size_t i = 0; i < c->n; i++)
		if (strstr(c->lines[i].text, needle) != NULL)
			return (long)i;
	return -1;
}

bool kc_answered(struct kc *c, long long id)
{
	while (pump(c, kt_now_ms()))
		;
	for (size_t i = 0; i < c->n; i++)
		if (match_id(c->lines[i].json, &id))
			return true;
	return false;
}

bool kc_saw(const struct kc *c, const char *needle)
{
	return kc_first_line(c, needle) >= 0;
}

/* ---- players ------------------------------------------------------------------ */

static void copy_str(char *dst, size_t len, json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	ck_assert_msg(s != NULL, "no string '%s'", key);
	ck_assert_msg(strlen(s) < len, "'%s' is longer than %zu bytes: %s", key, len - 1, s);
	snprintf(dst, len, "%s", s);
}

void kp_guest(struct kd *d, struct kp *p)
{
	p->c = kc_hello(d);
	json_t *r = kc_ok(p->c, kc_req(p->c, "guest", NULL));
	copy_str(p->name, sizeof p->name, r, "user");
	copy_str(p->token, sizeof p->token, r, "token");
}

void kp_register(struct kd *d, struct kp *p, const char *name)
{
	p->c = kc_hello(d);
	json_t *r = kc_ok(p->c, kc_req(p->c, "register", "{s:s, s:s}", "user", name, "password",
	                              "harness-password"));
	copy_str(p->name, sizeof p->name, r, "user");
	copy_str(p->token, sizeof p->token, r, "token");
}

json_t *kp_resume(struct kd *d, struct kp *p)
{
	p->c = kc_hello(d);
	json_t *r = kc_ok(p->c, kc_req(p->c, "resume", "{s:s}", "token", p->token));
	if (json_string_value(json_object_get(r, "token")) != NULL)
		copy_str(p->token, sizeof p->token, r, "token");
	return r;
}

struct sqlite3 *kd_lock_db(const struct kd *d)
{
	char path[400];
	sqlite3 *db;

	snprintf(path, sizeof path, "%s/kriegd.db", kd_state_dir(d));
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	/* The daemon's own commits (a heartbeat) hold the lock a moment. */
	sqlite3_busy_timeout(db, 10000);
	ck_assert_int_eq(sqlite3_exec(db, "BEGIN EXCLUSIVE; CREATE TABLE lock_holder (x);", NULL, NULL,
	                              NULL), SQLITE_OK);
	return db;
}

long long kd_stored_state(const struct kd *d, const char *name)
{
	char path[400];
	sqlite3 *db;
	sqlite3_stmt *s;
	long long v = -1;

	snprintf(path, sizeof path, "%s/kriegd.db", kd_state_dir(d));
	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 10000);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT value FROM server_state WHERE name = ?1", -1,
	                                    &s, NULL),
	                 SQLITE_OK);
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	ck_assert_msg(rc == SQLITE_ROW || rc == SQLITE_DONE, "server_state: %s", sqlite3_errmsg(db));
	if (rc == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

void kd_unlock_db(struct sqlite3 *db)
{
	ck_assert_int_eq(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}
