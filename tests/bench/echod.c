/*
 * echod.c — the transport ceiling: a bare TLS line server on kriegd's own
 * stack (libevent bufferevent_openssl, the same SSL_CTX options and modes,
 * the same read watermark), driven by tests/bench/loadgen with the same
 * lines kriegd gets, so that loadgen can print kriegd's figures as a ratio
 * of this one's.  It does no JSON, no rules and no storage: what it costs
 * per request is what any server on this stack must pay.  Its allocator is
 * kriegd's too (server/trim.h: the heap's top kept between trims every
 * 10 s), so the ceiling is not lowered by page faults kriegd does not pay.
 *
 *   echod [SECONDS]     listens on 127.0.0.1:0; logs "echod: listening on
 *                       127.0.0.1:PORT" and "echod: ready" on stderr; exits
 *                       on SIGTERM/SIGINT, or by itself after SECONDS
 *                       (default 3600)
 *
 * What it answers (the reply shape of a legal try in kriegd):
 *   on connect          a greeting line
 *   {"type":"pair","key":K,"id":N}
 *                       ok; the two connections sending the same K are partners
 *   {"type":"move","id":N,...}
 *                       to the sender an announcement line and the ok line
 *                       (one write), to the partner one "moved" line
 *   any other line      ok
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "trim.h"

#define ECHOD_LINE_MAX 16384      /* kriegd's PROTO_LINE_MAX order of size */
#define ECHOD_KEYS 65536          /* pair keys 0..ECHOD_KEYS-1 */

struct econn {
	struct bufferevent *bev;
	struct econn *partner;
	long key;                 /* -1: unpaired */
};

static struct econn *waiting[ECHOD_KEYS];   /* the first of a pair, by key */

static _Noreturn void die(const char *what)
{
	fprintf(stderr, "echod: %s\n", what);
	ERR_print_errors_fp(stderr);
	exit(1);
}

/* A fresh P-256 key and self-signed certificate: kriegd's development pair. */
static SSL_CTX *ctx_new(void)
{
	EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	X509 *x = X509_new();
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());

	if (!pkey || !x || !ctx)
		die("out of memory");
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400);
	X509_set_pubkey(x, pkey);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
	                           (const unsigned char *)"localhost", -1, -1, 0);
	X509_set_issuer_name(x, X509_get_subject_name(x));
	if (!X509_sign(x, pkey, EVP_sha256()))
		die("X509_sign");
	/* server/tls.c's options and modes, so both pay the same per byte. */
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	long opts = SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE;
#ifdef SSL_OP_NO_RENEGOTIATION
	opts |= SSL_OP_NO_RENEGOTIATION;
#endif
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
	opts |= SSL_OP_IGNORE_UNEXPECTED_EOF;
#endif
	SSL_CTX_set_options(ctx, opts);
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE |
	                          SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	if (SSL_CTX_use_certificate(ctx, x) != 1 || SSL_CTX_use_PrivateKey(ctx, pkey) != 1)
		die("certificate");
	X509_free(x);
	EVP_PKEY_free(pkey);
	return ctx;
}

static void econn_free(struct econn *e)
{
	if (e->partner)
		e->partner->partner = NULL;
	if (e->key >= 0 && waiting[e->key] == e)
		waiting[e->key] = NULL;
	bufferevent_free(e->bev);
	free(e);
}

