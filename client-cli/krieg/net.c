/*
 * net.c — TLS connection and server verification (see net.h).
 */
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "errbuf.h"
#include "known.h"
#include "mstime.h"
#include "proto.h"
#include "xmalloc.h"

#define NET_NAMES_SHOWN 4          /* a certificate's names listed in a message; then "and N more" */
#define NET_NAME_SHOWN_MAX 64      /* bytes of one of them */
#define NET_NAMES_TEXT_MAX (NET_NAMES_SHOWN * (NET_NAME_SHOWN_MAX + 5) + 32)
#define NET_WHY_MAX (NET_NAMES_TEXT_MAX + 4 * (NET_HOST_MAX + 16) + 512)
_Static_assert(NET_ERR_MAX >= 2 * KNOWN_PATH_MAX + NET_WHY_MAX + 1024, "NET_ERR_MAX holds the banner");

struct net {
	int fd;
	SSL_CTX *ctx;
	SSL *ssl;
	char *in;                  /* received bytes not yet returned as lines */
	size_t in_len;
	char fp[KNOWN_FP_HEX + 1];
	/* Why the CA path did not do (SSL_get_verify_result); misnamed: an
	 * authority this system trusts signed the certificate, but for other
	 * names than the one connected to: those names, for the messages, and
	 * one of them as HOST:PORT to connect by ("" if none fits). */
	long vresult;
	bool misnamed;
	char names[NET_NAMES_TEXT_MAX];
	char by_name[NET_HOST_MAX + 16];
};

#define NET_IN_CAP (2 * PROTO_LINE_MAX)

/* The first OpenSSL error in the queue, for a message; the queue is emptied. */
static const char *ssl_errtext(char *buf, size_t len)
{
	unsigned long e = ERR_get_error();
	if (!e) {
		snprintf(buf, len, "%s", "unknown TLS error");
		return buf;
	}
	ERR_error_string_n(e, buf, len);
	ERR_clear_error();
	return buf;
}

int net_split_hostport(const char *arg, char *host, size_t hostlen, char *port, size_t portlen)
{
	const char *p = NULL;
	size_t hl;

	if (!arg || !*arg)
		return -1;
	if (arg[0] == '[') {
		const char *close = strchr(arg, ']');
		if (!close)
			return -1;
		hl = (size_t)(close - arg - 1);
		if (close[1] == ':')
			p = close + 2;
		else if (close[1] != '\0')
			return -1;
		arg++;
	} else {
		const char *colon = strchr(arg, ':');
		if (colon && strchr(colon + 1, ':'))
			colon = NULL;        /* a bare IPv6 address, no port */
		hl = colon ? (size_t)(colon - arg) : strlen(arg);
		if (colon)
			p = colon + 1;
	}
	if (hl == 0 || hl >= hostlen)
		return -1;
	memcpy(host, arg, hl);
	host[hl] = '\0';
	if (!p)
		p = NET_PORT_DEFAULT;
	if (!*p || strlen(p) >= portlen || strspn(p, "0123456789") != strlen(p) || atol(p) < 1 ||
	    atol(p) > 65535)
		return -1;
	snprintf(port, portlen, "%s", p);
	return 0;
}

/* Wait for fd to be ready for `events` until the deadline; 1 ready, 0 timeout, -1 error. */
static int wait_fd(int fd, short events, long deadline)
{
	for (;;) {
		long left = deadline - mstime_mono();
		if (left <= 0)
			return 0;
		struct pollfd p = { .fd = fd, .events = events };
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		return r > 0;
	}
}

static int tcp_connect(const char *host, const char *port, char *err, size_t errlen,
                       enum net_status *st)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		failf(err, errlen, "cannot resolve %s: %s", host, gai_strerror(rc));
		*st = NET_E_ADDRESS;
		return -1;
	}
	int fd = -1, last_errno = 0;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			last_errno = errno;
			continue;
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		if (errno == EINPROGRESS &&
		    wait_fd(fd, POLLOUT, mstime_mono() + NET_CONNECT_TIMEOUT_MS) == 1) {
			int soerr = 0;
			socklen_t sl = sizeof soerr;
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
			if (soerr == 0)
				break;
			last_errno = soerr;
		} else {
			last_errno = errno == EINPROGRESS ? ETIMEDOUT : errno;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		failf(err, errlen, "cannot connect to %s port %s: %s", host, port, strerror(last_errno));
		*st = last_errno == ECONNREFUSED ? NET_E_REFUSED : NET_E_CONNECT;
	}
	return fd;
}

