/*
 * test_service.c — kriegd as a systemd service, without systemd: the
 * sd_notify messages through a datagram socket the test binds as
 * NOTIFY_SOCKET (READY, STATUS, WATCHDOG, STOPPING), SIGHUP with a
 * replaced certificate and config (new connections get the new
 * certificate, a game in progress goes on, a broken certificate or file
 * keeps the old settings), `--check-config`, and socket activation through
 * a passed descriptor (LISTEN_FDS/LISTEN_PID).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "check_main.h"
#include "harness.h"
#include "harness_game.h"

#define FP_LEN (32 * 3)

/* The SHA-256 of x in 64 lower-case hex digits: as kriegd logs it and as
 * krieg shows and pins it (one format everywhere, issue 10). */
static void fp_of(X509 *x, char fp[FP_LEN])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	ck_assert_int_eq(X509_digest(x, EVP_sha256(), md, &n), 1);
	for (unsigned int i = 0; i < n; i++)
		snprintf(fp + 2 * i, FP_LEN - 2 * i, "%02x", md[i]);
}

static void fp_of_file(const char *path, char fp[FP_LEN])
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	ck_assert_ptr_nonnull(x);
	fp_of(x, fp);
	X509_free(x);
}

/* The certificate a new connection to 127.0.0.1:port is shown (no
 * verification: which one it is, is the question). */
static void fp_served(int port, char fp[FP_LEN])
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { .tv_sec = 10 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_ge(fd, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	ck_assert_msg(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect: %s",
	              strerror(errno));
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	SSL *ssl = SSL_new(ctx);
	SSL_set_fd(ssl, fd);
	ck_assert_msg(SSL_connect(ssl) == 1, "TLS handshake failed");
	X509 *x = SSL_get1_peer_certificate(ssl);
	ck_assert_ptr_nonnull(x);
	fp_of(x, fp);
	X509_free(x);
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	close(fd);
}

static void write_pem(const char *path, EVP_PKEY *k, X509 *x)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(k != NULL ? PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL)
	                           : PEM_write_X509(f, x), 1);
	fclose(f);
	chmod(path, 0600);
}

/* A new self-signed pair for localhost valid from now + from_s until now
 * + until_s (seconds), its key encrypted with pass phrase `pass` unless
 * NULL. */
static void new_pair_with(const char *cert, const char *key, long from_s, long until_s,
                          const char *pass);

/* A new self-signed pair for localhost (what a renewal puts in place). */
static void new_pair(const char *cert, const char *key)
{
	new_pair_with(cert, key, -3600, 3600L * 24 * 365, NULL);
}

static void new_pair_with(const char *cert, const char *key, long from_s, long until_s,
                          const char *pass)
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	X509 *x = X509_new();
	X509V3_CTX v3;

	ck_assert_ptr_nonnull(k);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), (long)getpid() ^ (long)time(NULL));
	X509_gmtime_adj(X509_getm_notBefore(x), from_s);
	X509_gmtime_adj(X509_getm_notAfter(x), until_s);
	X509_set_pubkey(x, k);
	X509_NAME *name = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"localhost", -1,
	                           -1, 0);
	X509_set_issuer_name(x, name);
	X509V3_set_ctx_nodb(&v3);
	X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
	X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name,
	                                          "DNS:localhost,IP:127.0.0.1");
	ck_assert_ptr_nonnull(ext);
	X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	ck_assert_int_gt(X509_sign(x, k, EVP_sha256()), 0);
	/* Written beside, then renamed: as certbot's deploy hooks do. */
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.new", key);
	if (pass == NULL) {
		write_pem(tmp, k, NULL);
	} else {
		/* As `openssl genpkey -aes256 -pass pass:...` writes it (PKCS#8). */
		FILE *f = fopen(tmp, "w");
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(PEM_write_PrivateKey(f, k, EVP_aes_256_cbc(),
		                                      (const unsigned char *)pass, (int)strlen(pass),
		                                      NULL, NULL), 1);
		fclose(f);
		chmod(tmp, 0600);
	}
	ck_assert_int_eq(rename(tmp, key), 0);
	snprintf(tmp, sizeof tmp, "%s.new", cert);
	write_pem(tmp, NULL, x);
	ck_assert_int_eq(rename(tmp, cert), 0);
	X509_free(x);
	EVP_PKEY_free(k);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* The state directory's parent, where the harness keeps kriegd.conf. */
static void conf_path(const struct kd *d, char *buf, size_t len)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s", kd_state_dir(d));
	snprintf(buf, len, "%s/kriegd.conf", dirname(tmp));
}

/* SIGHUP, then wait for the n-th occurrence of needle in the log. */
static void hup_and_wait(struct kd *d, const char *needle)
{
	int before = kd_log_count(d, needle);
	ck_assert_int_eq(kill(kd_pid(d), SIGHUP), 0);
	for (int i = 0; i < 1000 && kd_log_count(d, needle) <= before; i++)
		kt_sleep_ms(10);
	char *log = kd_log(d);
	ck_assert_msg(kd_log_count(d, needle) > before, "no \"%s\" after SIGHUP; log:\n%s", needle,
	              log);
	free(log);
}

