/*
 * test_client.c — the real krieg binary against a real kriegd:
 *   - two krieg --batch processes play a game (and neither hears the
 *     other's moves);
 *   - --batch exit statuses (server error, local error, no server);
 *   - krieg driven under a pseudo-terminal: register with a password that
 *     is not echoed, accept a challenge, play, see the board and the
 *     umpire's words, place a ghost;
 *   - a server whose certificate changed is refused, naming the
 *     known_servers line to remove; a first-seen one is asked about on a
 *     terminal (yes pins it, no stops), pinned silently with --trust-new;
 *   - the server restarts mid-game: the interactive client reconnects,
 *     resumes and plays on, a --batch one exits non-zero;
 *   - history, record and pgn read a finished game back;
 *   - a bad network, through a relay of the test's own: a dead path (no
 *     FIN, no RST) is noticed, a reset is told as one, and chat said while
 *     the connection was down is shown after reconnecting.
 * $KRIEG names the client (set by `make integration`); else
 * build/asan/bin/krieg, else bin/krieg.  Likewise $KRIEGD for the cert test.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "harness.h"
#include "harness_client.h"

#define RUN_TIMEOUT_MS 20000

/* A private scratch directory per test, removed at teardown. */
static struct kcl_scratch sc;

static void setup(void)
{
	kcl_scratch_make(&sc, "krieg-client");
}

static void teardown(void)
{
	kcl_scratch_remove(&sc);
}

/* Run krieg --batch to completion with `input` on stdin. */
static int run_batch(int port, const char *input, struct kcl_proc *p)
{
	char addr[64];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	char *argv[] = { (char *)kcl_krieg_path(), "--batch", addr, NULL };
	kcl_proc_start(p, argv, sc.known, false);
	kcl_proc_write(p, input);
	return kcl_proc_finish(p, RUN_TIMEOUT_MS);
}

/* Regression (the own-changes probe): krieg without --batch, its commands
 * piped in, ended at the end of its input, before the answers to them
 * came: nothing of them was printed.  It waits for what it is owed. */
START_TEST(piped_input_waits_for_its_answers)
{
	struct kd *d = kd_start(NULL);
	char addr[64];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", kd_port(d));
	char *argv[] = { (char *)kcl_krieg_path(), "--trust-new", "--ascii", addr, NULL };
	struct kcl_proc p;
	kcl_proc_start(&p, argv, sc.known, false);
	kcl_proc_write(&p, "guest\nwho\n");
	int rc = kcl_proc_finish(&p, RUN_TIMEOUT_MS);
	ck_assert_msg(rc == 0, "exit %d\nstdout:\n%s\nstderr:\n%s", rc, p.obuf, p.ebuf);
	ck_assert_msg(strstr(p.obuf, "Logged in as guest-") != NULL, "%s", p.obuf);
	ck_assert_msg(strstr(p.obuf, "1 online:") != NULL, "no answer to who:\n%s", p.obuf);
	kcl_proc_free(&p);
	kd_stop(d);
}
END_TEST

/* ---- batch ---------------------------------------------------------------- */

START_TEST(batch_game_between_two_clients)
{
	struct kd *d = kd_start(NULL);
	char addr[64];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", kd_port(d));
	char *argv[] = { (char *)kcl_krieg_path(), "--batch", addr, NULL };
	struct kcl_proc a, b;

	kcl_proc_start(&b, argv, sc.known, false);
	kcl_proc_write(&b, "register bob_b password123\n"
	               "wait challenge\n"
	               "accept\n"
	               "wait game_start\n"
	               "wait moved\n"
	               "d5\n"
	               "wait moved\n"
	               "wait capture\n"
	               "wait game_over\n");
	ck_assert_msg(kcl_proc_wait_out(&b, "\"user\":\"bob_b\"", RUN_TIMEOUT_MS), "bob: %s", b.ebuf);

	kcl_proc_start(&a, argv, sc.known, false);
	kcl_proc_write(&a, "register alice_b password123\n"
	               "challenge bob_b icc white\n"
	               "wait game_start\n"
	               "e4\n"
	               "wait moved\n"
	               "exd5\n"
	               "resign\n"
	               "wait game_over\n");
	int ra = kcl_proc_finish(&a, RUN_TIMEOUT_MS);
	int rb = kcl_proc_finish(&b, RUN_TIMEOUT_MS);
	ck_assert_msg(ra == 0, "alice exit %d\nstdout:\n%s\nstderr:\n%s", ra, a.obuf, a.ebuf);
	ck_assert_msg(rb == 0, "bob exit %d\nstdout:\n%s\nstderr:\n%s", rb, b.obuf, b.ebuf);

	/* stdout is the protocol, line by line, verbatim */
	ck_assert(strncmp(a.obuf, "{\"event\":\"greeting\"", 19) == 0);
	ck_assert_ptr_nonnull(strstr(a.obuf, "\"event\":\"game_start\""));
	ck_assert_ptr_nonnull(strstr(a.obuf, "\"san\":\"exd5\""));
	ck_assert_ptr_nonnull(strstr(b.obuf, "\"event\":\"capture\""));
	ck_assert_ptr_nonnull(strstr(b.obuf, "\"square\":\"d5\""));
	ck_assert_ptr_nonnull(strstr(b.obuf, "\"reason\":\"resignation\""));
	/* neither player received the other's move */
	ck_assert_ptr_null(strstr(b.obuf, "e2e4"));
	ck_assert_ptr_null(strstr(b.obuf, "exd5"));
	ck_assert_ptr_null(strstr(a.obuf, "d7d5"));
	kcl_proc_free(&a);
	kcl_proc_free(&b);
	kd_stop(d);
}
END_TEST

/* --guest logs in before the first line is read (it was ignored under
 * --batch: the script's first request was refused, not_logged_in); --user,
 * whose password is asked for, is refused with the way a script logs in. */
START_TEST(batch_login_options)
{
	struct kd *d = kd_start(NULL);
	char addr[64];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", kd_port(d));
	struct kcl_proc p;
	char *guest[] = { (char *)kcl_krieg_path(), "--batch", "--guest", addr, NULL };
	kcl_proc_start(&p, guest, sc.known, false);
	kcl_proc_write(&p, "seeks\nwho\n");
	int rc = kcl_proc_finish(&p, RUN_TIMEOUT_MS);
	ck_assert_msg(rc == 0, "exit %d\nstdout:\n%s\nstderr:\n%s", rc, p.obuf, p.ebuf);
	ck_assert_ptr_nonnull(strstr(p.obuf, "\"user\":\"guest-"));
	ck_assert_ptr_nonnull(strstr(p.obuf, "\"offers\""));
	ck_assert_ptr_null(strstr(p.obuf, "not_logged_in"));
	kcl_proc_free(&p);

	char *user[] = { (char *)kcl_krieg_path(), "--batch", "--user", "alice", addr, NULL };
	kcl_proc_start(&p, user, sc.known, false);
	rc = kcl_proc_finish(&p, RUN_TIMEOUT_MS);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(p.ebuf, "send \"login alice PASSWORD\" as the first line") != NULL, "%s", p.ebuf);
	kcl_proc_free(&p);

	/* Regression (the help probe): a word past the usage was taken for the
	 * host ("watch 1 2" reached a host "2", "help login" one "login");
	 * "help WORD" is answered without connecting (the newcomer probe), a
	 * word it does not know refused */
	char *extra[][6] = {
		{ (char *)kcl_krieg_path(), addr, "watch", "1", "2", NULL },
		{ (char *)kcl_krieg_path(), "nosuchhost", addr, NULL },
		{ (char *)kcl_krieg_path(), "help", "login", "alice", NULL },
		{ (char *)kcl_krieg_path(), "help", "zzzz", NULL },
		{ (char *)kcl_krieg_path(), "--bogus", addr, NULL },
	};
	static const char *const said[] = { "unexpected \"2\"", "unexpected \"", "\"help\" takes one word at most",
	                                     "no command or rule set is named \"zzzz\"", "unknown option \"--bogus\"" };
	for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
		kcl_proc_start(&p, extra[i], sc.known, false);
		rc = kcl_proc_finish(&p, RUN_TIMEOUT_MS);
		ck_assert_msg(rc == 2 && strstr(p.ebuf, said[i]) != NULL, "%zu: exit %d: %s", i, rc, p.ebuf);
		kcl_proc_free(&p);
	}
	char *help[][4] = {
		{ (char *)kcl_krieg_path(), "help", "rules", NULL },
		{ (char *)kcl_krieg_path(), "help", "login", NULL },
	};
	static const char *const shown[] = { "\n  berkeley_any (Berkeley with \"any?\"", "  login USER " };
	for (size_t i = 0; i < sizeof help / sizeof help[0]; i++) {
		kcl_proc_start(&p, help[i], sc.known, false);
		rc = kcl_proc_finish(&p, RUN_TIMEOUT_MS);
		ck_assert_msg(rc == 0 && strstr(p.obuf, shown[i]) != NULL, "%zu: exit %d: %s", i, rc, p.obuf);
		kcl_proc_free(&p);
	}
	kd_stop(d);
}
END_TEST

