/*
 * service.c — see service.h.  sd_notify() itself is a no-op when
 * $NOTIFY_SOCKET is unset; the timer is only made when it is set.
 */
#include "service.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <systemd/sd-daemon.h>

#include "conn.h"
#include "game.h"
#include "listener.h"
#include "log.h"
#include "mstime.h"
#include "server.h"
#include "xmalloc.h"

struct service {
	struct server *srv;
	struct event *tick;         /* watchdog ping and status refresh; NULL: not notifying */
	int tick_ms;
	bool watchdog;
	bool failing;               /* the last notification failed (logged once) */
};

/* A failure is logged once, escaped onto one line (a state holds
 * newlines), until a notification goes through again: a socket that went
 * away would otherwise cost a warning every tick. */
static void notify(struct service *svc, const char *state)
{
	char esc[LOG_ESCAPE_BUF];
	int r = sd_notify(0, state);

	if (r >= 0) {
		if (svc->failing)
			log_info("sd_notify works again");
		svc->failing = false;
		return;
	}
	if (!svc->failing)
		log_warnx("sd_notify failed state=\"%s\" error=%d (not logged again until it works)",
		          log_escape(state, strlen(state), esc, sizeof esc), -r);
	svc->failing = true;
}

/* "STATUS=..." with what the daemon serves now, plus extra lines. */
static void notify_status(struct service *svc, const char *extra)
{
	char msg[256];

	snprintf(msg, sizeof msg, "%sSTATUS=%zu connections, %zu live games", extra,
	         conn_count(svc->srv), games_live_count(svc->srv->games));
	notify(svc, msg);
}

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct service *svc = arg;

	/* Sent from the loop itself: if the loop stops turning, the pings stop
	 * and systemd restarts us (WatchdogSec=). */
	notify_status(svc, svc->watchdog ? "WATCHDOG=1\n" : "");
}

struct service *service_new(struct server *srv)
{
	struct service *svc = xcalloc(1, sizeof *svc);
	const char *ns = getenv("NOTIFY_SOCKET");
	uint64_t usec = 0;

	svc->srv = srv;
	if (ns == NULL || *ns == '\0')
		return svc;
	svc->tick_ms = SERVICE_STATUS_INTERVAL_MS;
	/* > 0 when WATCHDOG_USEC is set (and WATCHDOG_PID, if set, is us). */
	if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
		svc->watchdog = true;
		/* Twice per period, as sd_watchdog_enabled(3) advises. */
		int64_t half = (int64_t)(usec / 2000);
		if (half < 1)
			half = 1;
		if (half < svc->tick_ms)
			svc->tick_ms = (int)half;
		log_info("watchdog period_ms=%lld ping_ms=%d", (long long)(usec / 1000), svc->tick_ms);
	}
	if ((svc->tick = event_new(srv->base, -1, EV_PERSIST, tick_cb, svc)) == NULL)
		fatalx("event_new failed");
	struct timeval tv = mstime_timeval(svc->tick_ms);
	if (event_add(svc->tick, &tv) != 0)
		fatalx("event_add failed");
	return svc;
}

void service_free(struct service *svc)
{
	if (svc == NULL)
		return;
	if (svc->tick != NULL)
		event_free(svc->tick);
	free(svc);
}

int service_listen_fds(struct server *srv)
{
	/* 1: unset LISTEN_* so nothing we start inherits them. */
	int n = sd_listen_fds(1);
	char err[256];

	if (n < 0) {
		log_warnx("socket activation: sd_listen_fds error=%d", -n);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (listener_adopt(srv, SD_LISTEN_FDS_START + i, err, sizeof err) != 0) {
			log_warnx("socket activation: %s", err);
			return -1;
		}
	}
	return n;
}

void service_ready(struct service *svc)
{
	if (svc->tick != NULL)
		notify_status(svc, "READY=1\n");
}

void service_reloading(struct service *svc)
{
	char msg[64];

	if (svc->tick == NULL)
		return;
	/* MONOTONIC_USEC: Type=notify-reload (systemd 253+) matches the
	 * reload to the request by it; older ones ignore it. */
	snprintf(msg, sizeof msg, "RELOADING=1\nMONOTONIC_USEC=%lld",
	         (long long)mstime_mono() * 1000LL);
	notify(svc, msg);
}

void service_stopping(struct service *svc)
{
	if (svc->tick != NULL)
		notify(svc, "STOPPING=1");
}
