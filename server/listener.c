/*
 * listener.c — see listener.h.
 */
#include "listener.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>
#include <systemd/sd-daemon.h>

#include "config.h"
#include "conn.h"
#include "log.h"
#include "mstime.h"
#include "server.h"
#include "web.h"
#include "xmalloc.h"

struct listener {
	struct listener *next;
	struct server *srv;
	struct evconnlistener *evl;
	struct event *resume;       /* re-enables accepting after a pause */
	enum listener_kind kind;    /* who takes an accepted socket: conn.c or web.c */
	char name[80];              /* bound address, for the log */
};

static void format_addr(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
		evutil_inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof host);
		snprintf(buf, len, "[%s]:%u", host, ntohs(s6->sin6_port));
	} else if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
		evutil_inet_ntop(AF_INET, &s4->sin_addr, host, sizeof host);
		snprintf(buf, len, "%s:%u", host, ntohs(s4->sin_port));
	} else {
		snprintf(buf, len, "?");
	}
}

/* "1.2.3.4:PORT" or "[v6addr]:PORT", numeric only; port 0 allowed (any free one). */
static int parse_addr(const char *addr, struct sockaddr_storage *ss, int *sslen)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *colon, *hs = addr, *he;
	char *end;
	long port;

	memset(ss, 0, sizeof *ss);
	if (addr[0] == '[') {
		hs = addr + 1;
		if ((he = strchr(hs, ']')) == NULL || he[1] != ':')
			return -1;
		colon = he + 1;
	} else {
		if ((colon = strrchr(addr, ':')) == NULL || strchr(addr, ':') != colon)
			return -1;
		he = colon;
	}
	if ((size_t)(he - hs) >= sizeof host || he == hs)
		return -1;
	memcpy(host, hs, (size_t)(he - hs));
	host[he - hs] = '\0';
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end != '\0' || errno != 0 || port < 0 || port > 65535)
		return -1;
	if (addr[0] == '[') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		if (evutil_inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			return -1;
		*sslen = sizeof *s6;
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		if (evutil_inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			return -1;
		*sslen = sizeof *s4;
	}
	return 0;
}

static void accept_cb(struct evconnlistener *evl, evutil_socket_t fd, struct sockaddr *sa,
                      int socklen, void *arg)
{
	struct listener *l = arg;
	int one = 1;

	/* Replies are small lines written one after another (an action's events,
	 * then its ok): without this, Nagle holds the later ones for the peer's
	 * delayed ACK, ~40 ms per request. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	/* A dead path noticed (listener.h). */
	int idle = LISTENER_KEEPIDLE_S, intvl = LISTENER_KEEPINTVL_S, cnt = LISTENER_KEEPCNT;
	unsigned int user = LISTENER_USER_TIMEOUT_MS;
	(void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
	(void)setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user, sizeof user);
	/* What a silent reader pins in the kernel, bounded (listener.h). */
	int sndbuf = LISTENER_SNDBUF;
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
	if (l->kind == LISTENER_LINE)
		conn_accept(l->srv, fd, sa, socklen);
	else
		web_accept(l->srv, fd, sa, l->kind == LISTENER_WEB_PLAIN);
}

static void resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct listener *l = arg;

	log_info("listener=%s accepting again", l->name);
	evconnlistener_enable(l->evl);
}

static void error_cb(struct evconnlistener *evl, void *arg)
{
	struct listener *l = arg;
	int e = EVUTIL_SOCKET_ERROR();

	if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM) {
		int ms = l->srv->cfg->accept_pause_ms;
		struct timeval tv = mstime_timeval(ms);

		log_warnx("listener=%s accept failed error=\"%s\"; pausing for %dms", l->name,
		          strerror(e), ms);
		evconnlistener_disable(evl);
		evtimer_add(l->resume, &tv);
		return;
	}
	log_warnx("listener=%s accept failed error=\"%s\"", l->name, strerror(e));
}

/* Finish a listener whose evl is made: pause timer, error callback, its
 * name in the log, and the server's list. */
static void listener_add(struct server *srv, struct listener *l, const char *fallback)
{
	if ((l->resume = evtimer_new(srv->base, resume_cb, l)) == NULL)
		fatalx("evtimer_new");
	evconnlistener_set_error_cb(l->evl, error_cb);

	/* Name the bound address (port 0 was replaced by a real one). */
	struct sockaddr_storage bound;
	socklen_t blen = sizeof bound;
	if (getsockname(evconnlistener_get_fd(l->evl), (struct sockaddr *)&bound, &blen) == 0)
		format_addr((struct sockaddr *)&bound, l->name, sizeof l->name);
	else
		snprintf(l->name, sizeof l->name, "%s", fallback);
	/* What it is for, after the address (which log readers parse). */
	static const char *const kinds[] = { "line protocol, TLS", "web door, TLS",
		                             "web door, plain HTTP for a local proxy" };
	/* Whatever log_level says: a port 0's is found here alone (admin
	 * probe: not at log_level = warn). */
	log_always(LOGL_INFO, "listening on %s (%s)", l->name, kinds[l->kind]);

	l->next = srv->listeners;
	srv->listeners = l;
}