START_TEST(batch_exit_status)
{
	struct kd *d = kd_start(NULL);
	struct kcl_proc p;

	/* a server error response: printed on stdout, then a non-zero exit */
	ck_assert_int_ne(run_batch(kd_port(d), "login nobody_here wrongpassword\nwho\n", &p), 0);
	ck_assert_ptr_nonnull(strstr(p.obuf, "\"ok\":false"));
	ck_assert_ptr_nonnull(strstr(p.obuf, "\"code\":\"auth_failed\""));
	/* and a one-line reason on stderr, not a silent exit */
	ck_assert_msg(strstr(p.ebuf, "krieg: login refused: ") && strstr(p.ebuf, "(auth_failed)\n"),
	              "stderr: %s", p.ebuf);
	kcl_proc_free(&p);

	/* a local error (a move with no game) */
	ck_assert_int_ne(run_batch(kd_port(d), "guest\ne4\n", &p), 0);
	ck_assert_ptr_nonnull(strstr(p.ebuf, "no current game"));
	kcl_proc_free(&p);

	/* a wait that times out */
	ck_assert_int_ne(run_batch(kd_port(d), "guest\nwait game_start 0.3\n", &p), 0);
	ck_assert_ptr_nonnull(strstr(p.ebuf, "timed out"));
	kcl_proc_free(&p);

	/* all good: zero */
	ck_assert_int_eq(run_batch(kd_port(d), "guest\nwho\nseeks\n", &p), 0);
	ck_assert_ptr_nonnull(strstr(p.obuf, "\"users\""));
	kcl_proc_free(&p);

	/* no server there at all */
	int port = kd_port(d);
	kd_stop(d);
	ck_assert_int_eq(run_batch(port, "who\n", &p), 1);
	ck_assert_ptr_nonnull(strstr(p.ebuf, "cannot connect"));
	/* and what to check next (the newcomer probe) */
	ck_assert_msg(strstr(p.ebuf, "\nkrieg: is kriegd running there, on that port (krieg HOST:PORT)? On this "
	                             "machine \"make run\""), "%s", p.ebuf);
	kcl_proc_free(&p);
}
END_TEST

/* ---- under a pseudo-terminal ---------------------------------------------------- */

struct tty {
	pid_t pid;
	int fd;
	char buf[KCL_OUT_MAX + 1];
	size_t len;
	size_t mark;   /* expect() searches from here */
};

static void tty_pump(struct tty *t, int ms);

/* A child under a new pseudo-terminal of rows x cols, in t: 0 in the
 * child (its environment set for krieg), the child's pid in the parent. */
static pid_t tty_fork(struct tty *t, int rows, int cols)
{
	memset(t, 0, sizeof *t);
	struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
	t->pid = forkpty(&t->fd, NULL, NULL, &ws);
	ck_assert_int_ge(t->pid, 0);
	if (t->pid == 0) {
		setenv("KRIEG_KNOWN_SERVERS", sc.known, 1);
		unsetenv("KRIEG_TRUST_NEW");
		unsetenv("INSIDE_EMACS");   /* would make krieg --plain */
		setenv("TERM", "xterm", 1);
		setenv("NO_COLOR", "1", 1);
	}
	return t->pid;
}

/* krieg --ascii [extra] 127.0.0.1:port under a pseudo-terminal of rows x cols. */
static void tty_start_sized(struct tty *t, int port, const char *extra, int rows, int cols)
{
	char addr[64];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	if (tty_fork(t, rows, cols) == 0) {
		if (extra)
			execl(kcl_krieg_path(), "krieg", "--ascii", extra, addr, (char *)NULL);
		else
			execl(kcl_krieg_path(), "krieg", "--ascii", addr, (char *)NULL);
		_exit(127);
	}
}

static void tty_start_with(struct tty *t, int port, const char *extra)
{
	tty_start_sized(t, port, extra, 50, 120);
}

static void tty_start(struct tty *t, int port)
{
	tty_start_with(t, port, NULL);
}

