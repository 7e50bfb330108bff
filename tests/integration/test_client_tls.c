/*
 * test_client_tls.c — krieg and krieg-bot against a kriegd whose
 * certificate an authority signed (a CA made here, trusted through
 * SSL_CERT_FILE), reached by a name the certificate does not hold:
 *   - a certificate for the name connected to is verified by the
 *     authority: no notice, nothing pinned;
 *   - one for other names (krieg.example.org) reached as localhost or
 *     127.0.0.1 is pinned on first use, and the notice says the truth:
 *     signed by a trusted authority, for other hosts (listed), connect by
 *     one of them; never "not signed by a known authority";
 *   - renewed by the same authority, the pin breaks: krieg's and
 *     krieg-bot's changed-certificate warnings say why (krieg-bot exits 4,
 *     every line of its journal prefixed);
 *   - a certificate that only claims the authority as its issuer (another
 *     key signed it) is not called signed by it, though OpenSSL checks the
 *     name before the signature.
 * $KRIEG, $KRIEG_BOT (else krieg-bot beside $KRIEGD) name the binaries.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "check_main.h"
#include "harness.h"
#include "harness_client.h"

#define RUN_TIMEOUT_MS 20000
#define NAMES "DNS:krieg.example.org,DNS:www.krieg.example.org"
#define TRUSTED "is signed by an authority this system trusts"

static struct kcl_scratch sc;

static void setup(void)
{
	kcl_scratch_make(&sc, "krieg-tls");
}

static void teardown(void)
{
	kcl_scratch_remove(&sc);
}

/* ---- certificates ---------------------------------------------------------------- */

struct ca {
	EVP_PKEY *key;
	X509 *cert;
};

static void add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX v3;
	X509V3_set_ctx_nodb(&v3);
	X509V3_set_ctx(&v3, issuer, x, NULL, NULL, 0);
	X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
	ck_assert_msg(ext != NULL, "extension %d = %s", nid, value);
	X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
}

static X509 *cert_begin(EVP_PKEY *k, const char *cn)
{
	static long serial = 1;
	X509 *x = X509_new();
	ck_assert_ptr_nonnull(x);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
	X509_gmtime_adj(X509_getm_notBefore(x), -3600);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600L * 24 * 30);
	X509_set_pubkey(x, k);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC, (const unsigned char *)cn, -1,
	                           -1, 0);
	return x;
}

static struct ca ca_make(const char *path)
{
	struct ca ca = { .key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256") };
	ck_assert_ptr_nonnull(ca.key);
	ca.cert = cert_begin(ca.key, "krieg test authority");
	X509_set_issuer_name(ca.cert, X509_get_subject_name(ca.cert));
	add_ext(ca.cert, ca.cert, NID_basic_constraints, "critical,CA:TRUE");
	add_ext(ca.cert, ca.cert, NID_key_usage, "critical,keyCertSign,cRLSign");
	add_ext(ca.cert, ca.cert, NID_subject_key_identifier, "hash");
	ck_assert_int_gt(X509_sign(ca.cert, ca.key, EVP_sha256()), 0);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(PEM_write_X509(f, ca.cert), 1);
	fclose(f);
	return ca;
}

static void ca_free(struct ca *ca)
{
	X509_free(ca->cert);
	EVP_PKEY_free(ca->key);
}

/* A server's pair (dir/cert.pem, dir/key.pem, a new key) for the names san,
 * issued in the name of ca and signed by signer (ca's key, or a forger's:
 * then without the authority key identifier that would give it away
 * before the signature is checked). */
static void leaf_make(const struct ca *ca, EVP_PKEY *signer, const char *san)
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	ck_assert_ptr_nonnull(k);
	X509 *x = cert_begin(k, "krieg server");
	X509_set_issuer_name(x, X509_get_subject_name(ca->cert));
	add_ext(x, ca->cert, NID_basic_constraints, "critical,CA:FALSE");
	add_ext(x, ca->cert, NID_ext_key_usage, "serverAuth");
	add_ext(x, ca->cert, NID_subject_alt_name, san);
	if (signer == ca->key)
		add_ext(x, ca->cert, NID_authority_key_identifier, "keyid:always");
	ck_assert_int_gt(X509_sign(x, signer, EVP_sha256()), 0);