/* 127.0.0.0/8 or ::1: where a plain (TLS-less) web listener may bind. */
static bool is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	if (ss->ss_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
	return false;
}

bool listener_host_loopback(const char *host)
{
	char name[INET6_ADDRSTRLEN + 1];
	bool v6 = host[0] == '[';
	const char *s = host + v6, *e = v6 ? strchr(s, ']') : strchr(s, ':');
	struct in6_addr a6;
	struct in_addr a4;

	if (e == NULL && !v6)
		e = s + strlen(s);
	if (e == NULL || (size_t)(e - s) >= sizeof name)
		return false;
	/* what follows is nothing or a port: not "127.0.0.1.evil.example" */
	const char *rest = e + v6;
	bool port = rest[0] == ':' && rest[1] != '\0' && rest[1 + strspn(rest + 1, "0123456789")] == '\0';
	if (rest[0] != '\0' && !port)
		return false;
	memcpy(name, s, (size_t)(e - s));
	name[e - s] = '\0';
	if (v6)
		return inet_pton(AF_INET6, name, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
	if (strcasecmp(name, "localhost") == 0)
		return true;
	return inet_pton(AF_INET, name, &a4) == 1 && ntohl(a4.s_addr) >> 24 == 127;
}

int listener_open(struct server *srv, const char *addr, bool *unavailable, char *err,
                  size_t errlen)
{
	return listener_open_kind(srv, addr, LISTENER_LINE, unavailable, err, errlen);
}

/* The address of a kind's config key, parsed; -1 with the key named in err. */
static int check_addr(const char *addr, enum listener_kind kind, struct sockaddr_storage *ss,
                      int *sslen, char *err, size_t errlen)
{
	static const char *const keys[] = { "listen", "listen_web", "listen_web_plain" };
	if (parse_addr(addr, ss, sslen) != 0) {
		snprintf(err, errlen, "%s %s: expected 1.2.3.4:PORT or [v6addr]:PORT", keys[kind], addr);
		return -1;
	}
	if (kind == LISTENER_WEB_PLAIN && !is_loopback(ss)) {
		snprintf(err, errlen, "listen_web_plain %s: refused, not a loopback address (plain HTTP "
		         "only behind a local TLS proxy; use listen_web for the network)", addr);
		return -1;
	}
	return 0;
}

int listener_addr_check(const char *addr, enum listener_kind kind, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	int sslen = sizeof ss;
	return check_addr(addr, kind, &ss, &sslen, err, errlen);
}

int listener_open_kind(struct server *srv, const char *addr, enum listener_kind kind,
                       bool *unavailable, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	int sslen = sizeof ss;
	struct listener *l;
	unsigned flags = LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC;

	*unavailable = false;
	if (check_addr(addr, kind, &ss, &sslen, err, errlen) != 0)
		return -1;
	if (ss.ss_family == AF_INET6)
		flags |= LEV_OPT_BIND_IPV6ONLY;
	l = xcalloc(1, sizeof *l);
	l->srv = srv;
	l->kind = kind;
	l->evl = evconnlistener_new_bind(srv->base, accept_cb, l, flags, SOMAXCONN,
	                                 (struct sockaddr *)&ss, sslen);
	if (l->evl == NULL) {
		int e = errno;

		*unavailable = (e == EAFNOSUPPORT || e == EADDRNOTAVAIL || e == EPROTONOSUPPORT);
		snprintf(err, errlen, "listen %s: %s", addr, strerror(e));
		free(l);
		return -1;
	}
	listener_add(srv, l, addr);
	return 0;
}

int listener_adopt(struct server *srv, int fd, char *err, size_t errlen)
{
	struct listener *l;

	/* Only a stream socket that is already listening: a datagram or a
	 * connected socket in the wrong slot is a unit-file mistake. */
	if (sd_is_socket(fd, AF_UNSPEC, SOCK_STREAM, 1) <= 0) {
		snprintf(err, errlen, "passed fd %d is not a listening stream socket", fd);
		return -1;
	}
	if (evutil_make_socket_nonblocking(fd) != 0 || evutil_make_socket_closeonexec(fd) != 0) {
		snprintf(err, errlen, "passed fd %d: %s", fd, strerror(errno));
		return -1;
	}
	l = xcalloc(1, sizeof *l);
	l->srv = srv;
	/* backlog 0: the socket is listening already (the service manager did it). */
	l->evl = evconnlistener_new(srv->base, accept_cb, l, LEV_OPT_CLOSE_ON_FREE, 0, fd);
	if (l->evl == NULL) {
		snprintf(err, errlen, "passed fd %d: %s", fd, strerror(errno));
		free(l);
		return -1;
	}
	listener_add(srv, l, "passed socket");
	return 0;
}

void listener_free_all(struct server *srv)
{
	struct listener *l, *next;

	for (l = srv->listeners; l != NULL; l = next) {
		next = l->next;
		evconnlistener_free(l->evl);
		event_free(l->resume);
		free(l);
	}
	srv->listeners = NULL;
}
