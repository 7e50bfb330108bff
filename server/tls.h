/*
 * tls.h — the one SSL_CTX of the daemon, built at start-up: TLS 1.2
 * minimum, no compression, no renegotiation.  The certificate and key come
 * from the config; with none configured a self-signed development pair
 * (EC P-256) is generated once under the state directory and reused.
 */
#ifndef KRIEG_TLS_H
#define KRIEG_TLS_H

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

/* A new server-side SSL for one accepted connection; NULL on failure (logged). */
SSL *tls_ssl_new(struct tls *t);

/* "AB:CD:..." SHA-256 of the certificate, for clients that pin it. */
const char *tls_fingerprint(const struct tls *t);

/* Drain OpenSSL's error queue into the log as warnings, each with
 * "conn=ID what=..." (conn_id 0: not about a connection).  Returns the
 * number of errors drained. */
int tls_log_errors(uint64_t conn_id, const char *what);

#endif