	char path[256], tmp[272];
	snprintf(path, sizeof path, "%s/key.pem", sc.dir);
	snprintf(tmp, sizeof tmp, "%s.new", path);
	FILE *f = fopen(tmp, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL), 1);
	fclose(f);
	chmod(tmp, 0600);
	ck_assert_int_eq(rename(tmp, path), 0);
	snprintf(path, sizeof path, "%s/cert.pem", sc.dir);
	snprintf(tmp, sizeof tmp, "%s.new", path);
	f = fopen(tmp, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(PEM_write_X509(f, x), 1);
	fclose(f);
	ck_assert_int_eq(rename(tmp, path), 0);
	X509_free(x);
	EVP_PKEY_free(k);
}

/* kriegd serving dir/cert.pem, and the clients trusting the authority (their
 * environment is this process's). */
static struct kd *server_start(void)
{
	char conf[600], ca[256];
	snprintf(ca, sizeof ca, "%s/ca.pem", sc.dir);
	ck_assert_int_eq(setenv("SSL_CERT_FILE", ca, 1), 0);
	ck_assert_int_eq(setenv("SSL_CERT_DIR", sc.dir, 1), 0);   /* nothing from the system's */
	snprintf(conf, sizeof conf, "cert = %s/cert.pem\nkey = %s/key.pem\n", sc.dir, sc.dir);
	return kd_start(conf);
}

/* ---- the clients ------------------------------------------------------------------- */

/* krieg --batch HOST:port, "ping"; its exit status, the process kept in p. */
static int krieg_ping(const char *host, int port, struct kcl_proc *p)
{
	char addr[128];
	snprintf(addr, sizeof addr, "%s:%d", host, port);
	char *argv[] = { (char *)kcl_krieg_path(), "--batch", addr, NULL };
	kcl_proc_start(p, argv, sc.known, false);
	kcl_proc_write(p, "ping\n");
	return kcl_proc_finish(p, RUN_TIMEOUT_MS);
}

static void bot_path(char *buf, size_t len)
{
	const char *p = getenv("KRIEG_BOT");
	if (p && *p) {
		snprintf(buf, len, "%s", p);
		return;
	}
	const char *d = getenv("KRIEGD");
	ck_assert_msg(d && *d, "set KRIEG_BOT or KRIEGD");
	snprintf(buf, len, "%s", d);
	char *slash = strrchr(buf, '/');
	snprintf(slash ? slash + 1 : buf, len - (size_t)(slash ? slash + 1 - buf : 0), "%s", "krieg-bot");
}

static bool pinned(void)
{
	struct stat st;
	return stat(sc.known, &st) == 0 && st.st_size > 0;
}