/* The number after "key":, or -1. */
static long field_num(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static void answer(struct econn *e, const char *line)
{
	struct evbuffer *out = bufferevent_get_output(e->bev);
	long long id = field_num(line, "\"id\":");

	if (strstr(line, "\"type\":\"move\"")) {
		/* kriegd's replies to a legal try, in size and count. */
		evbuffer_add_printf(out, "{\"event\":\"move\",\"by\":\"white\",\"ply\":1,"
		                    "\"audience\":[\"white\"],\"move\":\"e2e4\",\"san\":\"e4\","
		                    "\"say\":\"White played e4\",\"game\":1,"
		                    "\"clock\":{\"white\":301968,\"black\":300000}}\n"
		                    "{\"id\":%lld,\"ok\":true,\"game\":1}\n", id);
		if (e->partner)
			evbuffer_add_printf(bufferevent_get_output(e->partner->bev),
			                    "{\"event\":\"moved\",\"by\":\"white\",\"ply\":1,"
			                    "\"audience\":[\"black\",\"spectator\"],"
			                    "\"say\":\"White has moved\",\"game\":1,"
			                    "\"clock\":{\"white\":301968,\"black\":300000}}\n");
		return;
	}
	if (strstr(line, "\"type\":\"pair\"")) {
		long key = field_num(line, "\"key\":");
		if (key < 0 || key >= ECHOD_KEYS || e->key >= 0) {
			evbuffer_add_printf(out, "{\"id\":%lld,\"ok\":false}\n", id);
			return;
		}
		e->key = key;
		if (waiting[key] && waiting[key] != e) {
			e->partner = waiting[key];
			waiting[key]->partner = e;
			waiting[key] = NULL;
		} else {
			waiting[key] = e;
		}
	}
	evbuffer_add_printf(out, "{\"id\":%lld,\"ok\":true}\n", id);
}

static void read_cb(struct bufferevent *bev, void *arg)
{
	struct econn *e = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	char *line;
	size_t n;

	while ((line = evbuffer_readln(in, &n, EVBUFFER_EOL_LF)) != NULL) {
		answer(e, line);
		free(line);
	}
	if (evbuffer_get_length(in) > ECHOD_LINE_MAX)
		econn_free(e);
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct econn *e = arg;

	if (what & BEV_EVENT_CONNECTED) {
		evbuffer_add_printf(bufferevent_get_output(bev),
		                    "{\"event\":\"greeting\",\"protocol\":1,\"server\":\"echod\"}\n");
		return;
	}
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))
		econn_free(e);
}

static void accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int len,
                      void *arg)
{
	SSL_CTX *ctx = arg;
	struct event_base *base = evconnlistener_get_base(l);
	struct econn *e = calloc(1, sizeof *e);
	SSL *ssl = SSL_new(ctx);
	int one = 1;

	if (!e || !ssl)
		die("out of memory");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	e->key = -1;
	e->bev = bufferevent_openssl_socket_new(base, fd, ssl, BUFFEREVENT_SSL_ACCEPTING,
	                                        BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
	if (!e->bev)
		die("bufferevent_openssl_socket_new");
	bufferevent_openssl_set_allow_dirty_shutdown(e->bev, 1);
	bufferevent_setwatermark(e->bev, EV_READ, 0, ECHOD_LINE_MAX + 4096);
	bufferevent_setcb(e->bev, read_cb, NULL, event_cb, e);
	bufferevent_enable(e->bev, EV_READ | EV_WRITE);
}

static void stop_cb(evutil_socket_t fd, short what, void *arg)
{
	event_base_loopbreak(arg);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3600;
	struct rlimit rl;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t salen = sizeof sa;

	signal(SIGPIPE, SIG_IGN);
	/* As many connections as the hard limit allows (10,000 idle ones). */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	SSL_CTX *ctx = ctx_new();
	struct event_base *base = event_base_new();
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	struct evconnlistener *l = evconnlistener_new_bind(
	        base, accept_cb, ctx, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 1024,
	        (struct sockaddr *)&sa, sizeof sa);
	if (!base || !l)
		die("listen");
	struct trim *trim = trim_new(base, TRIM_INTERVAL_MS);
	if (!trim)
		die("trim timer");
	getsockname(evconnlistener_get_fd(l), (struct sockaddr *)&sa, &salen);
	struct event *term = evsignal_new(base, SIGTERM, stop_cb, base);
	struct event *intr = evsignal_new(base, SIGINT, stop_cb, base);
	struct event *limit = evtimer_new(base, stop_cb, base);
	struct timeval tv = { (time_t)seconds, 0 };
	evsignal_add(term, NULL);
	evsignal_add(intr, NULL);
	evtimer_add(limit, &tv);
	fprintf(stderr, "echod: listening on 127.0.0.1:%d\nechod: ready\n", ntohs(sa.sin_port));
	event_base_dispatch(base);
	/* Connections still open are the process's to drop at exit. */
	event_free(term);
	event_free(intr);
	event_free(limit);
	trim_free(trim);
	evconnlistener_free(l);
	event_base_free(base);
	SSL_CTX_free(ctx);
	return 0;
}
