/*
 * service.h — what kriegd tells the service manager that runs it
 * (systemd's sd_notify protocol, through libsystemd): READY=1 once it
 * listens and has recovered its games, RELOADING=1 around a SIGHUP,
 * STOPPING=1 on shutdown, a STATUS= line with the connections and live
 * games, and WATCHDOG=1 from the event loop when the unit sets
 * WatchdogSec= (so a stuck loop gets the daemon restarted).  Without
 * $NOTIFY_SOCKET every call is a no-op and no timer runs.
 *
 * Also the other half of socket activation: the sockets systemd passes
 * (LISTEN_FDS, kriegd.socket) are handed to listener.c.
 */
#ifndef KRIEG_SERVICE_H
#define KRIEG_SERVICE_H

struct server;
struct service;

/* The status line is refreshed this often when nothing else sends it. */
#define SERVICE_STATUS_INTERVAL_MS 10000

struct service *service_new(struct server *srv);
void service_free(struct service *svc);

/*
 * Adopt every socket the service manager passed (LISTEN_FDS/LISTEN_PID,
 * which are then unset so no child inherits them).  Returns how many, 0
 * when none were passed, -1 on error (logged).
 */
int service_listen_fds(struct server *srv);

void service_ready(struct service *svc);
void service_reloading(struct service *svc);
void service_stopping(struct service *svc);

#endif
