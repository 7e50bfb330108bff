/*
 * tls.c — see tls.h.
 */
#include "tls.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "config.h"
#include "log.h"
#include "xmalloc.h"

struct tls {
	SSL_CTX *ctx;
	char fingerprint[32 * 3];        /* 64 hex digits (ctx_build) */
};

/*
 * TLS 1.2 suites: forward secrecy (ECDHE) and AEAD only, Mozilla's
 * "intermediate" list.  OpenSSL's DEFAULT also takes static-RSA key
 * exchange (no forward secrecy: whoever gets the key later decrypts what
 * was recorded) and CBC with SHA-1 (a history of padding oracles).  Every
 * client that speaks TLS 1.2 today offers one of these.  TLS 1.3 suites
 * are another list (SSL_CTX_set_ciphersuites), left at OpenSSL's default:
 * all of them AEAD with forward secrecy.
 */
#define TLS12_CIPHERS                                                \
	"ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:" \
	"ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:" \
	"ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

/* A certificate this close to its end is warned about at every load. */
#define TLS_EXPIRY_WARN_DAYS 14

/*
 * The SSL ex_data slot that marks a line-door connection
 * (tls_ssl_new_line).  Both doors share one SSL_CTX (one certificate, one
 * reload), but only the web door speaks HTTP, so the ALPN callback, which
 * is the context's, asks the SSL which door it came to.  Made once by
 * tls_new, before any connection.
 */
static int line_door_idx = -1;

int tls_log_errors(uint64_t conn_id, const char *what)
{
	unsigned long e;
	int n = 0;
	char buf[256];

	while ((e = ERR_get_error()) != 0) {
		ERR_error_string_n(e, buf, sizeof buf);
		if (conn_id != 0)
			log_warnx("conn=%llu tls what=\"%s\" error=\"%s\"", (unsigned long long)conn_id,
			          what, buf);
		else
			log_warnx("tls what=\"%s\" error=\"%s\"", what, buf);
		n++;
	}
	return n;
}

/* OpenSSL's first queued error into err (the rest drained into the log:
 * the first, said by err, not logged twice: the ops probe). */
static void ssl_err(char *err, size_t errlen, const char *what)
{
	unsigned long e = ERR_get_error();
	char buf[256] = "unknown error";

	if (e != 0)
		ERR_error_string_n(e, buf, sizeof buf);
	snprintf(err, errlen, "%s: %s", what, buf);
	tls_log_errors(0, what);
}

static int write_pem(const char *path, mode_t mode, EVP_PKEY *pkey, X509 *x509, char *err,
                     size_t errlen)
{
	char tmp[4096];
	int fd, ok;
	FILE *f;

	if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	if (fchmod(fd, mode) != 0 || (f = fdopen(fd, "w")) == NULL) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (pkey != NULL)
		ok = PEM_write_PrivateKey(f, pkey, NULL, NULL, 0, NULL, NULL);
	else
		ok = PEM_write_X509(f, x509);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		ok = 0;
	if (fclose(f) != 0)
		ok = 0;
	if (!ok) {
		ssl_err(err, errlen, tmp);
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path) != 0) {
		snprintf(err, errlen, "rename %s: %s", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int add_ext(X509 *x, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;
	int ok;

	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (ext == NULL)
		return 0;
	ok = X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	return ok;
}

/* A self-signed certificate for localhost, valid TLS_DEV_DAYS. */
static int generate_pair(const char *cert_path, const char *key_path, char *err, size_t errlen)
{
	EVP_PKEY *pkey = NULL;
	X509 *x = NULL;
	BIGNUM *serial = NULL;
	X509_NAME *name;
	int rc = -1;

	pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	if (pkey == NULL) {
		ssl_err(err, errlen, "generating the key");
		goto out;
	}
	if ((x = X509_new()) == NULL || (serial = BN_new()) == NULL)
		fatalx("out of memory");
	if (!X509_set_version(x, 2) || !BN_rand(serial, 63, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) ||
	    BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x)) == NULL ||
	    X509_gmtime_adj(X509_getm_notBefore(x), -3600) == NULL ||
	    X509_gmtime_adj(X509_getm_notAfter(x), 60L * 60 * 24 * TLS_DEV_DAYS) == NULL ||
	    !X509_set_pubkey(x, pkey)) {
		ssl_err(err, errlen, "building the certificate");
		goto out;
	}
	name = X509_get_subject_name(x);
	if (!X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
	                                (const unsigned char *)"krieg development", -1, -1, 0) ||
	    !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"localhost",
	                                -1, -1, 0) ||
	    !X509_set_issuer_name(x, name) ||
	    !add_ext(x, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1") ||
	    !add_ext(x, NID_basic_constraints, "critical,CA:FALSE") ||
	    !add_ext(x, NID_key_usage, "critical,digitalSignature") ||
	    !add_ext(x, NID_ext_key_usage, "serverAuth") ||
	    !X509_sign(x, pkey, EVP_sha256())) {
		ssl_err(err, errlen, "signing the certificate");
		goto out;
	}
	/* The key first: a certificate on disk implies its key is complete. */
	if (write_pem(key_path, 0600, pkey, NULL, err, errlen) != 0 ||
	    write_pem(cert_path, 0644, NULL, x, err, errlen) != 0)
		goto out;
	rc = 0;
