/*
 * test_client_watch.c — the real krieg binary watching a real kriegd game:
 *   spectator_and_umpire   `krieg --user carol HOST watch G` shows the public
 *                          stream in words (catch-up and live), never a
 *                          move; `krieg --ascii --user ump HOST umpire G`
 *                          draws the true board with both sides' pieces,
 *                          the tries with their rulings, who heard what and
 *                          the players' connections; a player-role account
 *                          asking for the chair is refused `forbidden`, and
 *                          `live` lists the game;
 *   umpire_actions         pause, addtime, a public note and an
 *                          adjudication typed in the chair reach the
 *                          players and the spectator's client in words
 *                          (run when the server knows the umpire's
 *                          actions: a player's clock_pause is then
 *                          `forbidden`, not `unknown_type`).
 * The players are harness connections; the watchers are krieg processes
 * without a terminal (plain lines on stdin, words on stdout).
 */
#include <check.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "harness.h"
#include "harness_game.h"

#define WAIT_MS 15000
#define OUT_MAX (256 * 1024)

static const char *krieg_bin(void)
{
	const char *p = getenv("KRIEG");
	if (p && *p)
		return p;
	return access("build/asan/bin/krieg", X_OK) == 0 ? "build/asan/bin/krieg" : "bin/krieg";
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static char scratch[128], known[192];

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(scratch, sizeof scratch, "%s/krieg-watch-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
	snprintf(known, sizeof known, "%s/known_servers", scratch);
}

static void teardown(void)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
	if (system(cmd) != 0)
		perror("rm");
}

/* ---- a krieg process: stdin a pipe, stdout and stderr into one buffer ---------------- */

struct proc {
	pid_t pid;
	int in, out;
	char *buf;
	size_t len;
};