static void fingerprint(X509 *cert, char out[KNOWN_FP_HEX + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	out[0] = '\0';
	if (!X509_digest(cert, EVP_sha256(), md, &n))
		return;
	for (unsigned int i = 0; i < n && 2 * i + 2 <= KNOWN_FP_HEX; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/*
 * The chain verified again as the handshake did (ssl_server, the same
 * parameters), but for no name: X509_V_OK or why not.  OpenSSL checks the
 * name (X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH) once
 * the chain reaches a trusted root but before the signatures and dates, so
 * those results alone do not say the authority signed the certificate.
 */
static long verify_without_name(SSL *ssl)
{
	STACK_OF(X509) *chain = SSL_get_peer_cert_chain(ssl);   /* the client's holds the leaf */
	X509_STORE *store = SSL_CTX_get_cert_store(SSL_get_SSL_CTX(ssl));
	X509_STORE_CTX *vc = X509_STORE_CTX_new();
	long r = X509_V_ERR_UNSPECIFIED;
	if (vc && chain && sk_X509_num(chain) > 0 &&
	    X509_STORE_CTX_init(vc, store, sk_X509_value(chain, 0), chain) == 1 &&
	    X509_STORE_CTX_set_default(vc, "ssl_server") == 1) {
		X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(vc);
		if (X509_VERIFY_PARAM_set1(param, SSL_get0_param(ssl)) == 1 &&
		    X509_VERIFY_PARAM_set1_host(param, NULL, 0) == 1 &&
		    X509_VERIFY_PARAM_set1_ip(param, NULL, 0) == 1) {
			X509_VERIFY_PARAM_set_auth_level(param, SSL_get_security_level(ssl));
			if (X509_verify_cert(vc) == 1)
				r = X509_V_OK;
			else if (X509_STORE_CTX_get_error(vc) != X509_V_OK)
				r = X509_STORE_CTX_get_error(vc);
		}
	}
	X509_STORE_CTX_free(vc);
	ERR_clear_error();
	return r;
}

/* A byte of a host name, or of an address as text (a wildcard's '*' too). */
static bool host_byte(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
	       ch == '-' || ch == '*' || ch == '_' || ch == ':';
}

/* One name of a certificate onto out (", " between), its bytes outside a
 * host name's shown as '?' (a certificate's text is no terminal's), a long
 * one cut. */
static void names_add(char *out, size_t len, const char *name, size_t n)
{
	size_t used = strlen(out);
	if (used && used + 2 < len) {
		memcpy(out + used, ", ", 3);
		used += 2;
	}
	for (size_t i = 0; i < n && i < NET_NAME_SHOWN_MAX && used + 1 < len; i++)
		out[used++] = host_byte((unsigned char)name[i]) ? name[i] : '?';
	if (n > NET_NAME_SHOWN_MAX && used + 3 < len) {
		memcpy(out + used, "...", 3);
		used += 3;
	}
	out[used] = '\0';
}

/*
 * The names the certificate is for, for the messages: its subjectAltName
 * DNS and IP address entries, else its subject's CN (which OpenSSL reads
 * only then); the first NET_NAMES_SHOWN, then how many more.  by_name: the
 * first that can be connected to (no wildcard, nothing shown as '?'), as
 * HOST:PORT, or "".
 */
static void cert_names(X509 *cert, const char *port, char *out, size_t len, char *by_name, size_t bylen)
{
	GENERAL_NAMES *gens = X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
	int shown = 0, more = 0;
	out[0] = by_name[0] = '\0';
	for (int i = 0; i < sk_GENERAL_NAME_num(gens); i++) {
		const GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);
		char text[INET6_ADDRSTRLEN] = "";
		const char *name = NULL;
		size_t n = 0;
		int af = 0;
		if (g->type == GEN_DNS) {
			name = (const char *)ASN1_STRING_get0_data(g->d.dNSName);
			n = (size_t)ASN1_STRING_length(g->d.dNSName);
		} else if (g->type == GEN_IPADD) {
			int alen = ASN1_STRING_length(g->d.iPAddress);
			af = alen == 4 ? AF_INET : alen == 16 ? AF_INET6 : 0;
			if (af && inet_ntop(af, ASN1_STRING_get0_data(g->d.iPAddress), text, sizeof text)) {
				name = text;
				n = strlen(text);
			}
		}
		if (!name || n == 0)
			continue;
		if (shown == NET_NAMES_SHOWN) {
			more++;
			continue;
		}
		names_add(out, len, name, n);
		shown++;
		bool plain = name[0] != '*' && n < NET_HOST_MAX;
		for (size_t k = 0; plain && k < n; k++)
			plain = host_byte((unsigned char)name[k]) && (name[k] != ':' || af == AF_INET6);
		if (!by_name[0] && plain)
			snprintf(by_name, bylen, af == AF_INET6 ? "[%.*s]:%s" : "%.*s:%s", (int)n, name, port);
	}
	GENERAL_NAMES_free(gens);
	if (shown == 0) {
		char cn[NET_HOST_MAX];
		int n = X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof cn);
		if (n > 0)
			names_add(out, len, cn, (size_t)n);
		else
			snprintf(out, len, "%s", "none");
	}
	if (more) {
		size_t used = strlen(out);
		snprintf(out + used, len - used, " and %d more", more);
	}
}

/*
 * Why the certificate of hp is checked against a pin, for the messages:
 * it is signed by an authority this system trusts but for other names
 * (with the advice that makes a pin needless), or it is not verified by
 * one (OpenSSL's reason).  Every line starts with `lead` and ends with
 * '\n'; without a lead the text starts with a capital.
 */
static void why_pinned(const struct net *n, const char *hp, const char *lead, char *out, size_t len)
{
	const char *t = *lead ? "t" : "T";
	if (!n->misnamed) {
		snprintf(out, len, "%s%she certificate of %s is not verified by an authority this system trusts (%s).\n",
		         lead, t, hp, X509_verify_cert_error_string(n->vresult));
		return;
	}
	char by[NET_HOST_MAX + 64] = "";
	if (n->by_name[0])
		snprintf(by, sizeof by, " (%s)", n->by_name);
	snprintf(out, len,
	         "%s%she certificate of %s is signed by an authority this system trusts,\n"
	         "%sbut it names other hosts: %s.\n"
	         "%sIf one of those is this server's name, connect by it%s:\n"
	         "%sthe authority then vouches for the server, and for its renewed certificates,\n"
	         "%swith no pin; a pin for %s breaks at every renewal.\n",
	         lead, t, hp, lead, n->names, lead, by, lead, lead, hp);
}

/* A certificate seen for the first time: pin it, ask, or refuse, as the caller chose. */
static enum net_status first_use(const struct net *n, const struct net_opts *o, const char *hp,
                                 const char *path, FILE *notice, char *err, size_t errlen)
{
	const char *me = o->program ? o->program : "krieg";
	char why[NET_WHY_MAX], lead[64];

	if (o->tofu == NET_TOFU_REFUSE) {
		why_pinned(n, hp, "", why, sizeof why);
		failf(err, errlen, "the certificate of %s (SHA-256 %s) is not the one pinned in %s, "
		    "and none is pinned now: refused\n%.*s", hp, n->fp, path, (int)strlen(why) - 1, why);
		return NET_E_NOT_TRUSTED;
	}
	if (o->tofu == NET_TOFU_ASK) {
		char q[NET_WHY_MAX + 512];
		why_pinned(n, hp, "", why, sizeof why);
		snprintf(q, sizeof q,
		         "The authenticity of server '%s' can't be established.\n"
		         "%s"
		         "SHA-256 fingerprint is %s.\n"
		         "Are you sure you want to continue connecting (yes/no)? ", hp, why, n->fp);
		if (!o->confirm || o->confirm(o->confirm_ctx, q) != 1) {
			failf(err, errlen, "server verification failed: the certificate of %s was not accepted "
			    "(nothing was recorded)", hp);
			return NET_E_NOT_TRUSTED;
		}
	}
	if (known_add(path, hp, n->fp) != 0) {
		failf(err, errlen, "cannot record %s in %s: %s", hp, path, strerror(errno));
		return NET_E_KNOWN_FILE;
	}
	if (o->tofu == NET_TOFU_ASK) {
		fprintf(notice, "%s: permanently added %s to the known servers (%s).\n", me, hp, path);
		return NET_OK;
	}
	snprintf(lead, sizeof lead, "%s: ", me);
	why_pinned(n, hp, lead, why, sizeof why);
	fprintf(notice, "%s"
	        "%s: its SHA-256 fingerprint is %s\n"
	        "%s: trusting it on first use; permanently added to %s\n", why, me, n->fp, me, path);
	return NET_OK;
}

/* Decide whether to trust the server; NET_OK or an error with err set. */
static enum net_status verify(struct net *n, const struct net_opts *o, char *err, size_t errlen)
{
	FILE *notice = o->notice ? o->notice : stderr;
	X509 *cert = SSL_get1_peer_certificate(n->ssl);

	if (!cert) {
		failf(err, errlen, "the server sent no certificate");
		return NET_E_TLS;
	}
	fingerprint(cert, n->fp);
	n->vresult = SSL_get_verify_result(n->ssl);
	if (!o->insecure && (n->vresult == X509_V_ERR_HOSTNAME_MISMATCH ||
	                     n->vresult == X509_V_ERR_IP_ADDRESS_MISMATCH)) {
		/* refused for its name alone, or also for what the name check came before? */
		long again = verify_without_name(n->ssl);
		n->misnamed = again == X509_V_OK;
		if (n->misnamed)
			cert_names(cert, o->port, n->names, sizeof n->names, n->by_name, sizeof n->by_name);
		else
			n->vresult = again;
	}
	X509_free(cert);

	if (o->insecure) {
		fprintf(notice, "%s: WARNING: --insecure: the server's certificate is NOT verified; "
		        "anyone on the path can read and change this session (SHA-256 %s)\n",
		        o->program ? o->program : "krieg", n->fp);
		return NET_OK;
	}
	if (n->vresult == X509_V_OK)
		return NET_OK;   /* a system CA vouches for this host name */

	char path[KNOWN_PATH_MAX], hp[NET_HOST_MAX + 16];
	if (o->known_path)
		snprintf(path, sizeof path, "%s", o->known_path);
	else if (known_default_path(path, sizeof path) != 0) {
		failf(err, errlen, "cannot find a known_servers file (set HOME or KRIEG_KNOWN_SERVERS)");
		return NET_E_KNOWN_FILE;
	}
	if (known_hostport(o->host, o->port, hp, sizeof hp) != 0) {
		failf(err, errlen, "host name too long");
		return NET_E_ADDRESS;
	}
	int line = 0;
	switch (known_check(path, hp, n->fp, &line)) {
	case KNOWN_MATCH:
		return NET_OK;
	case KNOWN_NEW:
		return first_use(n, o, hp, path, notice, err, errlen);
	case KNOWN_MISMATCH: {
		char why[NET_WHY_MAX];
		why_pinned(n, hp, "", why, sizeof why);
		failf(err, errlen,
		    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
		    "@    WARNING: THE SERVER'S CERTIFICATE HAS CHANGED!      @\n"
		    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
		    "The certificate %s presents is not the one pinned for it.\n"
		    "Someone could be intercepting this connection, or the server's\n"
		    "certificate was replaced.\n"
		    "%s"
		    "Its SHA-256 fingerprint is now %s\n"
		    "Offending entry: %s:%d\n"
		    "If you trust the new certificate, remove line %d of %s and connect again.\n"
		    "Connection refused: certificate changed.",
		    hp, why, n->fp, path, line, line, path);
		return NET_E_CERT_CHANGED;
	}
	case KNOWN_ERROR:
	default:
		failf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return NET_E_KNOWN_FILE;
	}
}

/* SNI carries names only, never address literals (RFC 6066 section 3). */
static bool is_ip_literal(const char *host)
{
	unsigned char buf[16];
	return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

static SSL_CTX *make_ctx(void)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	if (!ctx)
		return NULL;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
	/* The chain is checked, but the decision is taken after the handshake
	 * in verify(), so that an unknown self-signed server can be pinned. */
	SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	SSL_CTX_set_default_verify_paths(ctx);
	return ctx;
}

enum net_status net_connect(const struct net_opts *o, struct net **out, char *err, size_t errlen)
{
	enum net_status st = NET_OK;
	char ebuf[256];
	struct net *n;

	*out = NULL;
	n = xcalloc(1, sizeof *n);
	n->fd = -1;
	n->in = xmalloc(NET_IN_CAP);

	n->fd = tcp_connect(o->host, o->port, err, errlen, &st);
	if (n->fd < 0)
		goto fail;
	n->ctx = make_ctx();
	if (!n->ctx || !(n->ssl = SSL_new(n->ctx))) {
		failf(err, errlen, "TLS setup failed: %s", ssl_errtext(ebuf, sizeof ebuf));
		st = NET_E_TLS;
		goto fail;
	}
	SSL_set_fd(n->ssl, n->fd);
	/* the CA path also checks that the certificate names this host */
	if (is_ip_literal(o->host)) {
		X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(n->ssl), o->host);
	} else {
		SSL_set_tlsext_host_name(n->ssl, o->host);
		SSL_set1_host(n->ssl, o->host);
	}

	long deadline = mstime_mono() + NET_CONNECT_TIMEOUT_MS;
	for (;;) {
		ERR_clear_error();
		int r = SSL_connect(n->ssl);
		if (r == 1)
			break;
		int e = SSL_get_error(n->ssl, r);
		short ev = e == SSL_ERROR_WANT_READ ? POLLIN : e == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
		if (ev && wait_fd(n->fd, ev, deadline) == 1)
			continue;
		if (ev)
			failf(err, errlen, "TLS handshake with %s timed out", o->host);
		else
			failf(err, errlen, "TLS handshake with %s failed: %s", o->host,
			    ssl_errtext(ebuf, sizeof ebuf));
		st = NET_E_TLS;
		goto fail;
	}
	st = verify(n, o, err, errlen);
	if (st != NET_OK)
		goto fail;
	*out = n;
	return NET_OK;
fail:
	net_free(n);
	return st;
}