out:
	BN_free(serial);
	X509_free(x);
	EVP_PKEY_free(pkey);
	return rc;
}

/*
 * A cert or key setting without a '/' names a systemd credential when
 * $CREDENTIALS_DIRECTORY is set (LoadCredential=NAME:PATH in the unit): the
 * service manager, as root, copies a root-only key into a directory only
 * this service can read.  Otherwise the value is a path.
 */
static int resolve(const char *value, char *buf, size_t len, char *err, size_t errlen)
{
	const char *dir = getenv("CREDENTIALS_DIRECTORY");

	if (strchr(value, '/') == NULL && dir != NULL && *dir != '\0') {
		if ((size_t)snprintf(buf, len, "%s/%s", dir, value) >= len) {
			snprintf(err, errlen, "credential %s: path too long", value);
			return -1;
		}
		return 0;
	}
	if ((size_t)snprintf(buf, len, "%s", value) >= len) {
		snprintf(err, errlen, "%s: path too long", value);
		return -1;
	}
	return 0;
}

/* A credential's name that cannot be read as one here: no '/', and
 * $CREDENTIALS_DIRECTORY unset (a shell, not the service). */
static bool credential_unseen(const char *value)
{
	const char *dir = getenv("CREDENTIALS_DIRECTORY");
	return value != NULL && strchr(value, '/') == NULL && (dir == NULL || *dir == '\0');
}

/* A credential's name read as a path because $CREDENTIALS_DIRECTORY is
 * unset (`kriegd --check-config` from a shell, with the unit's
 * `cert = NAME`): say so, or the message is a bare "No such file". */
static void err_append(char *err, size_t errlen, const char *text)
{
	size_t n = strlen(err);
	if (n < errlen)
		snprintf(err + n, errlen - n, "%s", text);
}

/* Does the file at path (its first 64 KiB) hold text? */
static bool file_holds(const char *path, const char *text)
{
	char buf[65536];
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return false;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, text) != NULL;
}

/* A pair swapped: the file named as one holds the other alone (admin
 * probe: the key file as cert said OpenSSL's "no start line", no more). */
static void swapped_hint(const char *path, bool cert, char *err, size_t errlen)
{
	bool has_cert = file_holds(path, "-----BEGIN CERTIFICATE-----");
	bool has_key = file_holds(path, "PRIVATE KEY-----");
	if (cert && has_key && !has_cert)
		err_append(err, errlen, " (it holds a private key, not a certificate: cert and key "
		           "swapped?)");
	else if (!cert && has_cert && !has_key)
		err_append(err, errlen, " (it holds a certificate, not a private key: cert and key "
		           "swapped?)");
}

/* A key of another pair (or of another type): said in words, each file
 * named (the ops probe: OpenSSL's "x509 certificate routines::key values
 * mismatch" alone, logged twice); OpenSSL's queue drained unlogged. */
static bool key_mismatch(unsigned long e)
{
	return ERR_GET_LIB(e) == ERR_LIB_X509 &&
	       (ERR_GET_REASON(e) == X509_R_KEY_VALUES_MISMATCH || ERR_GET_REASON(e) == X509_R_KEY_TYPE_MISMATCH);
}

static void mismatch_words(const char *key, const char *cert, char *err, size_t errlen)
{
	ERR_clear_error();
	snprintf(err, errlen, "key %s does not match the certificate of cert %s: the two come from "
	         "different pairs (openssl x509 -noout -pubkey -in CERT and openssl pkey -pubout -in KEY "
	         "print the same key for a pair)", key, cert);
}