/* Each line of text starts with prefix. */
static bool every_line_starts(const char *text, const char *prefix)
{
	for (const char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (strncmp(p, prefix, strlen(prefix)) != 0)
			return false;
	return true;
}

/* ---- the tests ---------------------------------------------------------------------- */

/* The control: the certificate names the host: the authority vouches, no pin. */
START_TEST(named_host_is_verified_by_the_authority)
{
	char path[256];
	snprintf(path, sizeof path, "%s/ca.pem", sc.dir);
	struct ca ca = ca_make(path);
	leaf_make(&ca, ca.key, "DNS:localhost,IP:127.0.0.1");
	struct kd *d = server_start();
	struct kcl_proc p;
	ck_assert_int_eq(krieg_ping("localhost", kd_port(d), &p), 0);
	ck_assert_msg(p.ebuf[0] == '\0', "%s", p.ebuf);
	ck_assert(!pinned());
	kcl_proc_free(&p);
	kd_stop(d);
	ca_free(&ca);
}
END_TEST

/*
 * Regression (the documentation probe): BOTS.md had KRIEG_BOT_SERVER=
 * localhost:7474 against a certificate for krieg.example.org.  krieg
 * pinned it saying "not signed by a known authority" (it is: only the
 * name differs), and at the first renewal the pin broke and krieg-bot
 * stopped for good (exit 4) with no word of why.
 */
START_TEST(other_names_are_told_and_pinning_breaks_at_renewal)
{
	char path[256], want[128];
	snprintf(path, sizeof path, "%s/ca.pem", sc.dir);
	struct ca ca = ca_make(path);
	leaf_make(&ca, ca.key, NAMES);
	struct kd *d = server_start();
	int port = kd_port(d);
	struct kcl_proc p;

	/* first use, by name and by address: pinned, and the notice says why */
	static const char *const hosts[] = { "localhost", "127.0.0.1" };
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(krieg_ping(hosts[i], port, &p), 0);
		ck_assert_msg(strstr(p.ebuf, "permanently added"), "%s", p.ebuf);
		ck_assert_msg(strstr(p.ebuf, TRUSTED), "%s", p.ebuf);
		ck_assert_msg(strstr(p.ebuf, "names other hosts: krieg.example.org, www.krieg.example.org."), "%s",
		              p.ebuf);
		snprintf(want, sizeof want, "connect by it (krieg.example.org:%d)", port);
		ck_assert_msg(strstr(p.ebuf, want), "%s", p.ebuf);
		snprintf(want, sizeof want, "a pin for %s:%d breaks at every renewal", hosts[i], port);
		ck_assert_msg(strstr(p.ebuf, want), "%s", p.ebuf);
		ck_assert_msg(!strstr(p.ebuf, "not signed") && !strstr(p.ebuf, "not verified"), "%s", p.ebuf);
		ck_assert_msg(every_line_starts(p.ebuf, "krieg: "), "%s", p.ebuf);
		kcl_proc_free(&p);
	}
	/* the pin holds: silent */
	ck_assert_int_eq(krieg_ping("localhost", port, &p), 0);
	ck_assert_msg(p.ebuf[0] == '\0', "%s", p.ebuf);
	kcl_proc_free(&p);

	/* the authority renews the certificate (a new key): the pin breaks */
	leaf_make(&ca, ca.key, NAMES);
	kd_reload(d, "");
	ck_assert_int_ne(krieg_ping("localhost", port, &p), 0);
	ck_assert_msg(strstr(p.ebuf, "CERTIFICATE HAS CHANGED"), "%s", p.ebuf);
	ck_assert_msg(strstr(p.ebuf, TRUSTED), "%s", p.ebuf);
	ck_assert_msg(strstr(p.ebuf, "names other hosts: krieg.example.org, www.krieg.example.org."), "%s",
	              p.ebuf);
	snprintf(want, sizeof want, "connect by it (krieg.example.org:%d)", port);
	ck_assert_msg(strstr(p.ebuf, want), "%s", p.ebuf);
	kcl_proc_free(&p);

	/* krieg-bot, as its unit runs it: exit 4, and its journal says why */
	char bin[PATH_MAX], addr[64];
	bot_path(bin, sizeof bin);
	snprintf(addr, sizeof addr, "localhost:%d", port);
	char *argv[] = { bin, "play", addr, "--guest", NULL };
	kcl_proc_start(&p, argv, sc.known, false);
	ck_assert_int_eq(kcl_proc_finish(&p, RUN_TIMEOUT_MS), 4);
	ck_assert_msg(strstr(p.ebuf, "krieg-bot: The certificate of localhost:"), "%s", p.ebuf);
	ck_assert_msg(strstr(p.ebuf, TRUSTED), "%s", p.ebuf);
	ck_assert_msg(strstr(p.ebuf, "krieg-bot: but it names other hosts: krieg.example.org, "
	                             "www.krieg.example.org."), "%s", p.ebuf);
	ck_assert_msg(strstr(p.ebuf, want), "%s", p.ebuf);
	ck_assert_msg(every_line_starts(p.ebuf, "krieg-bot: "), "%s", p.ebuf);
	kcl_proc_free(&p);
	kd_stop(d);
	ca_free(&ca);
}
END_TEST

/* A certificate issued in the authority's name by another key: the name
 * is checked first, and fails, but it is not the authority's. */
START_TEST(forged_issuer_is_not_called_signed)
{
	char path[256];
	snprintf(path, sizeof path, "%s/ca.pem", sc.dir);
	struct ca ca = ca_make(path);
	EVP_PKEY *forger = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	ck_assert_ptr_nonnull(forger);
	leaf_make(&ca, forger, NAMES);
	struct kd *d = server_start();
	struct kcl_proc p;
	ck_assert_int_eq(krieg_ping("localhost", kd_port(d), &p), 0);
	ck_assert_msg(strstr(p.ebuf, "permanently added"), "%s", p.ebuf);
	ck_assert_msg(!strstr(p.ebuf, TRUSTED) && !strstr(p.ebuf, "krieg.example.org"), "%s", p.ebuf);
	ck_assert_msg(strstr(p.ebuf, "is not verified by an authority this system trusts (certificate "
	                             "signature failure)"), "%s", p.ebuf);
	kcl_proc_free(&p);
	kd_stop(d);
	EVP_PKEY_free(forger);
	ca_free(&ca);
}
END_TEST

static Suite *client_tls_suite(void)
{
	Suite *s = suite_create("client_tls");
	TCase *tc = tcase_create("client_tls");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, named_host_is_verified_by_the_authority);
	tcase_add_test(tc, other_names_are_told_and_pinning_breaks_at_renewal);
	tcase_add_test(tc, forged_issuer_is_not_called_signed);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(client_tls_suite)