START_TEST(reload_certificate)
{
	struct kd *d = kd_start("idle_timeout = 60s\n");
	char cert[4200], key[4200], conf[4200], fp0[FP_LEN], fp1[FP_LEN], fp2[FP_LEN], now[FP_LEN];
	struct kp w, b;

	snprintf(cert, sizeof cert, "%s/kriegd-cert.pem", kd_state_dir(d));
	snprintf(key, sizeof key, "%s/kriegd-key.pem", kd_state_dir(d));
	conf_path(d, conf, sizeof conf);
	kp_guest(d, &w);
	kp_guest(d, &b);
	int64_t g = kg_new_game(&w, &b);
	kc_ok(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", g, "move", "e4"));

	fp_of_file(cert, fp0);
	fp_served(kd_port(d), now);
	ck_assert_str_eq(now, fp0);
	/* The log names it as the client does. */
	char logged[FP_LEN + 16];
	snprintf(logged, sizeof logged, "sha256=%s", fp0);
	ck_assert(kd_log_wait(d, logged, 5000));

	/* A renewed certificate: new connections see it, the game goes on. */
	new_pair(cert, key);
	fp_of_file(cert, fp1);
	ck_assert_str_ne(fp1, fp0);
	hup_and_wait(d, "reloaded sha256=");
	fp_served(kd_port(d), now);
	ck_assert_str_eq(now, fp1);
	kc_ok(b.c, kc_req(b.c, "move", "{s:I, s:s}", "game", g, "move", "e5"));
	struct kc *fresh = kc_hello(d);     /* verifies against the new file */
	kc_close(fresh);

	/* A broken certificate: logged, the running one kept. */
	write_file(cert, "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n");
	hup_and_wait(d, "reload failed");
	fp_served(kd_port(d), now);
	ck_assert_str_eq(now, fp1);
	kc_ok(w.c, kc_req(w.c, "move", "{s:I, s:s}", "game", g, "move", "Nf3"));

	/* A broken config file: named with its line, nothing changes. */
	new_pair(cert, key);
	fp_of_file(cert, fp2);
	write_file(conf, "idle_timeout = 60s\nno_such_key = 1\n");
	hup_and_wait(d, "reload failed");
	ck_assert_int_ge(kd_log_count(d, "kriegd.conf:2: unknown setting 'no_such_key'"), 1);
	fp_served(kd_port(d), now);
	ck_assert_str_eq(now, fp1);

	/* A good one that also changes what needs a restart: applied, and
	 * the fixed settings named (listen comes from the command line here,
	 * which wins over the file, so it does not change). */
	write_file(conf, "idle_timeout = 60s\nlisten = 127.0.0.1:1\ndatabase = /nonexistent/k.db\n"
	                 "store_synchronous = normal\n");
	hup_and_wait(d, "reloaded sha256=");
	ck_assert_int_ge(kd_log_count(d, "take effect only on restart: database,store_synchronous"),
	                 1);
	/* with the value that runs on and the file's (admin probe) */
	ck_assert_int_ge(kd_log_count(d, "(the file: /nonexistent/k.db); store_synchronous = full (the file: normal)"),
	                 1);
	fp_served(kd_port(d), now);
	ck_assert_str_eq(now, fp2);
	kc_ok(b.c, kc_req(b.c, "move", "{s:I, s:s}", "game", g, "move", "Nc6"));
	kc_ok(w.c, kc_req(w.c, "ping", NULL));
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* The club's message of the day: in every greeting, changed by a reload
 * for the connections that follow; none when unset. */
START_TEST(motd_in_the_greeting)
{
	struct kd *d = kd_start("motd = Club night on Thursdays \xe2\x99\x9e\n");
	char conf[4200];
	conf_path(d, conf, sizeof conf);
	struct kc *c = kc_hello(d);
	json_t *g = json_loads(kc_line(c, 0), 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(g, "event")), "greeting");
	ck_assert_str_eq(json_string_value(json_object_get(g, "motd")), "Club night on Thursdays \xe2\x99\x9e");
	json_decref(g);
	kc_close(c);
	write_file(conf, "motd = Round two at nine\n");
	hup_and_wait(d, "reloaded sha256=");
	c = kc_hello(d);
	g = json_loads(kc_line(c, 0), 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(g, "motd")), "Round two at nine");
	json_decref(g);
	kc_close(c);
	/* a control character is refused (the running one kept); empty is none */
	write_file(conf, "motd = ring \x07 the bell\n");
	hup_and_wait(d, "reload failed");
	int named = kd_log_count(d, " changed=motd\n");
	write_file(conf, "motd =\n");
	hup_and_wait(d, "reloaded sha256=");
	ck_assert_int_eq(kd_log_count(d, " changed=motd\n"), named + 1);   /* named when it goes too (unset: not printed) */
	c = kc_hello(d);
	ck_assert_ptr_null(strstr(kc_line(c, 0), "motd"));
	kc_close(c);
	/* Regression (the club admin probe): a reload said nothing of what it
	 * changed.  Its line names the settings, or says none. */
	kd_reload(d, "motd = Round three at ten\n");
	ck_assert_int_eq(kd_log_count(d, " changed=motd\n"), named + 2);
	kd_reload(d, "registration = invite\nguests = off\n");
	ck_assert_int_eq(kd_log_count(d, " changed=guests,registration\n") +
	                 kd_log_count(d, " changed=registration,guests\n"), 1);
	int none = kd_log_count(d, " changed=none\n");
	kd_reload(d, "");
	ck_assert_int_eq(kd_log_count(d, " changed=none\n"), none + 1);
	kd_stop(d);
}
END_TEST

