/*
 * tls.h — the one SSL_CTX of the daemon, built at start-up: TLS 1.2
 * minimum, no compression, no renegotiation.  The certificate and key come
 * from the config; with none configured a self-signed development pair
 * (EC P-256) is generated once under the state directory and reused.
 * A cert or key value without a '/' names a systemd credential when
 * $CREDENTIALS_DIRECTORY is set (LoadCredential=, deploy/CLUB.md).
 * tls_reload (SIGHUP) builds a new context for new connections; live
 * ones keep the one they were made with.
 * TLS 1.2 suites: ECDHE with AEAD only; TLS 1.3's: OpenSSL's defaults.
 * The key that seals session tickets is replaced every TLS_TICKET_KEY_MS
 * (tls_rotate_ticket_key, on main.c's timer), so reading it out of a
 * daemon that ran for months opens at most that much of its past.
 * An encrypted (pass-phrase) key is refused, never prompted for.  Every
 * load logs the certificate's subject and validity, and warns when it
 * has expired, is not valid yet, or ends within 14 days.
 */
#ifndef KRIEG_TLS_H
#define KRIEG_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>

struct config;
struct tls;

/* File names of the generated pair, inside the state directory. */
#define TLS_DEV_CERT "kriegd-cert.pem"
#define TLS_DEV_KEY "kriegd-key.pem"
#define TLS_DEV_DAYS 3650

struct tls *tls_new(const struct config *cfg, char *err, size_t errlen);
void tls_free(struct tls *t);
/* Build a context from cfg again (a renewed certificate); on success new
 * connections get it, on failure (-1, err) the current one stays. */
int tls_reload(struct tls *t, const struct config *cfg, char *err, size_t errlen);
/* Would cfg's certificate and key load?  Generates nothing (a missing
 * development pair is created at start).  0, or -1 with err. */
int tls_check(const struct config *cfg, char *err, size_t errlen);
/* Do cert and key both name systemd credentials that cannot be read here
 * ($CREDENTIALS_DIRECTORY unset: `kriegd --check-config` from a shell)? */
bool tls_credentials_elsewhere(const struct config *cfg);

/* A new server-side SSL for one accepted connection; NULL on failure (logged). */
SSL *tls_ssl_new(struct tls *t);
/* The same for the line door: its handshake is refused when the client
 * offers ALPN (any protocol: the line protocol has none), which browsers
 * always do, so a web page cannot make one talk to the line port. */
SSL *tls_ssl_new_line(struct tls *t);

/* How long one session ticket key seals tickets (and a session stays
 * resumable): an hour; a page's many short connections still resume. */
#define TLS_TICKET_KEY_MS (60 * 60 * 1000)
/* A new random session ticket key for the current context: tickets sealed
 * before it start a full handshake.  0, or -1 (logged; the old key stays). */
int tls_rotate_ticket_key(struct tls *t);

/* "AB:CD:..." SHA-256 of the certificate, for clients that pin it. */
const char *tls_fingerprint(const struct tls *t);

/* Drain OpenSSL's error queue into the log as warnings, each with
 * "conn=ID what=..." (conn_id 0: not about a connection).  Returns the
 * number of errors drained. */
int tls_log_errors(uint64_t conn_id, const char *what);

#endif