static void credential_hint(const char *value, char *err, size_t errlen)
{
	size_t n = strlen(err);
	if (credential_unseen(value) && n < errlen)
		snprintf(err + n, errlen - n, " (\"%s\" without a '/' names a systemd credential, read "
		         "from $CREDENTIALS_DIRECTORY, which is not set here: run as the service does, "
		         "or set it to the directory holding the files)", value);
}

/*
 * ALPN on the shared context.  A browser always offers ALPN (h2,
 * http/1.1); the krieg clients offer none.  On the line door an offer
 * means a client that expects another protocol: most likely a browser
 * that a hostile page sent, with the visitor's connection, to the line
 * port (a cross-protocol attack, "ALPACA": its request headers and body
 * would be read as protocol lines).  It is refused in the handshake, with
 * the no_application_protocol alert (RFC 7301, section 3.2), before a
 * byte of it is read.  The web door selects nothing, as it did before
 * this callback: a browser then speaks HTTP/1.1, which is what it serves.
 */
static int alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                       const unsigned char *in, unsigned int inlen, void *arg)
{
	(void)out;
	(void)outlen;
	(void)in;
	(void)arg;
	if (line_door_idx >= 0 && SSL_get_ex_data(ssl, line_door_idx) != NULL) {
		log_info("tls refused a client offering ALPN (%u bytes of protocol names) on the line "
		         "port: a browser or another protocol's client, not krieg", inlen);
		return SSL_TLSEXT_ERR_ALERT_FATAL;
	}
	return SSL_TLSEXT_ERR_NOACK;
}

/*
 * The pass-phrase callback: there is no pass phrase.  OpenSSL's default
 * asks for one on /dev/tty, and would block the daemon's one event loop
 * (every client with it) until someone typed at the terminal it was
 * started from, or fail on its own when there is none.  An encrypted key
 * is refused instead, at once, and *(int *)userdata set (when there is
 * one) to say why.
 */
static int no_passphrase(char *buf, int size, int rwflag, void *userdata)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	if (userdata != NULL)
		*(int *)userdata = 1;
	return 0;
}

/* t as "2036-12-02T04:37:55Z" (the log's own form) into buf. */
static void asn1_time_str(const ASN1_TIME *t, char *buf, size_t len)
{
	struct tm tm;

	if (t == NULL || ASN1_TIME_to_tm(t, &tm) != 1 ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, len, "unknown");
}

/*
 * Log what certificate x is and until when, at every load (start, reload,
 * --check-config), and warn when it is out of its validity period or
 * near its end: a client that verifies it refuses it then, and nothing
 * else in the daemon would say so.  A warning, not a refusal: an expired
 * certificate still serves clients that pinned it, and the operator
 * decides (kriegd(8)).
 */
static void cert_log(const char *cert, const char *fp, X509 *x)
{
	const ASN1_TIME *nb = X509_get0_notBefore(x), *na = X509_get0_notAfter(x);
	char subject[256] = "?", from[32], until[32];
	int days = 0, secs = 0;
	BIO *b = BIO_new(BIO_s_mem());

	if (b != NULL && X509_NAME_print_ex(b, X509_get_subject_name(x), 0, XN_FLAG_RFC2253) >= 0) {
		int n = BIO_read(b, subject, (int)sizeof subject - 1);
		subject[n > 0 ? n : 0] = '\0';
	}
	BIO_free(b);
	asn1_time_str(nb, from, sizeof from);
	asn1_time_str(na, until, sizeof until);
	/* One line, the fingerprint where it always was (kriegd(8)). */
	log_info("certificate cert=%s sha256=%s subject=\"%s\" valid from %s until %s", cert, fp,
	         subject, from, until);
	if (nb != NULL && X509_cmp_current_time(nb) > 0) {
		log_warnx("certificate cert=%s is not valid yet: its validity begins %s (is this "
		          "machine's clock right?); clients that verify it refuse it until then",
		          cert, from);
	} else if (na == NULL || !ASN1_TIME_diff(&days, &secs, NULL, na)) {
		log_warnx("certificate cert=%s: its end date cannot be read", cert);
	} else if (days < 0 || secs < 0 || (days == 0 && secs == 0)) {
		log_warnx("certificate cert=%s has expired: it was valid until %s; clients that verify "
		          "it refuse it: renew it, then reload (SIGHUP)", cert, until);
	} else if (days < TLS_EXPIRY_WARN_DAYS) {
		log_warnx("certificate cert=%s expires in %d day(s), at %s: renew it, then reload "
		          "(SIGHUP)", cert, days, until);
	}
}