/* ---- sd_notify ---- */

struct notify {
	int fd;
	char path[108];
	char got[8192];             /* every datagram so far, '|'-separated */
};

static void notify_open(struct notify *n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *tmp = getenv("TMPDIR");

	snprintf(n->path, sizeof n->path, "%s/kn-%d.sock", tmp && *tmp ? tmp : "/tmp", (int)getpid());
	unlink(n->path);
	n->got[0] = '\0';
	n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(n->fd, 0);
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", n->path);
	ck_assert_int_eq(bind(n->fd, (struct sockaddr *)&sa, sizeof sa), 0);
	setenv("NOTIFY_SOCKET", n->path, 1);
}

/* Wait until `count` datagrams containing needle have come (all kept). */
static bool notify_wait(struct notify *n, const char *needle, int count, int timeout_ms)
{
	for (int waited = 0;; waited += 10) {
		int seen = 0;
		for (const char *p = n->got; (p = strstr(p, needle)) != NULL; p++)
			seen++;
		if (seen >= count)
			return true;
		if (waited >= timeout_ms)
			return false;
		struct pollfd pfd = { .fd = n->fd, .events = POLLIN };
		if (poll(&pfd, 1, 10) == 1) {
			char buf[1024];
			ssize_t r = recv(n->fd, buf, sizeof buf - 1, 0);
			if (r > 0) {
				buf[r] = '\0';
				size_t used = strlen(n->got);
				snprintf(n->got + used, sizeof n->got - used, "%s|", buf);
			}
		}
	}
}

static void notify_close(struct notify *n)
{
	unsetenv("NOTIFY_SOCKET");
	close(n->fd);
	unlink(n->path);
}

START_TEST(notify_ready_status_watchdog)
{
	struct notify n;

	notify_open(&n);
	/* Pings every 150 ms (half the period). */
	setenv("WATCHDOG_USEC", "300000", 1);
	struct kd *d = kd_start(NULL);
	unsetenv("WATCHDOG_USEC");
	ck_assert_msg(notify_wait(&n, "READY=1", 1, 10000), "no READY=1: %s", n.got);
	ck_assert_msg(strstr(n.got, "STATUS=0 connections, 0 live games") != NULL, "%s", n.got);
	ck_assert_msg(notify_wait(&n, "WATCHDOG=1", 3, 10000), "no watchdog pings: %s", n.got);

	/* The status follows what is served. */
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	kg_new_game(&w, &b);
	ck_assert_msg(notify_wait(&n, "STATUS=2 connections, 1 live games", 1, 10000), "%s", n.got);

	/* A reload is announced and ends READY again. */
	int ready = 0;
	for (const char *p = n.got; (p = strstr(p, "READY=1")) != NULL; p++)
		ready++;
	ck_assert_int_eq(kill(kd_pid(d), SIGHUP), 0);
	ck_assert_msg(notify_wait(&n, "RELOADING=1", 1, 10000), "%s", n.got);
	ck_assert_msg(notify_wait(&n, "READY=1", ready + 1, 10000), "%s", n.got);

	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
	ck_assert_msg(notify_wait(&n, "STOPPING=1", 1, 1000), "no STOPPING=1: %s", n.got);
	notify_close(&n);
}
END_TEST

/* The socket goes away while kriegd runs: one warning, on one line (the
 * state's newlines escaped), not one every watchdog tick; once it is back,
 * a line says so, and the next failure is told again.  Before, each tick
 * logged a warning split over two lines (journald: two records). */
START_TEST(notify_failure_logged_once)
{
	struct notify n;

	notify_open(&n);
	setenv("WATCHDOG_USEC", "100000", 1);   /* a ping every 50 ms */
	struct kd *d = kd_start(NULL);
	unsetenv("WATCHDOG_USEC");
	ck_assert_msg(notify_wait(&n, "WATCHDOG=1", 2, 10000), "no watchdog pings: %s", n.got);
	close(n.fd);
	unlink(n.path);
	ck_assert(kd_log_wait(d, "sd_notify failed", 5000));
	kt_sleep_ms(600);   /* a dozen ticks more */
	ck_assert_int_eq(kd_log_count(d, "sd_notify failed"), 1);
	ck_assert_int_eq(kd_log_count(d, "state=\"WATCHDOG=1\\x0aSTATUS="), 1);
	char *log = kd_log(d);
	ck_assert_msg(strstr(log, "WATCHDOG=1\n") == NULL, "a raw newline in the log:\n%s", log);
	free(log);

	/* Back: said once; gone again: told again. */
	notify_open(&n);
	ck_assert(kd_log_wait(d, "sd_notify works again", 5000));
	close(n.fd);
	unlink(n.path);
	ck_assert(kd_log_wait_count(d, "sd_notify failed", 1, 5000));
	unsetenv("NOTIFY_SOCKET");
	kd_stop(d);
}
END_TEST