static void proc_start(struct proc *p, char *const argv[])
{
	int pin[2], pout[2];
	memset(p, 0, sizeof *p);
	ck_assert_int_eq(pipe(pin), 0);
	ck_assert_int_eq(pipe(pout), 0);
	p->pid = fork();
	ck_assert_int_ge(p->pid, 0);
	if (p->pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		dup2(pout[1], 2);
		close(pin[1]);
		close(pout[0]);
		setenv("KRIEG_KNOWN_SERVERS", known, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	p->in = pin[1];
	p->out = pout[0];
	p->buf = calloc(1, OUT_MAX + 1);
	ck_assert_ptr_nonnull(p->buf);
}

static void proc_write(struct proc *p, const char *text)
{
	size_t n = strlen(text);
	ck_assert_int_eq(write(p->in, text, n), (ssize_t)n);
}

/* Read what is there for up to ms; false at EOF. */
static bool proc_pump(struct proc *p, int ms)
{
	struct pollfd f = { .fd = p->out, .events = POLLIN };
	if (p->out < 0)
		return false;
	if (poll(&f, 1, ms) <= 0)
		return true;
	ssize_t r = read(p->out, p->buf + p->len, OUT_MAX - p->len);
	if (r <= 0) {
		close(p->out);
		p->out = -1;
		return false;
	}
	p->len += (size_t)r;
	return true;
}

/* Wait until the output holds needle (after `from`); asserts it comes. */
static void proc_expect(struct proc *p, const char *needle)
{
	long end = now_ms() + WAIT_MS;
	while (!strstr(p->buf, needle) && now_ms() < end && proc_pump(p, 100))
		;
	ck_assert_msg(strstr(p->buf, needle) != NULL, "\"%s\" never came; the client said:\n%s", needle, p->buf);
}

/* Close stdin (the client quits), reap, free. */
static void proc_end(struct proc *p)
{
	close(p->in);
	long end = now_ms() + WAIT_MS;
	while (proc_pump(p, 100) && now_ms() < end)
		;
	int st;
	if (waitpid(p->pid, &st, WNOHANG) == 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, &st, 0);
	}
	if (p->out >= 0)
		close(p->out);
	free(p->buf);
}

/* `krieg --ascii --user NAME 127.0.0.1:PORT SEAT GAME`, the password typed at its prompt. */
static void krieg_seat(struct proc *p, struct kd *d, const char *name, const char *seat, long long game)
{
	char addr[64], num[32];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", kd_port(d));
	snprintf(num, sizeof num, "%lld", game);
	char *argv[] = { (char *)krieg_bin(), "--ascii", "--no-color", "--user", (char *)name, addr,
	                 (char *)seat, num, NULL };
	proc_start(p, argv);
	proc_write(p, "sesame-open\n");
}

/* ---- accounts and a game ---------------------------------------------------- */

/* An account made offline by `kriegd user add NAME --role ROLE --password-stdin`. */
static void user_add(struct kd *d, const char *name, const char *role)
{
	char inpath[] = "/tmp/kcw-in-XXXXXX";
	int in = mkstemp(inpath);
	ck_assert(in >= 0);
	ck_assert(write(in, "sesame-open\n", 12) == 12);
	lseek(in, 0, SEEK_SET);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(in, 0);
		execl(kg_kriegd_path(), "kriegd", "--state-dir", kd_state_dir(d), "user", "add", name, "--role",
		      role, "--password-stdin", (char *)NULL);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	close(in);
	unlink(inpath);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static struct kc *player(struct kd *d, const char *name)
{
	struct kc *c = kc_hello(d);
	kc_ok(c, kc_req(c, "register", "{s:s, s:s}", "user", name, "password", "sesame-open"));
	return c;
}

/* alice (White) and bob (Black): an unrated icc game, 5 minutes each. */
static long long new_game(struct kc *w, struct kc *b)
{
	json_t *r = kc_ok(w, kc_req(w, "seek", "{s:s, s:s, s:b, s:{s:i, s:i}}", "color", "white", "rules", "icc",
	                            "rated", 0, "time", "base", 300, "inc", 0));
	json_int_t offer = json_integer_value(json_object_get(r, "offer"));
	r = kc_ok(b, kc_req(b, "accept", "{s:I}", "offer", offer));
	return json_integer_value(json_object_get(r, "game"));
}

static void play(struct kc *c, long long game, const char *move)
{
	kc_ok(c, kc_req(c, "move", "{s:I, s:s}", "game", (json_int_t)game, "move", move));
}

START_TEST(spectator_and_umpire)
{
	struct kd *d = kd_start(KD_BASE_CONFIG);
	user_add(d, "ump", "umpire");
	struct kc *alice = player(d, "alice"), *bob = player(d, "bob");
	kc_close(player(d, "carol"));
	long long g = new_game(alice, bob);
	play(alice, g, "e4");

	/* the spectator: the catch-up in words, then the game live */
	struct proc spec, ump, nosy;
	krieg_seat(&spec, d, "carol", "watch", g);
	char want[128];
	snprintf(want, sizeof want, "Watching game %lld", g);
	proc_expect(&spec, want);
	proc_expect(&spec, "you are watching");
	proc_expect(&spec, "White has moved");
	play(bob, g, "d5");
	play(alice, g, "exd5");
	snprintf(want, sizeof want, "#%lld (watching): White captured a pawn on d5", g);
	proc_expect(&spec, want);
	snprintf(want, sizeof want, "#%lld (watching): Black has moved", g);
	proc_expect(&spec, want);

	/* the umpire: the true board, the tries, who heard what, connections */
	krieg_seat(&ump, d, "ump", "umpire", g);
	snprintf(want, sizeof want, "In the umpire's chair of game %lld", g);
	proc_expect(&ump, want);
	proc_expect(&ump, "Umpire's board");
	proc_expect(&ump, " 8  r  n  b  q  k  b  n  r  8");
	proc_expect(&ump, " 5  .  .  .  P  .  .  .  .  5");
	proc_expect(&ump, " 1  R  N  B  Q  K  B  N  R  1");
	proc_expect(&ump, "[umpire only] White played exd5");
	proc_expect(&ump, "[everyone] White captured a pawn on d5");
	proc_expect(&ump, "Last tries: White exd5: played | Black d5: played");
	proc_expect(&ump, "White (alice) 5:00, connected | Black (bob)");
	/* live: Black's try blocked on the true board, heard by Black and the umpire only */
	long long id = kc_req(bob, "move", "{s:I, s:s}", "game", (json_int_t)g, "move", "Qd1");
	kc_ok(bob, id);
	snprintf(want, sizeof want, "#%lld (umpire): [Black] Black tried Qd1: illegal", g);
	proc_expect(&ump, want);
	proc_expect(&ump, "Black Qd1: illegal");
	play(bob, g, "Qxd5");
	snprintf(want, sizeof want, "#%lld (umpire): [umpire only] Black played Qxd5", g);
	proc_expect(&ump, want);
	proc_expect(&ump, " 5  .  .  .  q  .  .  .  .  5");
	kc_close(bob);
	proc_expect(&ump, "Black (bob) has lost the connection");
	proc_write(&ump, "live\n");
	snprintf(want, sizeof want, "game %lld: alice (White) vs bob (Black), icc, 5+0, unrated, move 3", g);
	proc_expect(&ump, want);

	/* a player-role account is refused the chair, with its code; no chair, no action */
	krieg_seat(&nosy, d, "carol", "umpire", g);
	proc_expect(&nosy, "umpire refused: only umpires and admins take the umpire's chair (forbidden)");
	proc_write(&nosy, "pause now\n");
	proc_expect(&nosy, "pause: you hold no umpire's chair");
	proc_end(&nosy);

	/* the spectator heard the public part and nothing else */
	snprintf(want, sizeof want, "#%lld (watching): Black has moved", g);
	char *second = strstr(strstr(spec.buf, want) + 1, want);
	long end = now_ms() + WAIT_MS;
	while (!second && now_ms() < end && proc_pump(&spec, 100))
		second = strstr(strstr(spec.buf, want) + 1, want);
	ck_assert_msg(second, "the spectator missed Black's second move:\n%s", spec.buf);
	static const char *const secret[] = { "e2e4", "exd5", "Qxd5", "Qd1", "d8d1", "Umpire's board",
	                                      "connection", "illegal" };
	for (size_t i = 0; i < sizeof secret / sizeof secret[0]; i++)
		ck_assert_msg(!strstr(spec.buf, secret[i]), "the spectator was shown \"%s\":\n%s", secret[i], spec.buf);
	proc_end(&spec);
	proc_end(&ump);
	kc_close(alice);
	kd_stop(d);
}
END_TEST

START_TEST(umpire_actions)
{
	struct kd *d = kd_start(KD_BASE_CONFIG);
	user_add(d, "ump", "umpire");
	struct kc *alice = player(d, "alice"), *bob = player(d, "bob");
	kc_close(player(d, "carol"));
	long long g = new_game(alice, bob);
	/* a server without the umpire's actions does not know the request: the unit tests cover them */
	json_t *probe = kc_response(alice, kc_req(alice, "clock_pause", "{s:I, s:s}", "game", (json_int_t)g,
	                                         "reason", "probe"));
	const char *code = json_string_value(json_object_get(json_object_get(probe, "error"), "code"));
	ck_assert_ptr_nonnull(code);   /* a player may never pause */
	if (!strcmp(code, "unknown_type")) {
		kc_close(alice);
		kc_close(bob);
		kd_stop(d);
		return;
	}
	ck_assert_str_eq(code, "forbidden");
	play(alice, g, "e4");
	struct proc spec, ump;
	char want[160];
	krieg_seat(&spec, d, "carol", "watch", g);
	snprintf(want, sizeof want, "Watching game %lld", g);
	proc_expect(&spec, want);
	krieg_seat(&ump, d, "ump", "umpire", g);
	snprintf(want, sizeof want, "In the umpire's chair of game %lld", g);
	proc_expect(&ump, want);

	proc_write(&ump, "pause the hall lights are out\n");
	snprintf(want, sizeof want, "#%lld: done (clocks paused).", g);
	proc_expect(&ump, want);
	json_t *ev = kc_event(alice, "clock_paused");
	ck_assert_str_eq(json_string_value(json_object_get(ev, "reason")), "the hall lights are out");
	kc_event(bob, "clock_paused");
	snprintf(want, sizeof want, "#%lld (watching): The umpire paused the clocks: the hall lights are out", g);
	proc_expect(&spec, want);

	proc_write(&ump, "addtime black 60 noise\n");
	snprintf(want, sizeof want, "#%lld (watching): The umpire gave Black 60 more seconds: noise", g);
	proc_expect(&spec, want);
	proc_write(&ump, "unpause lights back\n");
	snprintf(want, sizeof want, "#%lld (watching): The umpire restarted the clocks: lights back", g);
	proc_expect(&spec, want);
	proc_write(&ump, "note --public Play ends at six\n");
	snprintf(want, sizeof want, "#%lld (watching): The umpire says: Play ends at six", g);
	proc_expect(&spec, want);
	ev = kc_event(bob, "umpire_note");
	ck_assert_str_eq(json_string_value(json_object_get(ev, "text")), "Play ends at six");
	proc_write(&ump, "note alice looked nervous\n");
	snprintf(want, sizeof want, "#%lld: done (note recorded).", g);
	proc_expect(&ump, want);
	proc_expect(&ump, "Umpire's note (umpires only): alice looked nervous");

	proc_write(&ump, "adjudicate 1-0 mate in one on the board\n");
	snprintf(want, sizeof want, "#%lld (watching): Game over: White wins by the umpire's decision (1-0): mate in one on the board", g);
	proc_expect(&spec, want);
	ev = kc_event(alice, "game_over");
	ck_assert_str_eq(json_string_value(json_object_get(ev, "result")), "1-0");
	/* a private note went to nobody but umpires */
	ck_assert(!strstr(spec.buf, "nervous"));
	ck_assert(!kc_saw(alice, "nervous"));
	ck_assert(!kc_saw(bob, "nervous"));
	proc_end(&spec);
	proc_end(&ump);
	kc_close(alice);
	kc_close(bob);
	kd_stop(d);
}
END_TEST

static Suite *client_watch_suite(void)
{
	Suite *s = suite_create("client_watch");
	TCase *tc = tcase_create("client_watch");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, spectator_and_umpire);
	tcase_add_test(tc, umpire_actions);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(client_watch_suite)