/*
 * A complete SSL_CTX from the config's certificate and key (or the
 * generated development pair, created if absent and may_generate), and
 * the certificate's fingerprint into fp.  NULL with err on any failure.
 */
static SSL_CTX *ctx_build(const struct config *cfg, bool may_generate, char *fp, size_t fplen,
                          char *err, size_t errlen)
{
	char cert[4096], key[4096];
	struct stat st;
	SSL_CTX *ctx;

	if (config_validate(cfg, err, errlen) != 0)
		return NULL;
	if (cfg->cert_file == NULL) {
		if ((size_t)snprintf(cert, sizeof cert, "%s/%s", cfg->state_dir, TLS_DEV_CERT) >=
		            sizeof cert ||
		    (size_t)snprintf(key, sizeof key, "%s/%s", cfg->state_dir, TLS_DEV_KEY) >=
		            sizeof key) {
			snprintf(err, errlen, "state directory path too long");
			return NULL;
		}
		if (may_generate && (stat(cert, &st) != 0 || stat(key, &st) != 0)) {
			log_info("generating a self-signed development certificate cert=%s key=%s", cert,
			         key);
			if (generate_pair(cert, key, err, errlen) != 0)
				return NULL;
		}
	} else if (resolve(cfg->cert_file, cert, sizeof cert, err, errlen) != 0 ||
	           resolve(cfg->key_file, key, sizeof key, err, errlen) != 0) {
		return NULL;
	}
	if (stat(key, &st) == 0 && (st.st_mode & 077) != 0)
		log_warnx("key=%s is readable by group or others", key);

	if ((ctx = SSL_CTX_new(TLS_server_method())) == NULL) {
		ssl_err(err, errlen, "SSL_CTX_new");
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	if (SSL_CTX_set_cipher_list(ctx, TLS12_CIPHERS) != 1) {
		ssl_err(err, errlen, "setting the TLS 1.2 cipher suites");
		goto fail;
	}
	SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);
	long opts = SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE;
#ifdef SSL_OP_NO_RENEGOTIATION
	opts |= SSL_OP_NO_RENEGOTIATION;
#endif
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
	/* A client that just closes its socket has left, not attacked us:
	 * report it as EOF (a truncation attack means nothing to a
	 * line protocol whose every line is complete). */
	opts |= SSL_OP_IGNORE_UNEXPECTED_EOF;
#endif
	SSL_CTX_set_options(ctx, opts);
	/* A session (its ticket, or its entry in the cache of TLS 1.2 session
	 * ids) is resumable for one ticket key's life at most. */
	SSL_CTX_set_timeout(ctx, TLS_TICKET_KEY_MS / 1000);
	/* Idle connections hold no read/write buffers; bufferevent may move
	 * its write buffer between retries. */
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE |
	                          SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	int asked = 0;
	SSL_CTX_set_default_passwd_cb(ctx, no_passphrase);
	SSL_CTX_set_default_passwd_cb_userdata(ctx, &asked);
	char what[4200];
	if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
		/* The setting named (admin probe), and a swapped pair said. */
		snprintf(what, sizeof what, "cert %s", cert);
		ssl_err(err, errlen, what);
		swapped_hint(cert, true, err, errlen);
		credential_hint(cfg->cert_file, err, errlen);
		goto fail;
	}
	if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
		if (asked) {
			/* OpenSSL's own reasons ("bad decrypt", "PEM lib") would
			 * not say what is wrong or what to do. */
			ERR_clear_error();
			snprintf(err, errlen, "%s: the key file is encrypted (protected by a pass phrase); "
			         "krieg needs an unencrypted key (openssl pkey -in ENCRYPTED -out KEY "
			         "writes one; keep it readable by kriegd only)", key);
		} else if (key_mismatch(ERR_peek_error())) {
			mismatch_words(key, cert, err, errlen);
		} else {
			snprintf(what, sizeof what, "key %s", key);
			ssl_err(err, errlen, what);
			swapped_hint(key, false, err, errlen);
			credential_hint(cfg->key_file, err, errlen);
		}
		goto fail;
	}
	/* `asked` ends with this call; the callback stays (no prompt, ever). */
	SSL_CTX_set_default_passwd_cb_userdata(ctx, NULL);
	if (SSL_CTX_check_private_key(ctx) != 1) {   /* a key of another type: loaded, then this */
		mismatch_words(key, cert, err, errlen);
		goto fail;
	}

	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	X509 *x = SSL_CTX_get0_certificate(ctx);
	fp[0] = '\0';
	if (x != NULL && X509_digest(x, EVP_sha256(), md, &mdlen) == 1) {
		/* The client's format (known servers file, its first-use prompt,
		 * krieg(1)): 64 lower-case hex digits, so an operator compares
		 * the two at a glance. */
		for (unsigned int i = 0; i < mdlen && 2 * i + 3 <= fplen; i++)
			snprintf(fp + 2 * i, fplen - 2 * i, "%02x", md[i]);
	}
	if (x != NULL)
		cert_log(cert, fp, x);
	else
		log_info("certificate cert=%s sha256=%s", cert, fp);
	return ctx;