/* Regression (admin probe): at log_level = warn a port 0's listener was
 * never told (its "listening on" line, and "ready", were info's): both
 * are said whatever the level, so this start finds its port and serves. */
START_TEST(start_lines_at_any_log_level)
{
	struct kd *d = kd_start("log_level = warn\n");
	ck_assert_int_eq(kd_log_count(d, "kriegd: listening on 127.0.0.1:"), 1);
	ck_assert_int_eq(kd_log_count(d, "kriegd: ready "), 1);
	/* Regression (the ops probe): started as root, it served as root and
	 * said nothing.  Said (once, at start) exactly when this test is root. */
	ck_assert_int_eq(kd_log_count(d, "warning: running as root: kriegd needs no privilege"),
	                 geteuid() == 0);
	struct kc *c = kc_connect(d);
	kc_ok(c, kc_req(c, "ping", NULL));
	kc_close(c);
	kd_stop(d);
}
END_TEST

START_TEST(notify_none_without_socket)
{
	/* No NOTIFY_SOCKET: no watchdog line, no complaint, a normal start. */
	unsetenv("NOTIFY_SOCKET");
	setenv("WATCHDOG_USEC", "300000", 1);
	struct kd *d = kd_start(NULL);
	unsetenv("WATCHDOG_USEC");
	struct kc *c = kc_hello(d);
	kc_close(c);
	ck_assert_int_eq(kd_log_count(d, "watchdog"), 0);
	ck_assert_int_eq(kd_log_count(d, "sd_notify"), 0);
	kd_stop(d);
}
END_TEST

/* ---- --check-config ---- */

/* write conf to path, run kriegd with argv (which reads it): it fails,
 * saying want. */
static void refused_conf(char *const argv[], const char *path, const char *conf, const char *want)
{
	char out[16384];
	write_file(path, conf);
	ck_assert_int_ne(kg_run_kriegd(argv, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, want) != NULL, "%s", out);
}