void net_free(struct net *n)
{
	if (!n)
		return;
	if (n->ssl) {
		SSL_shutdown(n->ssl);  /* best effort; non-blocking, no wait */
		SSL_free(n->ssl);
	}
	SSL_CTX_free(n->ctx);
	if (n->fd >= 0)
		close(n->fd);
	free(n->in);
	free(n);
}

int net_fd(const struct net *n)
{
	return n->fd;
}

bool net_readable(const struct net *n)
{
	struct pollfd q = { .fd = n->fd, .events = POLLIN };
	return n->fd >= 0 && poll(&q, 1, 0) > 0;
}

const char *net_fingerprint(const struct net *n)
{
	return n->fp;
}

/* A reset (RST: a NAT or firewall that dropped the connection, a server's
 * host that no longer knows it), met reading or writing: no close by the
 * server. */
static bool is_reset(int e, int sys)
{
	return e == SSL_ERROR_SYSCALL && (sys == ECONNRESET || sys == ECONNABORTED || sys == EPIPE);
}

enum net_status net_send_line(struct net *n, const char *line)
{
	size_t len = strlen(line);
	char *buf = xmalloc(len + 1);
	memcpy(buf, line, len);
	buf[len] = '\n';
	enum net_status st = NET_OK;
	size_t off = 0;
	while (off < len + 1) {
		ERR_clear_error();
		errno = 0;
		int r = SSL_write(n->ssl, buf + off, (int)(len + 1 - off));
		int sys = errno;
		if (r > 0) {
			off += (size_t)r;
			continue;
		}
		int e = SSL_get_error(n->ssl, r);
		short ev = e == SSL_ERROR_WANT_READ ? POLLIN : e == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
		if (ev && wait_fd(n->fd, ev, mstime_mono() + NET_CONNECT_TIMEOUT_MS) == 1)
			continue;
		st = e == SSL_ERROR_ZERO_RETURN ? NET_E_CLOSED : is_reset(e, sys) ? NET_E_RESET : NET_E_IO;
		break;
	}
	free(buf);
	return st;
}