fail:
	SSL_CTX_free(ctx);
	return NULL;
}

struct tls *tls_new(const struct config *cfg, char *err, size_t errlen)
{
	struct tls *t = xcalloc(1, sizeof *t);

	if (line_door_idx < 0 &&
	    (line_door_idx = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL)) < 0) {
		ssl_err(err, errlen, "SSL_get_ex_new_index");
		free(t);
		return NULL;
	}

	if ((t->ctx = ctx_build(cfg, true, t->fingerprint, sizeof t->fingerprint, err, errlen)) ==
	    NULL) {
		free(t);
		return NULL;
	}
	return t;
}

int tls_reload(struct tls *t, const struct config *cfg, char *err, size_t errlen)
{
	char fp[sizeof t->fingerprint];
	SSL_CTX *ctx = ctx_build(cfg, true, fp, sizeof fp, err, errlen);

	if (ctx == NULL)
		return -1;
	/* Every live SSL holds its own reference to the context it was made
	 * from (SSL_new), so the old one lives on until its last connection
	 * ends; only SSLs made from now on use the new one. */
	SSL_CTX_free(t->ctx);
	t->ctx = ctx;
	memcpy(t->fingerprint, fp, sizeof fp);
	return 0;
}

bool tls_credentials_elsewhere(const struct config *cfg)
{
	return credential_unseen(cfg->cert_file) && credential_unseen(cfg->key_file);
}

int tls_check(const struct config *cfg, char *err, size_t errlen)
{
	char fp[32 * 3];
	SSL_CTX *ctx;

	if (cfg->cert_file == NULL) {
		/* The development pair: checked (and its validity logged) once
		 * it exists; a start would generate a missing one. */
		char cert[4096], key[4096];
		struct stat st;
		if (config_validate(cfg, err, errlen) != 0)
			return -1;
		if ((size_t)snprintf(cert, sizeof cert, "%s/%s", cfg->state_dir, TLS_DEV_CERT) >=
		            sizeof cert ||
		    (size_t)snprintf(key, sizeof key, "%s/%s", cfg->state_dir, TLS_DEV_KEY) >= sizeof key ||
		    stat(cert, &st) != 0 || stat(key, &st) != 0)
			return 0;
	}
	if ((ctx = ctx_build(cfg, false, fp, sizeof fp, err, errlen)) == NULL)
		return -1;
	SSL_CTX_free(ctx);
	return 0;
}

void tls_free(struct tls *t)
{
	if (t == NULL)
		return;
	SSL_CTX_free(t->ctx);
	free(t);
}

SSL *tls_ssl_new(struct tls *t)
{
	SSL *ssl = SSL_new(t->ctx);

	if (ssl == NULL)
		tls_log_errors(0, "SSL_new");
	return ssl;
}

/* The mark is any non-NULL pointer: alpn_select asks only whether it is set. */
SSL *tls_ssl_new_line(struct tls *t)
{
	SSL *ssl = tls_ssl_new(t);

	if (ssl != NULL && SSL_set_ex_data(ssl, line_door_idx, (void *)&line_door_idx) != 1) {
		tls_log_errors(0, "SSL_set_ex_data");
		SSL_free(ssl);
		return NULL;
	}
	return ssl;
}

int tls_rotate_ticket_key(struct tls *t)
{
	/* OpenSSL's layout: 16 bytes of key name, 32 of HMAC key, 32 of AES key. */
	unsigned char keys[80];
	int rc = 0;

	if (RAND_bytes(keys, sizeof keys) != 1 ||
	    SSL_CTX_set_tlsext_ticket_keys(t->ctx, keys, sizeof keys) != 1) {
		tls_log_errors(0, "session ticket key");
		rc = -1;
	}
	OPENSSL_cleanse(keys, sizeof keys);
	return rc;
}

const char *tls_fingerprint(const struct tls *t)
{
	return t->fingerprint;
}