START_TEST(check_config)
{
	char dir[] = "/tmp/kcc-XXXXXX", path[256], out[16384];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/kriegd.conf", dir);

	write_file(path, "# a club\nlisten = 127.0.0.1:7575\nidle_timeout = 90s\n"
	                 "output_buffer_max = 64k\nlog_level = warn\n");
	char *good[] = { "kriegd", "--check-config", "--config", path, NULL };
	ck_assert_int_eq(kg_run_kriegd(good, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "listen = 127.0.0.1:7575\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "idle_timeout = 90s\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "output_buffer_max = 65536\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "log_level = warn\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "max_connections = 1024\n") != NULL, "defaults shown: %s", out);
	ck_assert_msg(strstr(out, "\npassword_cost = 15\n") != NULL, "defaults shown: %s", out);
	ck_assert_msg(strstr(out, "\n# test_start_fen: unset;") != NULL, "unset keys shown: %s", out);
	/* a default of 0 is a value, shown as one (it said "the built-in default") */
	ck_assert_msg(strstr(out, "\nuntimed_abandon_grace = 0s\n") != NULL, "%s", out);

	/* The printed settings are a valid config themselves. */
	char again[256];
	snprintf(again, sizeof again, "%s/printed.conf", dir);
	write_file(again, out);
	char *reread[] = { "kriegd", "--check-config", "--config", again, NULL };
	char out2[16384];
	ck_assert_int_eq(kg_run_kriegd(reread, 10000, out2, sizeof out2), 0);
	ck_assert_str_eq(out2, out);

	/* Every setting is shown, the account guard's too, and close_linger = 0
	 * as the 0 it is (it said "unset; the built-in default", 2s). */
	static const char *const shown[] = {
		"register_per_hour = 2", "guests_per_address = 3", "guests_per_hour = 9", "games_per_hour = 11",
		"login_free_failures = 4",
		"hash_queue_per_address = 7", "login_backoff = 5s", "login_backoff_max = 20m",
		"login_failure_memory = 2h", "login_failure_delay = 250ms", "log_repeat_interval = 30s",
		"ipv6_prefix = 56", "close_linger = 0s", "password_cost = 12",
	};
	char conf[1024] = "";
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
		snprintf(conf + strlen(conf), sizeof conf - strlen(conf), "%s\n", shown[i]);
	write_file(path, conf);
	ck_assert_int_eq(kg_run_kriegd(good, 10000, out, sizeof out), 0);
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
		char want[128];
		snprintf(want, sizeof want, "\n%s\n", shown[i]);
		ck_assert_msg(strstr(out, want) != NULL, "%s not shown: %s", shown[i], out);
	}
	write_file(again, out);
	ck_assert_int_eq(kg_run_kriegd(reread, 10000, out2, sizeof out2), 0);
	ck_assert_str_eq(out2, out);

	/* --set of a repeatable key replaces the file's values, as --set wins
	 * over the file for every key (it added to them: docs probe); a
	 * second --set of it adds. */
	write_file(path, "listen = 127.0.0.1:7575\nlisten = 127.0.0.1:7576\n"
	                 "web_origins = https://a.example\n");
	char *set[] = { "kriegd", "--check-config", "--config", path, "--set", "listen=127.0.0.1:7577",
	                "--set", "web_origins=https://b.example", "--set",
	                "web_origins=https://c.example", NULL };
	ck_assert_int_eq(kg_run_kriegd(set, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "listen = 127.0.0.1:7577\n") != NULL &&
	              strstr(out, "7575") == NULL && strstr(out, "7576") == NULL, "%s", out);
	ck_assert_msg(strstr(out, "web_origins = https://b.example\n") != NULL &&
	              strstr(out, "web_origins = https://c.example\n") != NULL &&
	              strstr(out, "a.example") == NULL, "%s", out);
	/* --check-config checks; a subcommand with it is refused, not ignored. */
	char *sub[] = { "kriegd", "--check-config", "--config", path, "user", "list", NULL };
	ck_assert_int_ne(kg_run_kriegd(sub, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "--check-config takes no subcommand (user)") != NULL, "%s", out);

	/* --set reads as the file's line does: blanks around the key and the
	 * value (it said "unknown setting 'password_cost '": admin probe). */
	char *spaced[] = { "kriegd", "--check-config", "--set", "password_cost = 12", NULL };
	ck_assert_int_eq(kg_run_kriegd(spaced, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "\npassword_cost = 12\n") != NULL, "%s", out);
	/* An empty path is refused where a start would fail on it, or, for
	 * state_dir, take the filesystem's root (admin probe). */
	char *nodb[] = { "kriegd", "--check-config", "--set", "database=", NULL };
	ck_assert_int_ne(kg_run_kriegd(nodb, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "database: an empty path") != NULL, "%s", out);
	refused_conf(good, path, "state_dir =\n", "kriegd.conf:1: state_dir: an empty path");
	/* A stray word is named before the usage (it printed the usage alone:
	 * admin probe); so is a backup without its FILE. */
	char *stray[] = { "kriegd", "extra", NULL };
	ck_assert_int_eq(kg_run_kriegd(stray, 10000, out, sizeof out), 2);
	ck_assert_msg(strstr(out, "kriegd: unexpected word 'extra'\nusage:") != NULL, "%s", out);
	char *nofile[] = { "kriegd", "backup", NULL };
	ck_assert_int_eq(kg_run_kriegd(nofile, 10000, out, sizeof out), 2);
	ck_assert_msg(strstr(out, "kriegd: backup takes one FILE") != NULL, "%s", out);
	/* --help with a stray word is a usage error, not the answer (exit 0:
	 * admin probe); alone it is the answer. */
	char *helpx[] = { "kriegd", "--help", "extra", NULL };
	ck_assert_int_eq(kg_run_kriegd(helpx, 10000, out, sizeof out), 2);
	ck_assert_msg(strstr(out, "kriegd: unexpected word 'extra' after --help\nusage:") != NULL, "%s",
	              out);
	/* A state directory that is a file is named as such (it said "Not a
	 * directory (... makes it)": admin probe). */
	char *notdir[] = { "kriegd", "--state-dir", path, "user", "list", NULL };
	ck_assert_int_eq(kg_run_kriegd(notdir, 10000, out, sizeof out), 1);
	ck_assert_msg(strstr(out, "is not a directory") != NULL && strstr(out, "makes it") == NULL, "%s",
	              out);
	char *help[] = { "kriegd", "--help", NULL };
	ck_assert_int_eq(kg_run_kriegd(help, 10000, out, sizeof out), 0);
	ck_assert_msg(strncmp(out, "usage: kriegd", 13) == 0, "%s", out);
	/* A duration's range in the units a person writes (it said "from
	 * 1ms to 3600000ms": admin probe). */
	char *longer[] = { "kriegd", "--check-config", "--set", "login_backoff=2h", NULL };
	ck_assert_int_ne(kg_run_kriegd(longer, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "login_backoff: expected a duration from 1ms to 1h (") != NULL, "%s", out);
	/* Paths a start would not find: refused here, the setting named
	 * (they passed, and the start failed naming none: admin probe). */
	char missing[300], arg[320];
	snprintf(missing, sizeof missing, "%s/no/such", dir);
	snprintf(arg, sizeof arg, "state_dir=%s", missing);
	char *nostate[] = { "kriegd", "--check-config", "--set", arg, NULL };
	ck_assert_int_ne(kg_run_kriegd(nostate, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "state_dir = ") != NULL &&
	              strstr(out, "/no/such: its parent directory does not exist") != NULL, "%s", out);
	/* a trailing '/' names the same directory, whose parent exists (a
	 * review: its own name was looked for) */
	char fresh[320];
	snprintf(fresh, sizeof fresh, "state_dir=%s/fresh/", dir);
	char *slashed[] = { "kriegd", "--check-config", "--set", fresh, NULL };
	ck_assert_msg(kg_run_kriegd(slashed, 10000, out, sizeof out) == 0, "%s", out);
	char *nostart[] = { "kriegd", "--set", arg, NULL };
	ck_assert_int_ne(kg_run_kriegd(nostart, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "/no/such: its parent directory does not exist") != NULL, "%s", out);
	snprintf(arg, sizeof arg, "database=%s/x.db", missing);
	char *nodbdir[] = { "kriegd", "--check-config", "--set", arg, NULL };
	ck_assert_int_ne(kg_run_kriegd(nodbdir, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "database = ") != NULL &&
	              strstr(out, "/no/such/x.db: its directory does not exist") != NULL, "%s", out);
	/* Settings that contradict each other: refused, both named. */
	char *contra[] = { "kriegd", "--check-config", "--set", "login_backoff=1h", "--set",
	                   "login_backoff_max=1s", NULL };
	ck_assert_int_ne(kg_run_kriegd(contra, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "login_backoff (1h) is longer than login_backoff_max (1s)") != NULL,
	              "%s", out);
	/* ... and in a file, the file named (admin probe). */
	refused_conf(good, path, "login_backoff = 1h\nlogin_backoff_max = 1s\n",
	             "kriegd.conf: login_backoff (1h) is longer than login_backoff_max (1s)");
	/* A byte-order mark before the first key is skipped (admin probe). */
	write_file(path, "\xEF\xBB\xBFpassword_cost = 13\n");
	ck_assert_int_eq(kg_run_kriegd(good, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "\npassword_cost = 13\n") != NULL, "%s", out);
	/* A password cost below scrypt's floor here (kdf.h) is refused. */
	refused_conf(good, path, "password_cost = 9\n",
	             "password_cost: expected an integer from 10 to 20");

	/* An address a start would refuse is refused here, file and line named. */
	refused_conf(good, path, "idle_timeout = 90s\nlisten = 1.2.3.4\n",
	             "kriegd.conf:2: listen 1.2.3.4: expected");
	refused_conf(good, path, "listen_web_plain = 0.0.0.0:17719\n",
	             "kriegd.conf:1: listen_web_plain 0.0.0.0:17719: refused, not a loopback address");
	refused_conf(good, path, "listen_web = 127.0.0.1\n",
	             "kriegd.conf:1: listen_web 127.0.0.1: expected");

	/* An unknown key and a bad value: non-zero, file and line named. */
	refused_conf(good, path, "listen = 127.0.0.1:7575\n\nlisten_adress = 1.2.3.4:1\n",
	             "kriegd.conf:3: unknown setting 'listen_adress'");
	refused_conf(good, path, "idle_timeout = soon\n", "kriegd.conf:1: idle_timeout:");
	/* cert without key, and a certificate that does not load. */
	refused_conf(good, path, "cert = /nonexistent/cert.pem\n", "set both 'cert' and 'key'");
	refused_conf(good, path, "cert = /nonexistent/cert.pem\nkey = /nonexistent/key.pem\n",
	             "/nonexistent/cert.pem");

	/* A credential name (no '/') is read from $CREDENTIALS_DIRECTORY. */
	char cred[256], c[300], k[300];
	snprintf(cred, sizeof cred, "%s/creds", dir);
	ck_assert_int_eq(mkdir(cred, 0700), 0);
	snprintf(c, sizeof c, "%s/tls-cert", cred);
	snprintf(k, sizeof k, "%s/tls-key", cred);
	new_pair(c, k);
	write_file(path, "cert = tls-cert\nkey = tls-key\n");
	/* From a shell, where only the service can read them, the rest is
	 * checked and the certificate said not to be (docs probe: CLUB.md's
	 * upgrade steps stopped at their check with credentials). */
	unsetenv("CREDENTIALS_DIRECTORY");
	ck_assert_int_eq(kg_run_kriegd(good, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "cert = tls-cert and key = tls-key name systemd credentials") != NULL &&
	              strstr(out, "the certificate is not checked") != NULL &&
	              strstr(out, "\ncert = tls-cert\n") != NULL, "%s", out);
	refused_conf(good, path, "cert = tls-cert\nkey = tls-key\nidle_timeout = soon\n",
	             "kriegd.conf:3: idle_timeout:");
	/* A credential and a path: the name read as a path, and the refusal
	 * says why. */
	write_file(path, "cert = tls-cert\nkey = /nonexistent/key.pem\n");
	ck_assert_int_ne(kg_run_kriegd(good, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "\"tls-cert\" without a '/' names a systemd credential") != NULL &&
	              strstr(out, "$CREDENTIALS_DIRECTORY, which is not set here") != NULL, "%s", out);
	/* A pair swapped: each setting named, and said to hold the other
	 * (it said OpenSSL's "no start line" alone: admin probe). */
	char swapped[700];
	snprintf(swapped, sizeof swapped, "cert = %s\nkey = %s\n", k, c);
	char want[800];
	snprintf(want, sizeof want, "cert %s: ", k);
	refused_conf(good, path, swapped, want);
	refused_conf(good, path, swapped, "(it holds a private key, not a certificate: cert and key "
	             "swapped?)");
	snprintf(swapped, sizeof swapped, "cert = %s\nkey = %s\n", c, c);
	refused_conf(good, path, swapped, "(it holds a certificate, not a private key: cert and key "
	             "swapped?)");
	/* A key of another pair: said in words, each file named (the ops
	 * probe: OpenSSL's "key values mismatch", logged twice). */
	char k2[300], c2[300];
	snprintf(c2, sizeof c2, "%s/other-cert", cred);
	snprintf(k2, sizeof k2, "%s/other-key", cred);
	new_pair(c2, k2);
	snprintf(swapped, sizeof swapped, "cert = %s\nkey = %s\n", c, k2);
	snprintf(want, sizeof want, "key %s does not match the certificate of cert %s: the two come from "
	         "different pairs", k2, c);
	write_file(path, swapped);
	ck_assert_int_ne(kg_run_kriegd(good, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, want) != NULL && strstr(out, "key values mismatch") == NULL, "%s", out);
	unlink(c2);
	unlink(k2);
	write_file(path, "cert = tls-cert\nkey = tls-key\n");
	setenv("CREDENTIALS_DIRECTORY", cred, 1);
	int rc = kg_run_kriegd(good, 10000, out, sizeof out);
	unsetenv("CREDENTIALS_DIRECTORY");
	ck_assert_msg(rc == 0 && strstr(out, "cert = tls-cert\n") != NULL, "%s", out);

	unlink(c);
	unlink(k);
	rmdir(cred);
	unlink(again);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* ---- what a certificate and key are checked for ---- */