enum net_status net_read(struct net *n)
{
	for (;;) {
		if (n->in_len >= NET_IN_CAP) {
			/* two full lines' worth and no newline among the first: over the limit */
			if (!memchr(n->in, '\n', n->in_len))
				return NET_E_LINE_TOO_LONG;
			return NET_OK;   /* let the caller take lines out first */
		}
		ERR_clear_error();
		errno = 0;
		int r = SSL_read(n->ssl, n->in + n->in_len, (int)(NET_IN_CAP - n->in_len));
		int sys = errno;
		if (r > 0) {
			n->in_len += (size_t)r;
			continue;
		}
		int e = SSL_get_error(n->ssl, r);
		if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
			return NET_OK;
		if (is_reset(e, sys))
			return NET_E_RESET;
		if (e == SSL_ERROR_SYSCALL && (sys == ETIMEDOUT || sys == EHOSTUNREACH || sys == ENETUNREACH))
			return NET_E_IO;   /* TCP gave up on the path */
		if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0))
			return NET_E_CLOSED;
		/* OpenSSL 3 reports a close without close_notify as an error; only whole
		 * lines are ever used, so a cut connection is just a closed one */
		if (e == SSL_ERROR_SSL && ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING)
			return NET_E_CLOSED;
		return NET_E_IO;
	}
}

bool net_next_line(struct net *n, char *buf, size_t len)
{
	char *nl = memchr(n->in, '\n', n->in_len);
	if (!nl)
		return false;
	size_t ll = (size_t)(nl - n->in);
	size_t copy = ll < len - 1 ? ll : len - 1;
	memcpy(buf, n->in, copy);
	buf[copy] = '\0';
	if (copy && buf[copy - 1] == '\r')
		buf[copy - 1] = '\0';
	memmove(n->in, nl + 1, n->in_len - ll - 1);
	n->in_len -= ll + 1;
	return true;
}

bool net_has_line(const struct net *n)
{
	return memchr(n->in, '\n', n->in_len) != NULL;
}