/* Wait for the process to end; its exit status, or -1 on timeout (then killed). */
static int tty_exit(struct tty *t, int ms)
{
	int st = 0;
	long end = kcl_now_ms() + ms;
	pid_t r;
	while ((r = waitpid(t->pid, &st, WNOHANG)) == 0 && kcl_now_ms() < end)
		tty_pump(t, 50);
	if (r == 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, &st, 0);
		return -1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void tty_pump(struct tty *t, int ms)
{
	struct pollfd f = { .fd = t->fd, .events = POLLIN };
	if (poll(&f, 1, ms) <= 0)
		return;
	ssize_t r = read(t->fd, t->buf + t->len, KCL_OUT_MAX - t->len);
	if (r > 0) {
		t->len += (size_t)r;
		t->buf[t->len] = '\0';
	}
}

/* Wait for needle in the output after the mark; move the mark past it. */
static bool tty_expect_ms(struct tty *t, const char *needle, int ms)
{
	long end = kcl_now_ms() + ms;
	for (;;) {
		char *hit = strstr(t->buf + t->mark, needle);
		if (hit) {
			t->mark = (size_t)(hit - t->buf) + strlen(needle);
			return true;
		}
		if (kcl_now_ms() > end)
			return false;
		tty_pump(t, 100);
	}
}

static bool tty_expect(struct tty *t, const char *needle)
{
	return tty_expect_ms(t, needle, KC_TIMEOUT_MS);
}

static void tty_type(struct tty *t, const char *line)
{
	char buf[256];
	int n = snprintf(buf, sizeof buf, "%s\r", line);
	ck_assert_int_eq(write(t->fd, buf, (size_t)n), n);
}

/*
 * Did c receive needle anywhere but in a session token?  A resume token is
 * 43 random base64url characters, so a bare kc_saw(c, "f6") fails now and
 * then on a login reply; the token is taken out of each line before looking.
 */
static bool saw_in_events(const struct kc *c, const char *needle)
{
	for (size_t i = 0; i < kc_nlines(c); i++) {
		json_t *j = json_loads(kc_line(c, i), 0, NULL);
		ck_assert_ptr_nonnull(j);
		json_object_del(j, "token");
		char *text = json_dumps(j, JSON_COMPACT);
		bool hit = strstr(text, needle) != NULL;
		free(text);
		json_decref(j);
		if (hit)
			return true;
	}
	return false;
}

#define EXPECT(t, s) ck_assert_msg(tty_expect(t, s), "never saw \"%s\" in:\n%s", s, (t)->buf + (t)->mark)

START_TEST(interactive_under_a_pty)
{
	struct kd *d = kd_start(NULL);
	struct tty *t = calloc(1, sizeof *t);
	ck_assert_ptr_nonnull(t);
	tty_start(t, kd_port(d));

	/* first use on a terminal: asked, as ssh asks; yes pins it */
	EXPECT(t, "can't be established");
	EXPECT(t, "SHA-256 fingerprint is ");
	EXPECT(t, "Are you sure you want to continue connecting (yes/no)? ");
	tty_type(t, "yes");
	EXPECT(t, "permanently added 127.0.0.1:");
	struct stat kst;
	ck_assert_int_eq(stat(sc.known, &kst), 0);
	ck_assert_int_gt(kst.st_size, 64);
	EXPECT(t, "krieg> ");
	/* a password on the line is refused at a terminal (it would stay in the history) */
	tty_type(t, "register alice_t sesame-sesame-42");
	EXPECT(t, "not with the password on the line");
	/* asked twice, never echoed; two that differ send nothing */
	tty_type(t, "register alice_t");
	EXPECT(t, "Password: ");
	size_t before = t->len;
	tty_type(t, "sesame-sesame-42");
	EXPECT(t, "Password again: ");
	tty_type(t, "sesame-sesame-43");
	EXPECT(t, "the two passwords differ; nothing was sent");
	tty_type(t, "register alice_t");
	EXPECT(t, "Password: ");
	tty_type(t, "sesame-sesame-42");
	EXPECT(t, "Password again: ");
	tty_type(t, "sesame-sesame-42");
	EXPECT(t, "Logged in as alice_t");
	ck_assert_msg(strstr(t->buf + before, "sesame") == NULL, "the password was echoed");

	/* Bob challenges through the plain protocol client */
	struct kc *bob = kc_hello(d);
	kc_ok(bob, kc_req(bob, "register", "{s:s, s:s}", "user", "bob_t", "password", "password123"));
	kc_ok(bob, kc_req(bob, "challenge", "{s:s, s:s, s:s, s:b, s:{s:i, s:i}}", "user", "alice_t",
	                  "rules", "icc", "color", "black", "rated", 0, "time", "base", 300, "inc", 0));
	EXPECT(t, "bob_t (1500?) challenges you: icc, 5+0, unrated, you play White.");
	tty_type(t, "accept");
	EXPECT(t, "rules icc, 5+0; you play White");   /* the game's line says its time control */
	EXPECT(t, " 1  R  N  B  Q  K  B  N  R  1");
	kc_event(bob, "game_start");
	/* White's clock runs and the prompt shows it, with nobody typing */
	EXPECT(t, "[#");
	EXPECT(t, " White 4:59 | Black 5:00 | your move] > ");

	tty_type(t, "e4");
	EXPECT(t, "You played e4");
	EXPECT(t, " 4  .  .  .  .  P  .  .  .  4");
	kc_event(bob, "moved");
	json_t *ev = kc_event(bob, "pawn_tries");
	long long game = json_integer_value(json_object_get(ev, "game"));
	kc_ok(bob, kc_req(bob, "move", "{s:I, s:s}", "game", (json_int_t)game, "move", "d5"));
	EXPECT(t, "Black has moved");
	EXPECT(t, "You have 1 pawn try");

	/* a ghost: drawn on the board, never sent */
	tty_type(t, "ghost place Nf6");
	EXPECT(t, " 6  .  .  .  .  . [n] .  .  6");
	tty_type(t, "exd5");
	EXPECT(t, "White captured a pawn on d5");
	kc_event(bob, "capture");
	tty_type(t, "board");
	EXPECT(t, " 5  .  .  .  P  .  .  .  .  5");
	/* the list says each game's time control, as the server's summary gives it */
	tty_type(t, "games");
	EXPECT(t, "you are white, black to move; 5+0");
	/* a rule set explained (help english printed nothing about it) */
	tty_type(t, "help english");
	EXPECT(t, "Rule set english (the Gambit Club, London, 1933):");
	/* Black never heard of White's moves or ghosts */
	ck_assert(!saw_in_events(bob, "e2e4"));
	ck_assert(!saw_in_events(bob, "exd5"));
	ck_assert(!saw_in_events(bob, "f6"));

	/* resign asks first; anything else in between forgets the question */
	tty_type(t, "resign");
	EXPECT(t, "Resign game ");
	EXPECT(t, "Type \"resign\" again to confirm");
	tty_type(t, "board");
	tty_type(t, "resign");
	EXPECT(t, "Type \"resign\" again to confirm");
	tty_type(t, "resign");
	EXPECT(t, "White resigned");

	/* the finished game read back: the list, the umpire's record in words, the PGN to a file */
	char cmd[512], pgnpath[256];
	tty_type(t, "history");
	snprintf(cmd, sizeof cmd, "game %lld: alice_t (White) vs bob_t (Black), icc", game);
	EXPECT(t, cmd);
	EXPECT(t, "finished 0-1 by resignation");
	snprintf(cmd, sizeof cmd, "record %lld umpire", game);
	tty_type(t, cmd);
	EXPECT(t, "as the umpire heard it:");
	/* numbered as chess does (issue 10: Black's moves were one too high) */
	EXPECT(t, "1. White played e4");
	EXPECT(t, "1... Black played d5");
	EXPECT(t, "2. White played exd5");
	snprintf(pgnpath, sizeof pgnpath, "%s/game.pgn", sc.dir);
	snprintf(cmd, sizeof cmd, "pgn %lld > %s", game, pgnpath);
	tty_type(t, cmd);
	EXPECT(t, "Wrote game ");
	FILE *f = fopen(pgnpath, "r");
	ck_assert_ptr_nonnull(f);
	char pgn[8192];
	size_t pn = fread(pgn, 1, sizeof pgn - 1, f);
	pgn[pn] = '\0';
	fclose(f);
	ck_assert_msg(strstr(pgn, "[White \"alice_t\"]") && strstr(pgn, "[Black \"bob_t\"]"), "%s", pgn);
	ck_assert_msg(strstr(pgn, "e4") && strstr(pgn, "d5") && strstr(pgn, "0-1"), "%s", pgn);

	tty_type(t, "quit");
	ck_assert_int_eq(tty_exit(t, KC_TIMEOUT_MS), 0);
	close(t->fd);
	free(t);
	kc_close(bob);
	kd_stop(d);
}
END_TEST

/* The terminal's user, a guest, challenges a new account `name` (on a
 * connection of the test's own, *opponent) to a 5-minute icc game as
 * White, accepted; its number. */
static json_int_t tty_game_as_white(struct tty *t, struct kd *d, const char *name,
                                    struct kc **opponent)
{
	char line[128];
	EXPECT(t, "krieg> ");
	struct kc *bob = kc_hello(d);
	kc_ok(bob, kc_req(bob, "register", "{s:s, s:s}", "user", name, "password", "password123"));
	tty_type(t, "guest");
	EXPECT(t, "Logged in as guest-");
	snprintf(line, sizeof line, "challenge %s icc 5 white", name);
	tty_type(t, line);
	json_t *ch = kc_event(bob, "challenge");
	kc_ok(bob, kc_req(bob, "accept", "{s:I}", "offer", json_integer_value(json_object_get(ch, "offer"))));
	json_t *st = kc_event(bob, "game_start");
	EXPECT(t, "you play White");
	*opponent = bob;
	return json_integer_value(json_object_get(st, "game"));
}

/* ---- a changed certificate ---------------------------------------------------------- */

/*
 * Chat and presence as a person at a terminal sees them (issue 10): the
 * opponent's words quoted in their name, never as the umpire's; say and
 * tell reach the other side; the opponent's leaving shows its deadline in
 * the prompt, and their return is told.
 */
START_TEST(chat_and_presence_under_a_pty)
{
	struct kd *d = kd_start(NULL);
	struct tty *t = calloc(1, sizeof *t);
	ck_assert_ptr_nonnull(t);
	tty_start_with(t, kd_port(d), "--trust-new");
	struct kc *bob;
	json_int_t game = tty_game_as_white(t, d, "bob_c", &bob);

	kc_ok(bob, kc_req(bob, "say", "{s:I, s:s}", "game", game, "text", "good  luck"));
	EXPECT(t, ": bob_c (Black) says: \"good luck\"");
	json_t *e = kc_event(bob, "chat");   /* his own, echoed */
	ck_assert_str_eq(json_string_value(json_object_get(e, "text")), "good luck");
	tty_type(t, "say thanks, you too");
	e = kc_event(bob, "chat");
	ck_assert_str_eq(json_string_value(json_object_get(e, "text")), "thanks, you too");
	ck_assert_str_eq(json_string_value(json_object_get(e, "color")), "white");
	EXPECT(t, ": You say: \"thanks, you too\"");
	tty_type(t, "tell bob_c see you at eight");
	e = kc_event(bob, "tell");
	ck_assert_str_eq(json_string_value(json_object_get(e, "text")), "see you at eight");
	EXPECT(t, "Told bob_c.");   /* whom (a probe: "Told." named nobody) */

	/* Bob's only connection drops: the grace (60 s) counts down in Alice's prompt */
	kc_close(bob);
	EXPECT(t, ": Black (bob_c) has left; the game is lost by abandonment unless they are back within ");
	EXPECT(t, "| your move | Black away 0:5");
	bob = kc_hello(d);
	kc_ok(bob, kc_req(bob, "login", "{s:s, s:s}", "user", "bob_c", "password", "password123"));
	EXPECT(t, ": Black (bob_c) is back.");
	EXPECT(t, "| your move] > ");

	tty_type(t, "quit");
	ck_assert_int_eq(tty_exit(t, RUN_TIMEOUT_MS), 0);
	free(t);
	kc_close(bob);
	kd_stop(d);
}
END_TEST

/*
 * A screen, as a terminal shows what krieg wrote to it: enough of xterm
 * (TERM=xterm, as tty_start sets) for what libedit and krieg send, to
 * read what stays on the screen once the bytes are all in.  Text wraps at
 * the last column as xterm's does (the wrap waits for the next character).
 */
#define SCREEN_ROWS_MAX 60
#define SCREEN_COLS_MAX 200

struct screen {
	int rows, cols, row, col;
	bool wrap;   /* the last column was written: the next character starts the next row */
	char cell[SCREEN_ROWS_MAX][SCREEN_COLS_MAX + 1];
};

static void screen_clear(struct screen *s, int row, int from, int to)
{
	for (int c = from; c < to && c < s->cols; c++)
		s->cell[row][c] = ' ';
}

static void screen_lf(struct screen *s)
{
	if (s->row + 1 < s->rows) {
		s->row++;
		return;
	}
	memmove(s->cell[0], s->cell[1], (size_t)(s->rows - 1) * sizeof s->cell[0]);
	screen_clear(s, s->rows - 1, 0, s->cols);
}

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* A CSI sequence's parameters from p (after "\033["); returns the byte after its final one. */
static const char *screen_csi(struct screen *s, const char *p, const char *end)
{
	int arg[8] = { 0 }, n = 0;
	while (p < end && (*p == '?' || *p == '>'))
		p++;
	for (; p < end && ((*p >= '0' && *p <= '9') || *p == ';'); p++) {
		if (*p == ';')
			n = n < 7 ? n + 1 : n;
		else
			arg[n] = arg[n] * 10 + (*p - '0');
	}
	if (p >= end)
		return p;
	int k = arg[0] ? arg[0] : 1;
	s->wrap = false;
	switch (*p) {
	case 'A': s->row = clamp(s->row - k, 0, s->rows - 1); break;
	case 'B': s->row = clamp(s->row + k, 0, s->rows - 1); break;
	case 'C': s->col = clamp(s->col + k, 0, s->cols - 1); break;
	case 'D': s->col = clamp(s->col - k, 0, s->cols - 1); break;
	case 'G': s->col = clamp(k - 1, 0, s->cols - 1); break;
	case 'H': case 'f':
		s->row = clamp(k - 1, 0, s->rows - 1);
		s->col = clamp((arg[1] ? arg[1] : 1) - 1, 0, s->cols - 1);
		break;
	case 'J':
		if (arg[0] == 0) {
			screen_clear(s, s->row, s->col, s->cols);
			for (int r = s->row + 1; r < s->rows; r++)
				screen_clear(s, r, 0, s->cols);
		} else {
			for (int r = 0; r < s->rows; r++)
				screen_clear(s, r, 0, s->cols);
		}
		break;
	case 'K':
		if (arg[0] == 0)
			screen_clear(s, s->row, s->col, s->cols);
		else if (arg[0] == 1)
			screen_clear(s, s->row, 0, s->col + 1);
		else
			screen_clear(s, s->row, 0, s->cols);
		break;
	default:   /* attributes, modes: nothing on the screen moves */
		break;
	}
	return p + 1;
}

static void screen_play(struct screen *s, int rows, int cols, const char *p, size_t len)
{
	const char *end = p + len;
	memset(s, 0, sizeof *s);
	s->rows = rows;
	s->cols = cols;
	for (int r = 0; r < rows; r++)
		screen_clear(s, r, 0, cols);
	while (p < end) {
		unsigned char ch = (unsigned char)*p++;
		if (ch == '\033') {
			if (p < end && *p == '[')
				p = screen_csi(s, p + 1, end);
			else if (p < end && *p == ']')   /* OSC: to BEL */
				while (p < end && *p++ != '\a')
					;
			else if (p < end && (*p == '(' || *p == ')'))
				p += 2;
			else
				p++;
		} else if (ch == '\r') {
			s->col = 0;
			s->wrap = false;
		} else if (ch == '\n') {
			screen_lf(s);
			s->wrap = false;
		} else if (ch == '\b') {
			s->col = s->col > 0 ? s->col - 1 : 0;
			s->wrap = false;
		} else if (ch == '\t') {
			s->col = clamp((s->col / 8 + 1) * 8, 0, s->cols - 1);
		} else if (ch >= 0x20 && (ch < 0x80 || ch >= 0xc0)) {   /* a character (UTF-8: its first byte) */
			if (s->wrap) {
				s->col = 0;
				screen_lf(s);
				s->wrap = false;
			}
			s->cell[s->row][s->col] = ch < 0x80 ? (char)ch : '?';
			if (s->col == s->cols - 1)
				s->wrap = true;
			else
				s->col++;
		}
	}
}

/* How many rows of the screen hold needle. */
static int screen_count(const struct screen *s, const char *needle)
{
	int n = 0;
	for (int r = 0; r < s->rows; r++)
		n += strstr(s->cell[r], needle) != NULL;
	return n;
}

static void screen_dump(const struct screen *s, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (int r = 0; r < s->rows && used < len; r++) {
		int w = snprintf(out + used, len - used, "|%s|\n", s->cell[r]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* The pty's window is rows x cols from now on (the kernel tells krieg by SIGWINCH). */
static void tty_resize(struct tty *t, int rows, int cols)
{
	struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
	ck_assert_int_eq(ioctl(t->fd, TIOCSWINSZ, &ws), 0);
	tty_pump(t, 50);
}

/* Kill what runs under t and free it, close the opponent's connection
 * (if any), stop the daemon. */
static void tty_game_end(struct tty *t, struct kc *opponent, struct kd *d)
{
	kill(t->pid, SIGKILL);
	waitpid(t->pid, NULL, 0);
	if (opponent != NULL)
		kc_close(opponent);
	free(t);
	kd_stop(d);
}

/* ---- a person at a terminal whose output is not drawn on one ------------------------- */

/* What krieg wrote to out (a file) from *mark on: wait for needle, move *mark past it. */
static bool file_expect(const char *out, size_t *mark, const char *needle, char *buf, size_t len)
{
	long end = kcl_now_ms() + KC_TIMEOUT_MS;
	for (;;) {
		FILE *f = fopen(out, "r");
		size_t n = 0;
		if (f) {
			n = fread(buf, 1, len - 1, f);
			fclose(f);
		}
		buf[n] = '\0';
		char *hit = *mark <= n ? strstr(buf + *mark, needle) : NULL;
		if (hit) {
			*mark = (size_t)(hit - buf) + strlen(needle);
			return true;
		}
		if (kcl_now_ms() > end)
			return false;
		poll(NULL, 0, 50);
	}
}

#define FEXPECT(out, mark, s, buf) \
	ck_assert_msg(file_expect(out, mark, s, buf, KCL_OUT_MAX), "never saw \"%s\" in:\n%s", s, (buf) + *(mark))

/*
 * A blind player's probe: `krieg | tee log` (typed at a terminal, the
 * output into a pipe: no redraws for a screen reader to read again) resigned
 * at the first "resign", with no question, although someone types at a
 * terminal.  Whether krieg asks depends on stdin, not on what it draws on.
 */
START_TEST(resign_asks_with_stdout_not_a_terminal)
{
	struct kd *d = kd_start(NULL);
	struct tty *t = calloc(1, sizeof *t);
	char *buf = calloc(1, KCL_OUT_MAX);
	char out[256], addr[64], line[128];
	size_t mark = 0;
	ck_assert(t && buf);
	snprintf(out, sizeof out, "%s/stdout.log", sc.dir);
	snprintf(addr, sizeof addr, "127.0.0.1:%d", kd_port(d));
	if (tty_fork(t, 50, 120) == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(126);
		execl(kcl_krieg_path(), "krieg", "--ascii", "--trust-new", addr, (char *)NULL);
		_exit(127);
	}
	struct kc *bob = kc_hello(d);
	kc_ok(bob, kc_req(bob, "register", "{s:s, s:s}", "user", "bob_p", "password", "password123"));
	FEXPECT(out, &mark, "Connected to", buf);
	tty_type(t, "guest");
	FEXPECT(out, &mark, "Logged in as guest-", buf);
	snprintf(line, sizeof line, "challenge bob_p icc 5 white");
	tty_type(t, line);
	json_t *ch = kc_event(bob, "challenge");
	kc_ok(bob, kc_req(bob, "accept", "{s:I}", "offer", json_integer_value(json_object_get(ch, "offer"))));
	kc_event(bob, "game_start");
	FEXPECT(out, &mark, "you play White", buf);
	tty_type(t, "resign");
	FEXPECT(out, &mark, "Type \"resign\" again to confirm", buf);
	ck_assert_msg(strstr(buf, "resigned") == NULL, "resigned at once:\n%s", buf);
	tty_type(t, "resign");
	FEXPECT(out, &mark, "White resigned", buf);
	kc_event(bob, "game_over");
	free(buf);
	tty_game_end(t, bob, d);
}
END_TEST

/* How many times needle occurs in hay. */
static int count_of(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/*
 * A blind player's probe: in a timed game the prompt, both clocks in it,
 * was drawn again every second with the half-typed line ("\r\033[J[#7
 * White 4:57 | ...] > Nf"), read out again and again by a screen reader,
 * and nothing turned it off.  --plain: no escape sequence at all, no
 * clock ticking, the prompt printed once when krieg waits after output,
 * the board only when asked for.
 */
START_TEST(plain_mode_writes_no_redraws)
{
	struct kd *d = kd_start(NULL);
	struct tty *t = calloc(1, sizeof *t);
	char addr[64];
	ck_assert_ptr_nonnull(t);
	snprintf(addr, sizeof addr, "127.0.0.1:%d", kd_port(d));
	/* --plain, and the terminals that take no escape sequences: TERM=dumb, Emacs's shell */
	if (tty_fork(t, 50, 120) == 0) {
		if (_i == 1)
			setenv("TERM", "dumb", 1);
		if (_i == 2)
			setenv("INSIDE_EMACS", "29.1,comint", 1);
		execl(kcl_krieg_path(), "krieg", _i == 0 ? "--plain" : "--ascii", "--trust-new", addr, (char *)NULL);
		_exit(127);
	}
	struct kc *bob;
	char bobname[16];
	snprintf(bobname, sizeof bobname, "bob_pl%d", _i);
	json_int_t game = tty_game_as_white(t, d, bobname, &bob);
	EXPECT(t, ": your move");
	EXPECT(t, "White | your move] > ");
	/* a few seconds of White's clock running, nobody typing: nothing written */
	size_t from = t->len;
	for (int i = 0; i < 35; i++)
		tty_pump(t, 100);
	ck_assert_msg(t->len == from, "written while nobody typed: \"%s\"", t->buf + from);
	/* the clocks, asked: one prompt after the answer */
	tty_type(t, "time");
	char said[64];
	snprintf(said, sizeof said, "#%lld: White 4:5", (long long)game);
	EXPECT(t, said);
	from = t->mark;
	tty_pump(t, 1500);
	ck_assert_msg(count_of(t->buf + from, "] > ") == 1, "not one prompt: \"%s\"", t->buf + from);
	/* a move: words, and no board after it */
	tty_type(t, "e4");
	EXPECT(t, "You played e4");
	kc_event(bob, "moved");
	kc_ok(bob, kc_req(bob, "move", "{s:I, s:s}", "game", game, "move", "d5"));
	EXPECT(t, "Black has moved");
	EXPECT(t, "| your move] > ");
	tty_pump(t, 500);
	ck_assert_msg(strstr(t->buf, " 1  R  N  B  Q  K  B  N  R  1") == NULL, "a board unasked: %s", t->buf);
	tty_type(t, "board");
	EXPECT(t, " 4  .  .  .  .  P  .  .  .  4");
	ck_assert_msg(memchr(t->buf, '\033', t->len) == NULL, "an escape sequence: %s", t->buf);
	tty_game_end(t, bob, d);
}
END_TEST

/*
 * Regression: libedit's own SIGWINCH handler resizes its buffers inside
 * the handler; a resize arriving while krieg was in malloc (a line from
 * the server parsed, a redraw) corrupted the heap and killed it ("free():
 * invalid next size").  Hundreds of resizes while the opponent talks: the
 * client must still answer.
 */
START_TEST(resized_while_busy)
{
	setenv("KRIEGD_CHAT_WINDOW_MS", "1", 1);
	struct kd *d = kd_start("rate_limit = 100000\nrate_burst = 100000\n");
	unsetenv("KRIEGD_CHAT_WINDOW_MS");
	struct tty *t = calloc(1, sizeof *t);
	ck_assert_ptr_nonnull(t);
	tty_start_sized(t, kd_port(d), "--trust-new", 30, 100);
	struct kc *bob;
	json_int_t game = tty_game_as_white(t, d, "bob_w", &bob);
	EXPECT(t, "| your move] > ");
	ck_assert_int_eq(write(t->fd, "say still", 9), 9);   /* half typed */
	for (int i = 0; i < 600; i++) {
		if (i % 10 == 0)   /* lines for the client to parse and print meanwhile */
			kc_req(bob, "say", "{s:I, s:s}", "game", game, "text", "a word from bob");
		struct winsize ws = { .ws_row = 30, .ws_col = (unsigned short)(40 + i % 60) };
		ck_assert_int_eq(ioctl(t->fd, TIOCSWINSZ, &ws), 0);
		if (i % 10 == 0)
			tty_pump(t, 1);
	}
	tty_resize(t, 30, 100);
	tty_pump(t, 500);
	ck_assert_int_eq(write(t->fd, " here\r", 6), 6);
	const char *said = NULL;
	for (int i = 0; i < 200 && (said == NULL || strcmp(said, "still here") != 0); i++)
		said = json_string_value(json_object_get(kc_event(bob, "chat"), "text"));   /* bob's own first */
	ck_assert_str_eq(said, "still here");
	tty_game_end(t, bob, d);
}
END_TEST

/*
 * Regression (the own-changes probe): libedit follows SIGWINCH once an
 * el_gets(), so a window dragged narrower and back (several resizes while
 * one line was typed) left it at a width the window no longer had, and
 * each clock tick's redraw moved up rows the line did not have, erasing
 * the board above the prompt a row a second.  Back at 100 columns the
 * prompt and "say short" fit in one row: no redraw may go up a row.
 */
START_TEST(resized_twice_while_typing)
{
	struct kd *d = kd_start(NULL);
	struct tty *t = calloc(1, sizeof *t);
	ck_assert_ptr_nonnull(t);
	tty_start_sized(t, kd_port(d), "--trust-new", 30, 100);
	struct kc *bob;
	tty_game_as_white(t, d, "bob_z", &bob);
	EXPECT(t, "| your move] > ");
	ck_assert_int_eq(write(t->fd, "say short", 9), 9);   /* no Enter: half typed */
	tty_pump(t, 300);
	tty_resize(t, 30, 40);
	tty_resize(t, 30, 45);
	tty_resize(t, 30, 100);
	tty_pump(t, 1200);   /* the resizes' own redraws */
	size_t from = t->len;
	for (int i = 0; i < 30; i++)
		tty_pump(t, 100);   /* three ticks of the clock */
	ck_assert_msg(t->len > from, "no redraw after the resizes (%zu bytes read; the last: %s)", t->len,
	              t->buf + (t->len > 4000 ? t->len - 4000 : 0));
	for (const char *p = t->buf + from; (p = strstr(p, "\033[")) != NULL; p++) {
		size_t k = strspn(p + 2, "0123456789");
		ck_assert_msg(p[2 + k] != 'A', "a redraw went up a row: %s", t->buf + from);
	}
	tty_game_end(t, bob, d);
}
END_TEST

/*
 * Regression (the own-changes probe): typed bytes went to libedit one
 * byte a character, so "très" was "trÃ¨s" on the screen and on the wire.
 * In a UTF-8 locale, the opponent reads what was typed.
 */
START_TEST(typed_utf8_reaches_the_wire)
{
	struct kd *d = kd_start(NULL);
	struct tty *t = calloc(1, sizeof *t);
	ck_assert_ptr_nonnull(t);
	setenv("LC_ALL", "C.UTF-8", 1);   /* krieg's, inherited */
	tty_start_with(t, kd_port(d), "--trust-new");
	unsetenv("LC_ALL");
	struct kc *bob;
	tty_game_as_white(t, d, "bob_u", &bob);
	tty_type(t, "say tr\xc3\xa8s bien \xe2\x99\x9e");
	json_t *said = kc_event(bob, "chat");
	ck_assert_str_eq(json_string_value(json_object_get(said, "text")),
	                 "tr\xc3\xa8s bien \xe2\x99\x9e");
	tty_game_end(t, bob, d);
}
END_TEST

/*
 * With no locale set (LANG unset: the C locale), the opponent's "très" is
 * shown "tres", and krieg says once how to see it as written.  Before, the
 * user was not told why the letters had changed.
 */
START_TEST(bare_locale_says_how_to_see_letters)
{
	struct kd *d = kd_start(NULL);
	struct tty *t = calloc(1, sizeof *t);
	ck_assert_ptr_nonnull(t);
	setenv("LC_ALL", "C", 1);   /* krieg's, inherited */
	tty_start_with(t, kd_port(d), "--trust-new");
	unsetenv("LC_ALL");
	struct kc *bob;
	json_int_t game = tty_game_as_white(t, d, "bob_l", &bob);
	kc_ok(bob, kc_req(bob, "say", "{s:I, s:s}", "game", game, "text", "tr\xc3\xa8s bien"));
	EXPECT(t, "tres bien");
	EXPECT(t, "LANG=C.UTF-8 shows them");
	kc_ok(bob, kc_req(bob, "say", "{s:I, s:s}", "game", game, "text", "d\xc3\xa9j\xc3\xa0 vu"));
	EXPECT(t, "deja vu");
	tty_pump(t, 300);
	size_t said = 0;
	for (const char *p = t->buf; (p = strstr(p, "LANG=C.UTF-8 shows them")) != NULL; p++)
		said++;
	ck_assert_msg(said == 1, "the word on the locale said %zu times:\n%s", said, t->buf);
	tty_game_end(t, bob, d);
}
END_TEST

/*
 * Regression (the own-changes probe): after Ctrl-Z and fg the prompt and
 * the half-typed line were not drawn again until the next clock tick
 * (none outside a timed game; libedit's own redraw on SIGCONT draws
 * nothing).  krieg runs as a job of an interactive shell in the pty, so
 * that Ctrl-Z stops it and fg continues it as a user's would.
 */
START_TEST(prompt_redrawn_after_suspend)
{
	struct kd *d = kd_start(NULL);
	struct tty *t = calloc(1, sizeof *t);
	char cmd[512];
	ck_assert_ptr_nonnull(t);
	if (tty_fork(t, 50, 120) == 0) {
		setenv("PS1", "shell$ ", 1);
		execl("/bin/bash", "bash", "--norc", "--noprofile", "-i", (char *)NULL);
		_exit(127);
	}
	EXPECT(t, "shell$ ");
	snprintf(cmd, sizeof cmd, "%s --ascii --trust-new 127.0.0.1:%d", kcl_krieg_path(), kd_port(d));
	tty_type(t, cmd);
	EXPECT(t, "Connected to kriegd");
	EXPECT(t, "krieg> ");
	ck_assert_int_eq(write(t->fd, "who am", 6), 6);
	EXPECT(t, "who am");
	ck_assert_int_eq(write(t->fd, "\x1a", 1), 1);   /* Ctrl-Z */
	EXPECT(t, "Stopped");
	EXPECT(t, "shell$ ");
	tty_type(t, "fg");
	EXPECT(t, "krieg> who am");
	tty_game_end(t, NULL, d);   /* the shell; krieg goes with the pty (SIGHUP) */
}
END_TEST

/*
 * Regression (the client probe): Ctrl-C left at once whatever was typed,
 * killed by the signal (status 130): a player clearing a mistyped move
 * left the club.  A half-typed line is dropped, as a shell drops it, a
 * password's prompt given up, and at an empty prompt Ctrl-C leaves,
 * status 0.  Each Ctrl-C is typed as soon as the prompt shows: el_gets
 * drew the prompt before it put the terminal in edit mode, so one typed
 * at once came as the signal, which only drops a line, and krieg stayed
 * (3 runs in 40 under load: the CI on a861ab4).
 */
START_TEST(ctrl_c_drops_the_line_then_leaves)
{
	struct kd *d = kd_start(NULL);
	struct tty *t = calloc(1, sizeof *t);
	ck_assert_ptr_nonnull(t);
	tty_start_with(t, kd_port(d), "--trust-new");
	EXPECT(t, "krieg> ");
	ck_assert_int_eq(write(t->fd, "e2e", 3), 3);
	EXPECT(t, "e2e");
	ck_assert_int_eq(write(t->fd, "\x03", 1), 1);   /* Ctrl-C */
	tty_type(t, "nosuchword");
	EXPECT(t, "\"nosuchword\" is not a command");
	ck_assert_msg(strstr(t->buf, "e2enosuchword") == NULL, "the line was kept:\n%s", t->buf);
	/* at a password's prompt (outside the line editor): the prompt given
	 * up, krieg stays (a review: it was killed, the terminal's echo off) */
	EXPECT(t, "krieg> ");
	tty_type(t, "login nobody_here");
	EXPECT(t, "Password: ");
	ck_assert_int_eq(write(t->fd, "sec\x03", 4), 4);
	EXPECT(t, "login needs a password");
	EXPECT(t, "krieg> ");
	ck_assert_int_eq(write(t->fd, "\x03", 1), 1);
	ck_assert_int_eq(tty_exit(t, KC_TIMEOUT_MS), 0);
	close(t->fd);
	free(t);
	kd_stop(d);
}
END_TEST

/*
 * A line typed wider than the terminal (the prompt and a long "say" wrap
 * over two rows of 80 columns) while the clock ticks in the prompt, and a
 * message comes in: each redraw takes the whole of it off the screen first.
 * The redraw cleared the cursor's row only, so every second left a copy of
 * the first row (the prompt and the line's start) above it.
 */
START_TEST(long_line_redrawn_without_copies)
{
	enum { ROWS = 24, COLS = 80 };
	struct kd *d = kd_start(NULL);
	struct tty *t = calloc(1, sizeof *t);
	struct screen *scr = calloc(1, sizeof *scr);
	char *dump = calloc(1, 16384);
	ck_assert(t && scr && dump);
	tty_start_sized(t, kd_port(d), "--trust-new", ROWS, COLS);
	struct kc *bob;
	json_int_t game = tty_game_as_white(t, d, "bob_w", &bob);
	EXPECT(t, "| your move] > ");

	/* typed, not entered: the prompt (44 columns) and these 104 wrap once */
	const char *typed = "say the-start-of-a-long-line 0123456789 0123456789 0123456789 "
	                    "0123456789 0123456789 the-end-of-it";
	ck_assert_int_gt((int)strlen(typed) + 44, COLS);
	ck_assert_int_eq(write(t->fd, typed, strlen(typed)), (ssize_t)strlen(typed));
	EXPECT(t, "the-end-of-it");
	for (long end = kcl_now_ms() + 2500; kcl_now_ms() < end;)   /* two ticks of the clock, at least */
		tty_pump(t, 100);
	kc_ok(bob, kc_req(bob, "say", "{s:I, s:s}", "game", game, "text", "a word from Black"));
	kc_event(bob, "chat");   /* his own, echoed */
	EXPECT(t, "a word from Black");
	for (long end = kcl_now_ms() + 1500; kcl_now_ms() < end;)
		tty_pump(t, 100);

	screen_play(scr, ROWS, COLS, t->buf, t->len);
	screen_dump(scr, dump, 16384);
	/* once each: the line's first row, its second, and Black's words above them */
	ck_assert_msg(screen_count(scr, "> say the-start-of-a-long-line") == 1, "the first row, not once:\n%s", dump);
	ck_assert_msg(screen_count(scr, "the-end-of-it") == 1, "the second row, not once:\n%s", dump);
	ck_assert_msg(screen_count(scr, "a word from Black") == 1, "Black's words, not once:\n%s", dump);
	int said = -1, prompt = -1;
	for (int r = 0; r < ROWS; r++) {
		if (strstr(scr->cell[r], "a word from Black"))
			said = r;
		if (strstr(scr->cell[r], "> say the-start"))
			prompt = r;
	}
	ck_assert_msg(said < prompt && strstr(scr->cell[prompt + 1], "the-end-of-it"), "%s", dump);

	/* entered: the whole line went out, cut nowhere */
	tty_type(t, "");
	json_t *e = kc_event(bob, "chat");
	ck_assert_str_eq(json_string_value(json_object_get(e, "text")), typed + 4);

	tty_type(t, "quit");
	ck_assert_int_eq(tty_exit(t, RUN_TIMEOUT_MS), 0);
	free(dump);
	free(scr);
	free(t);
	kc_close(bob);
	kd_stop(d);
}
END_TEST

static int free_port(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof a;
	ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(getsockname(s, (struct sockaddr *)&a, &l), 0);
	close(s);
	return ntohs(a.sin_port);
}

/* kriegd on a fixed port with its own state directory (and so its own generated certificate). */
static struct kcl_proc *daemon_start(const char *state, int port)
{
	static char listen[64];
	snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
	char *argv[] = { (char *)kcl_bin_path("KRIEGD", "build/asan/bin/kriegd", "bin/kriegd"),
	                 "--state-dir", (char *)state, "--listen", listen, NULL };
	struct kcl_proc *p = calloc(1, sizeof *p);
	ck_assert_ptr_nonnull(p);
	kcl_proc_start(p, argv, sc.known, false);
	long end = kcl_now_ms() + KD_START_TIMEOUT_MS;
	while (!strstr(p->ebuf, "ready") && kcl_now_ms() < end)
		kcl_proc_pump(p, 100);
	ck_assert_msg(strstr(p->ebuf, "ready"), "kriegd did not start: %s", p->ebuf);
	return p;
}

static void daemon_stop(struct kcl_proc *p)
{
	kill(p->pid, SIGTERM);
	kcl_proc_finish(p, KD_START_TIMEOUT_MS);
	kcl_proc_free(p);
	free(p);
}

START_TEST(changed_certificate_is_refused)
{
	char sa[256], sb[256];
	snprintf(sa, sizeof sa, "%s/a", sc.dir);
	snprintf(sb, sizeof sb, "%s/b", sc.dir);
	int port = free_port();
	struct kcl_proc p;

	struct kcl_proc *d = daemon_start(sa, port);
	/* first use: pinned, with a notice */
	ck_assert_int_eq(run_batch(port, "ping\n", &p), 0);
	ck_assert_ptr_nonnull(strstr(p.ebuf, "permanently added"));
	kcl_proc_free(&p);
	/* second use: the pin matches, silently */
	ck_assert_int_eq(run_batch(port, "ping\n", &p), 0);
	ck_assert_ptr_null(strstr(p.ebuf, "permanently added"));
	kcl_proc_free(&p);
	daemon_stop(d);

	/* the same address, another certificate */
	d = daemon_start(sb, port);
	ck_assert_int_ne(run_batch(port, "ping\n", &p), 0);
	ck_assert_msg(strstr(p.ebuf, "CERTIFICATE HAS CHANGED"), "%s", p.ebuf);
	char line[256];
	snprintf(line, sizeof line, "%s:1", sc.known);
	ck_assert_msg(strstr(p.ebuf, line), "no file:line in: %s", p.ebuf);
	ck_assert_ptr_null(strstr(p.obuf, "greeting"));   /* not one protocol line went through */
	kcl_proc_free(&p);

	/* --insecure connects, and says so every time */
	char addr[64];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	char *argv[] = { (char *)kcl_krieg_path(), "--batch", "--insecure", addr, NULL };
	for (int i = 0; i < 2; i++) {
		kcl_proc_start(&p, argv, sc.known, false);
		kcl_proc_write(&p, "ping\n");
		ck_assert_int_eq(kcl_proc_finish(&p, RUN_TIMEOUT_MS), 0);
		ck_assert_ptr_nonnull(strstr(p.ebuf, "WARNING: --insecure"));
		kcl_proc_free(&p);
	}
	daemon_stop(d);
}
END_TEST


/* First use on a terminal, answered no: nothing is pinned and krieg stops. */
START_TEST(first_use_answered_no_is_refused)
{
	struct kd *d = kd_start(NULL);
	struct tty *t = calloc(1, sizeof *t);
	ck_assert_ptr_nonnull(t);
	tty_start(t, kd_port(d));
	EXPECT(t, "Are you sure you want to continue connecting (yes/no)? ");
	tty_type(t, "perhaps");
	EXPECT(t, "Please type 'yes' or 'no': ");
	tty_type(t, "no");
	EXPECT(t, "was not accepted");
	ck_assert_int_eq(tty_exit(t, KC_TIMEOUT_MS), 1);
	struct stat kst;
	ck_assert_msg(stat(sc.known, &kst) != 0 || kst.st_size == 0, "a server was pinned after \"no\"");
	ck_assert_ptr_null(strstr(t->buf, "krieg> "));
	close(t->fd);

	/* --trust-new: no question, the pin is made with a notice */
	tty_start_with(t, kd_port(d), "--trust-new");
	EXPECT(t, "permanently added");
	EXPECT(t, "krieg> ");
	ck_assert_ptr_null(strstr(t->buf, "(yes/no)"));
	tty_type(t, "quit");
	ck_assert_int_eq(tty_exit(t, KC_TIMEOUT_MS), 0);
	ck_assert_int_eq(stat(sc.known, &kst), 0);
	close(t->fd);
	free(t);
	kd_stop(d);
}
END_TEST

/* ---- a daemon that goes away and comes back on the same port ---------------------- */

struct daemon {
	pid_t pid;
	char log[256];
	int readies;   /* "ready" lines in the log so far (it is appended to across starts) */
};

static void daemon_up(struct daemon *dm, const char *state, int port)
{
	char listen[64];
	snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
	snprintf(dm->log, sizeof dm->log, "%s/kriegd.log", sc.dir);
	dm->pid = fork();
	ck_assert_int_ge(dm->pid, 0);
	if (dm->pid == 0) {
		int fd = open(dm->log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		int null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(kcl_bin_path("KRIEGD", "build/asan/bin/kriegd", "bin/kriegd"), "kriegd", "--state-dir", state,
		      "--listen", listen, (char *)NULL);
		_exit(127);
	}
	/* ready once the log says so after this start (the log is appended to) */
	long end = kcl_now_ms() + KD_START_TIMEOUT_MS;
	for (;;) {
		char buf[65536] = "";
		FILE *f = fopen(dm->log, "r");
		size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = '\0';
		int ready = 0;
		for (char *p = strstr(buf, "kriegd: ready"); p; p = strstr(p + 1, "kriegd: ready"))
			ready++;
		if (ready > dm->readies) {
			dm->readies = ready;
			break;
		}
		ck_assert_msg(kcl_now_ms() < end, "kriegd did not start: %s", buf);
		ck_assert_msg(waitpid(dm->pid, NULL, WNOHANG) == 0, "kriegd exited: %s", buf);
		kt_sleep_ms(50);
	}
}

static void daemon_down(struct daemon *dm)
{
	int st = 0;
	kill(dm->pid, SIGTERM);
	long end = kcl_now_ms() + KD_START_TIMEOUT_MS;
	while (waitpid(dm->pid, &st, WNOHANG) == 0) {
		if (kcl_now_ms() > end) {
			kill(dm->pid, SIGKILL);
			waitpid(dm->pid, &st, 0);
			break;
		}
		kt_sleep_ms(20);
	}
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "kriegd exit status %d", st);
}

/*
 * The server goes away mid-game and comes back on the same address: the
 * interactive client says so, reconnects, resumes, shows the game again and
 * plays on; a --batch client exits non-zero with a clear message instead.
 */
START_TEST(reconnects_and_resumes_after_a_restart)
{
	char state[256], addr[64];
	snprintf(state, sizeof state, "%s/state", sc.dir);
	int port = free_port();
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	struct daemon dm = { 0 };
	daemon_up(&dm, state, port);

	struct tty *t = calloc(1, sizeof *t);
	ck_assert_ptr_nonnull(t);
	tty_start_with(t, port, "--trust-new");
	EXPECT(t, "krieg> ");
	tty_type(t, "register alice_r");
	EXPECT(t, "Password: ");
	tty_type(t, "password123");
	EXPECT(t, "Password again: ");
	tty_type(t, "password123");
	EXPECT(t, "Logged in as alice_r");

	char *argv[] = { (char *)kcl_krieg_path(), "--batch", addr, NULL };
	struct kcl_proc bob;
	kcl_proc_start(&bob, argv, sc.known, false);
	kcl_proc_write(&bob, "register bob_r password123\n"
	                 "challenge alice_r icc black\n"
	                 "wait game_start\n"
	                 "wait moved\n"
	                 "wait game_over 60\n");
	EXPECT(t, "bob_r (1500?) challenges you: icc, untimed, unrated, you play White.");
	tty_type(t, "accept");
	EXPECT(t, "rules icc, untimed; you play White");   /* untimed said (its prompt has no clocks) */
	tty_type(t, "ghost place Nf6");
	EXPECT(t, " 6  .  .  .  .  . [n] .  .  6");
	tty_type(t, "e4");
	EXPECT(t, "You played e4");
	ck_assert_msg(kcl_proc_wait_out(&bob, "\"event\":\"moved\"", RUN_TIMEOUT_MS), "%s", bob.ebuf);

	daemon_down(&dm);
	EXPECT(t, "lost");
	EXPECT(t, "your games go on. Reconnecting");
	/* the batch player is told and stops: scripts decide for themselves */
	ck_assert_int_ne(kcl_proc_finish(&bob, RUN_TIMEOUT_MS), 0);
	ck_assert_msg(strstr(bob.ebuf, "lost") && strstr(bob.ebuf, "does not reconnect"), "%s", bob.ebuf);
	kcl_proc_free(&bob);

	kt_sleep_ms(1500);   /* at least one refused attempt */
	daemon_up(&dm, state, port);
	ck_assert_msg(tty_expect_ms(t, "Reconnected to 127.0.0.1:", 40000), "never reconnected:\n%s",
	              t->buf + t->mark);
	EXPECT(t, "Session resumed as alice_r");
	EXPECT(t, "Game ");
	EXPECT(t, "you play White");
	/* the view rebuilt from the server's game_state, the guess kept */
	EXPECT(t, " 6  .  .  .  .  . [n] .  .  6");
	EXPECT(t, " 4  .  .  .  .  P  .  .  .  4");
	EXPECT(t, "their move] > ");

	/* Black comes back and moves; White plays on */
	struct kcl_proc bob2;
	kcl_proc_start(&bob2, argv, sc.known, false);
	kcl_proc_write(&bob2, "login bob_r password123\n"
	                  "wait game_state\n"
	                  "d5\n"
	                  "wait move\n"
	                  "wait game_over 60\n");
	EXPECT(t, "Black has moved");
	EXPECT(t, "your move");
	tty_type(t, "exd5");
	EXPECT(t, "You played exd5");
	EXPECT(t, "White captured a pawn on d5");
	tty_type(t, "resign --yes");
	EXPECT(t, "White resigned");
	ck_assert_int_eq(kcl_proc_finish(&bob2, RUN_TIMEOUT_MS), 0);
	ck_assert_ptr_nonnull(strstr(bob2.obuf, "\"reason\":\"resignation\""));
	ck_assert_ptr_null(strstr(bob2.obuf, "e2e4"));
	kcl_proc_free(&bob2);
	tty_type(t, "quit");
	ck_assert_int_eq(tty_exit(t, KC_TIMEOUT_MS), 0);
	close(t->fd);
	free(t);
	daemon_down(&dm);
}
END_TEST

/* ---- a bad network: a relay between krieg and kriegd ------------------------------ */

/*
 * A TCP relay from a port of its own to kriegd's (as test_bot.c's, but one
 * process for every connection, told what to do through a socket): 'f'
 * freezes the connections it holds, which then forward nothing either way
 * and are never closed (a dead path: a phone's network gone, a NAT that
 * forgot the connection: no FIN, no RST); 'r' resets them (RST to krieg,
 * as a NAT or a firewall that dropped them).  Connections made after
 * either are relayed as usual.  Each command is acknowledged once done.
 */
struct relay {
	pid_t pid;
	int port;
	int ctl;
};

#define RELAY_PAIRS_MAX 16

static void relay_serve(int l, int ctl, int to_port)
{
	struct { int c, k; bool frozen; } pr[RELAY_PAIRS_MAX];
	int n = 0;
	char buf[16384];
	for (;;) {
		struct pollfd p[2 + 2 * RELAY_PAIRS_MAX];
		int np = 0;
		p[np++] = (struct pollfd){ .fd = l, .events = POLLIN };
		p[np++] = (struct pollfd){ .fd = ctl, .events = POLLIN };
		for (int i = 0; i < n; i++) {
			p[np++] = (struct pollfd){ .fd = pr[i].frozen ? -1 : pr[i].c, .events = POLLIN };
			p[np++] = (struct pollfd){ .fd = pr[i].frozen ? -1 : pr[i].k, .events = POLLIN };
		}
		if (poll(p, (nfds_t)np, -1) < 0)
			continue;
		if (p[1].revents) {
			char cmd;
			if (read(ctl, &cmd, 1) != 1)
				_exit(0);   /* the test is gone */
			for (int i = 0; i < n && cmd == 'f'; i++)
				pr[i].frozen = true;
			for (int i = 0; i < n && cmd == 'r'; i++) {
				struct linger lg = { .l_onoff = 1, .l_linger = 0 };
				setsockopt(pr[i].c, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
				close(pr[i].c);
				close(pr[i].k);
			}
			if (cmd == 'r')
				n = 0;
			if (write(ctl, &cmd, 1) != 1)
				_exit(1);
			continue;   /* the pairs changed under the poll set */
		}
		bool changed = false;
		for (int i = 0; i < n && !changed; i++) {
			for (int side = 0; side < 2 && !changed; side++) {
				if (!(p[2 + 2 * i + side].revents & (POLLIN | POLLHUP | POLLERR)))
					continue;
				int from = side ? pr[i].k : pr[i].c, to = side ? pr[i].c : pr[i].k;
				ssize_t r = read(from, buf, sizeof buf);
				if (r > 0 && write(to, buf, (size_t)r) == r)
					continue;
				close(pr[i].c);
				close(pr[i].k);
				pr[i] = pr[--n];
				changed = true;
			}
		}
		if (!changed && (p[0].revents & POLLIN)) {
			int c = accept(l, NULL, NULL);
			int k = socket(AF_INET, SOCK_STREAM, 0);
			struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)to_port),
			                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
			if (c >= 0 && n < RELAY_PAIRS_MAX && connect(k, (struct sockaddr *)&to, sizeof to) == 0) {
				pr[n].c = c;
				pr[n].k = k;
				pr[n++].frozen = false;
			} else {
				if (c >= 0)
					close(c);
				close(k);
			}
		}
	}
}

static void relay_start(struct relay *r, int to_port)
{
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof sa;
	ck_assert_int_eq(bind(l, (struct sockaddr *)&sa, sizeof sa), 0);
	ck_assert_int_eq(listen(l, 16), 0);
	ck_assert_int_eq(getsockname(l, (struct sockaddr *)&sa, &len), 0);
	r->port = ntohs(sa.sin_port);
	r->pid = fork();
	ck_assert_int_ge(r->pid, 0);
	if (r->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(sv[0]);
		relay_serve(l, sv[1], to_port);
		_exit(0);
	}
	close(l);
	close(sv[1]);
	r->ctl = sv[0];
}

/* 'f' (freeze) or 'r' (reset) the connections the relay holds; returns once done. */
static void relay_do(struct relay *r, char cmd)
{
	char ack = 0;
	ck_assert_int_eq(write(r->ctl, &cmd, 1), 1);
	ck_assert_int_eq(read(r->ctl, &ack, 1), 1);
	ck_assert_int_eq(ack, cmd);
}

static void relay_stop(struct relay *r)
{
	close(r->ctl);
	kill(r->pid, SIGKILL);
	waitpid(r->pid, NULL, 0);
}

/* How long krieg may take to give a dead connection up: CLIENT_QUIET_MS
 * then CLIENT_DEAD_MS (25 s), and a loop's tick, with room to spare. */
#define DEAD_PATH_NOTICED_MS ((25000 + 10000) * kt_timeout_scale())

/*
 * Regression (a probe over a bad network): a dead path, no FIN and no RST,
 * was never noticed.  A player typed a try and heard nothing for minutes;
 * a --batch `ping` waited 90 s and more, though krieg(1) promises a
 * non-zero exit on a lost connection.  Both clients ping when an answer is
 * overdue and give the connection up when nothing at all comes back: the
 * script exits 1 saying why, the player is told and krieg reconnects,
 * resumes and plays on.
 */
START_TEST(dead_path_is_noticed)
{
	struct kd *d = kd_start(NULL);
	struct relay rl;
	relay_start(&rl, kd_port(d));
	char addr[64];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", rl.port);

	struct tty *t = calloc(1, sizeof *t);
	ck_assert_ptr_nonnull(t);
	tty_start_with(t, rl.port, "--trust-new");
	struct kc *bob;
	json_int_t game = tty_game_as_white(t, d, "bob_dead", &bob);
	EXPECT(t, "| your move] > ");

	char *argv[] = { (char *)kcl_krieg_path(), "--batch", addr, NULL };
	struct kcl_proc p;
	kcl_proc_start(&p, argv, sc.known, false);
	kcl_proc_write(&p, "guest\n");
	ck_assert_msg(kcl_proc_wait_out(&p, "\"user\":\"guest-", RUN_TIMEOUT_MS), "%s", p.ebuf);

	relay_do(&rl, 'f');   /* the path dies under both */
	long cut = kcl_now_ms();
	kcl_proc_write(&p, "ping\n");
	tty_type(t, "e4");

	/* the script: a non-zero exit, saying why, in bounded time */
	int rc = kcl_proc_finish(&p, DEAD_PATH_NOTICED_MS);
	long took = kcl_now_ms() - cut;
	ck_assert_msg(rc == 1, "exit %d after %ld ms\nstderr:\n%s", rc, took, p.ebuf);
	ck_assert_msg(strstr(p.ebuf, "krieg: connection to 127.0.0.1:") &&
	              strstr(p.ebuf, " lost (no answer from the server for ") &&
	              strstr(p.ebuf, "--batch does not reconnect"), "stderr:\n%s", p.ebuf);
	ck_assert_msg(took >= 20000, "gave up after %ld ms", took);
	kcl_proc_free(&p);

	/* the player: told, reconnected, the game as it stands (the try never reached the server) */
	ck_assert_msg(tty_expect_ms(t, "lost (no answer from the server for ", DEAD_PATH_NOTICED_MS),
	              "the dead path was never noticed:\n%s", t->buf + t->mark);
	EXPECT(t, "your games go on. Reconnecting");
	ck_assert_msg(tty_expect_ms(t, "Reconnected to 127.0.0.1:", 20000), "never reconnected:\n%s", t->buf + t->mark);
	EXPECT(t, "Session resumed as guest-");
	EXPECT(t, "| your move] > ");
	tty_type(t, "e4");
	EXPECT(t, "You played e4");
	kc_event(bob, "moved");
	kc_ok(bob, kc_req(bob, "move", "{s:I, s:s}", "game", game, "move", "e5"));
	EXPECT(t, "Black has moved");
	relay_stop(&rl);
	tty_game_end(t, bob, d);
}
END_TEST

/*
 * Regression (the same probe): a connection reset (an RST: a NAT or a
 * firewall that dropped it) was told as "the server closed the
 * connection".  It says the connection was reset.
 */
START_TEST(reset_is_told_as_a_reset)
{
	struct kd *d = kd_start(NULL);
	struct relay rl;
	relay_start(&rl, kd_port(d));
	char addr[64];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", rl.port);

	char *argv[] = { (char *)kcl_krieg_path(), "--batch", addr, NULL };
	struct kcl_proc p;
	kcl_proc_start(&p, argv, sc.known, false);
	kcl_proc_write(&p, "guest\nsleep 20\nwho\n");
	ck_assert_msg(kcl_proc_wait_out(&p, "\"user\":\"guest-", RUN_TIMEOUT_MS), "%s", p.ebuf);
	relay_do(&rl, 'r');
	int rc = kcl_proc_finish(&p, RUN_TIMEOUT_MS);
	ck_assert_msg(rc == 1, "exit %d\nstderr:\n%s", rc, p.ebuf);
	ck_assert_msg(strstr(p.ebuf, " lost (the connection was reset); --batch does not reconnect") &&
	              !strstr(p.ebuf, "server closed"), "stderr:\n%s", p.ebuf);
	kcl_proc_free(&p);

	struct tty *t = calloc(1, sizeof *t);
	ck_assert_ptr_nonnull(t);
	tty_start_with(t, rl.port, "--trust-new");
	EXPECT(t, "krieg> ");
	tty_type(t, "guest");
	EXPECT(t, "Logged in as guest-");
	relay_do(&rl, 'r');
	/* no game here: nothing said of games (director probe: "your games go
	 * on" to one who played none) */
	EXPECT(t, "lost (the connection was reset). Reconnecting");
	ck_assert_msg(!strstr(t->buf, "server closed") && !strstr(t->buf, "your games"), "%s", t->buf);
	ck_assert_msg(tty_expect_ms(t, "Reconnected to 127.0.0.1:", 20000), "never reconnected:\n%s", t->buf + t->mark);
	relay_stop(&rl);
	tty_game_end(t, NULL, d);
}
END_TEST

/*
 * Regression (the same probe): chat said while the player's connection
 * was down came in the reconnection's game_state, and krieg dropped it
 * unread.  The lines not seen are shown once; those seen before the drop
 * are not shown again.
 */
START_TEST(chat_said_while_away_is_shown)
{
	struct kd *d = kd_start(NULL);
	struct relay rl;
	relay_start(&rl, kd_port(d));
	struct tty *t = calloc(1, sizeof *t);
	ck_assert_ptr_nonnull(t);
	tty_start_with(t, rl.port, "--trust-new");
	struct kc *bob;
	json_int_t game = tty_game_as_white(t, d, "bob_away", &bob);
	kc_ok(bob, kc_req(bob, "say", "{s:I, s:s}", "game", game, "text", "good luck"));
	EXPECT(t, ": bob_away (Black) says: \"good luck\"");
	tty_type(t, "say thanks");
	EXPECT(t, ": You say: \"thanks\"");
	EXPECT(t, "| your move] > ");

	relay_do(&rl, 'f');   /* what bob says now never reaches the terminal... */
	kc_ok(bob, kc_req(bob, "say", "{s:I, s:s}", "game", game, "text", "are you there?"));
	kc_ok(bob, kc_req(bob, "say", "{s:I, s:s}", "game", game, "text", "your move"));
	relay_do(&rl, 'r');   /* ...and the connection drops */
	ck_assert_msg(tty_expect_ms(t, "Reconnected to 127.0.0.1:", 20000), "never reconnected:\n%s", t->buf + t->mark);
	size_t back = t->mark;
	EXPECT(t, ": (earlier) bob_away (Black) says: \"are you there?\"");
	EXPECT(t, ": (earlier) bob_away (Black) says: \"your move\"");
	EXPECT(t, "| your move] > ");
	ck_assert_msg(!strstr(t->buf + back, "good luck") && !strstr(t->buf + back, "thanks"),
	              "chat seen before the drop shown again:\n%s", t->buf + back);
	tty_type(t, "say sorry, my network");
	EXPECT(t, ": You say: \"sorry, my network\"");
	ck_assert_msg(!strstr(t->buf + back, "good luck"), "%s", t->buf + back);
	relay_stop(&rl);
	tty_game_end(t, bob, d);
}
END_TEST

static Suite *client_suite(void)
{
	Suite *s = suite_create("client");
	TCase *tc = tcase_create("client");
	tcase_set_timeout(tc, 90);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, batch_game_between_two_clients);
	tcase_add_test(tc, batch_login_options);
	tcase_add_test(tc, batch_exit_status);
	tcase_add_test(tc, interactive_under_a_pty);
	tcase_add_test(tc, chat_and_presence_under_a_pty);
	tcase_add_test(tc, long_line_redrawn_without_copies);
	tcase_add_test(tc, resized_twice_while_typing);
	tcase_add_test(tc, resized_while_busy);
	tcase_add_test(tc, piped_input_waits_for_its_answers);
	tcase_add_test(tc, typed_utf8_reaches_the_wire);
	tcase_add_test(tc, bare_locale_says_how_to_see_letters);
	tcase_add_test(tc, prompt_redrawn_after_suspend);
	tcase_add_test(tc, ctrl_c_drops_the_line_then_leaves);
	tcase_add_test(tc, changed_certificate_is_refused);
	tcase_add_test(tc, first_use_answered_no_is_refused);
	tcase_add_test(tc, reconnects_and_resumes_after_a_restart);
	suite_add_tcase(s, tc);
	/* a bad network, through the relay (CK_RUN_CASE=badnet runs these alone) */
	TCase *bn = tcase_create("badnet");
	tcase_set_timeout(bn, 90);
	tcase_add_checked_fixture(bn, setup, teardown);
	tcase_add_test(bn, dead_path_is_noticed);
	tcase_add_test(bn, reset_is_told_as_a_reset);
	tcase_add_test(bn, chat_said_while_away_is_shown);
	suite_add_tcase(s, bn);
	/* a player who does not see the screen (CK_RUN_CASE=blind runs these alone) */
	TCase *bl = tcase_create("blind");
	tcase_set_timeout(bl, 90);
	tcase_add_checked_fixture(bl, setup, teardown);
	tcase_add_test(bl, resign_asks_with_stdout_not_a_terminal);
	tcase_add_loop_test(bl, plain_mode_writes_no_redraws, 0, 3);
	suite_add_tcase(s, bl);
	return s;
}

KRIEG_TEST_MAIN(client_suite)