/*
 * An encrypted (pass-phrase) key: OpenSSL's default asks for the pass
 * phrase on the terminal, which froze the daemon's one loop on a reload
 * until someone typed it.  Now it is refused at once, with a message that
 * says what is wrong, by --check-config, at start, and on a reload, which
 * keeps the running certificate and serves on.
 */
START_TEST(encrypted_key_refused)
{
	char dir[] = "/tmp/kek-XXXXXX", path[256], cert[256], key[256], state[256], conf[600];
	char out[16384];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/kriegd.conf", dir);
	snprintf(cert, sizeof cert, "%s/cert.pem", dir);
	snprintf(key, sizeof key, "%s/key.pem", dir);
	snprintf(state, sizeof state, "%s/state", dir);
	new_pair_with(cert, key, -3600, 3600L * 24 * 365, "correct horse");
	snprintf(conf, sizeof conf, "cert = %s\nkey = %s\n", cert, key);
	write_file(path, conf);

	char *check[] = { "kriegd", "--check-config", "--config", path, NULL };
	long long t0 = kt_now_ms();
	ck_assert_int_ne(kg_run_kriegd(check, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "the key file is encrypted") != NULL &&
	              strstr(out, "krieg needs an unencrypted key") != NULL, "%s", out);
	ck_assert_msg(kt_now_ms() - t0 < 5000LL * kt_timeout_scale(), "asked for a pass phrase?");

	char *start[] = { "kriegd", "--config", path, "--state-dir", state, "--listen",
		          "127.0.0.1:0", NULL };
	ck_assert_int_ne(kg_run_kriegd(start, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "the key file is encrypted") != NULL, "%s", out);

	/* A reload: refused at once, the running certificate kept. */
	struct kd *d = kd_start("idle_timeout = 60s\n");
	char dconf[4200];
	conf_path(d, dconf, sizeof dconf);
	struct kc *c = kc_hello(d);
	snprintf(conf, sizeof conf, "idle_timeout = 60s\ncert = %s\nkey = %s\n", cert, key);
	write_file(dconf, conf);
	t0 = kt_now_ms();
	hup_and_wait(d, "reload failed");
	kc_ok(c, kc_req(c, "ping", NULL));
	ck_assert_msg(kt_now_ms() - t0 < 2000LL * kt_timeout_scale(), "the reload took %lld ms",
	              kt_now_ms() - t0);
	ck_assert_int_eq(kd_log_count(d, "the key file is encrypted"), 1);
	struct kc *fresh = kc_hello(d);   /* verifies against the generated certificate */
	kc_close(fresh);
	kc_close(c);
	kd_stop(d);

	unlink(cert);
	unlink(key);
	unlink(path);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/*
 * Every load names the certificate and its end, and warns when it has
 * expired, is not valid yet, or ends within 14 days: --check-config (still
 * exit 0: the operator decides), at start, and on a reload.
 */
START_TEST(certificate_validity_warned)
{
	char dir[] = "/tmp/kcv-XXXXXX", path[256], cert[256], key[256], conf[600], out[16384];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/kriegd.conf", dir);
	snprintf(cert, sizeof cert, "%s/cert.pem", dir);
	snprintf(key, sizeof key, "%s/key.pem", dir);
	snprintf(conf, sizeof conf, "cert = %s\nkey = %s\n", cert, key);
	write_file(path, conf);
	char *check[] = { "kriegd", "--check-config", "--config", path, NULL };
	const long day = 3600L * 24;

	/* Good for a year: its subject and dates, no warning. */
	new_pair_with(cert, key, -3600, 365 * day, NULL);
	ck_assert_int_eq(kg_run_kriegd(check, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "subject=\"CN=localhost\" valid from 20") != NULL &&
	              strstr(out, " until 20") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "warning:") == NULL, "%s", out);

	new_pair_with(cert, key, -2 * day, -day, NULL);
	ck_assert_int_eq(kg_run_kriegd(check, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, "warning: certificate cert=") != NULL &&
	              strstr(out, " has expired: it was valid until 20") != NULL, "%s", out);

	new_pair_with(cert, key, day, 365 * day, NULL);
	ck_assert_int_eq(kg_run_kriegd(check, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, " is not valid yet: its validity begins 20") != NULL, "%s", out);

	new_pair_with(cert, key, -3600, 3 * day, NULL);
	ck_assert_int_eq(kg_run_kriegd(check, 10000, out, sizeof out), 0);
	ck_assert_msg(strstr(out, " expires in ") != NULL && strstr(out, " day(s), at 20") != NULL,
	              "%s", out);

	/* At start and on a reload: the generated pair replaced by an
	 * expired one (a renewal that went wrong). */
	struct kd *d = kd_start(NULL);
	char dcert[4200], dkey[4200];
	snprintf(dcert, sizeof dcert, "%s/kriegd-cert.pem", kd_state_dir(d));
	snprintf(dkey, sizeof dkey, "%s/kriegd-key.pem", kd_state_dir(d));
	ck_assert(kd_log_wait(d, "valid from ", 5000));
	ck_assert_int_eq(kd_log_count(d, "has expired"), 0);
	new_pair_with(dcert, dkey, -2 * day, -day, NULL);
	hup_and_wait(d, "reloaded sha256=");
	ck_assert_int_eq(kd_log_count(d, "has expired"), 1);
	kd_restart(d);
	ck_assert_int_eq(kd_log_count(d, "has expired"), 2);
	kd_stop(d);

	unlink(cert);
	unlink(key);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* ---- socket activation ---- */

START_TEST(socket_activation)
{
	char dir[] = "/tmp/ksa-XXXXXX", state[256], log[256];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t slen = sizeof sa;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(state, sizeof state, "%s/state", dir);
	snprintf(log, sizeof log, "%s/kriegd.log", dir);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(lfd, 0);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
	ck_assert_int_eq(listen(lfd, 16), 0);
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&sa, &slen), 0);
	int port = ntohs(sa.sin_port);

	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char pidbuf[32];
		int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* As systemd passes them: from fd 3, LISTEN_PID naming the daemon. */
		if (out < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 || dup2(lfd, 3) < 0)
			_exit(127);
		snprintf(pidbuf, sizeof pidbuf, "%d", (int)getpid());
		setenv("LISTEN_PID", pidbuf, 1);
		setenv("LISTEN_FDS", "1", 1);
		execl(kg_kriegd_path(), "kriegd", "--state-dir", state, "--listen", "127.0.0.1:1",
		      (char *)NULL);
		_exit(127);
	}
	close(lfd);

	/* The passed socket accepts before kriegd even reads it; the answer
	 * (the handshake) comes once it runs. */
	char fp[FP_LEN], want[FP_LEN], cert[300];
	fp_served(port, fp);
	snprintf(cert, sizeof cert, "%s/kriegd-cert.pem", state);
	fp_of_file(cert, want);
	ck_assert_str_eq(fp, want);

	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	FILE *f = fopen(log, "r");
	char text[16384] = "";
	size_t got = fread(text, 1, sizeof text - 1, f);
	text[got] = '\0';
	fclose(f);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", text);
	ck_assert_msg(strstr(text, "listen settings ignored: 1 socket(s)") != NULL, "%s", text);
	char needle[64];
	snprintf(needle, sizeof needle, "listening on 127.0.0.1:%d", port);
	ck_assert_msg(strstr(text, needle) != NULL, "%s", text);
	ck_assert_msg(strstr(text, "127.0.0.1:1\n") == NULL, "%s", text);

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *service_suite(void)
{
	Suite *s = suite_create("service");
	TCase *tc = tcase_create("service");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, reload_certificate);
	tcase_add_test(tc, motd_in_the_greeting);
	tcase_add_test(tc, notify_ready_status_watchdog);
	tcase_add_test(tc, notify_none_without_socket);
	tcase_add_test(tc, start_lines_at_any_log_level);
	tcase_add_test(tc, notify_failure_logged_once);
	tcase_add_test(tc, check_config);
	tcase_add_test(tc, encrypted_key_refused);
	tcase_add_test(tc, certificate_validity_warned);
	tcase_add_test(tc, socket_activation);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(service_suite)
