/*
 * harness_game.c — see harness_game.h.
 */
#define _GNU_SOURCE 1
#include "harness_game.h"

#include "check_main.h"   /* check.h, with assertions that do not write on a pass */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "action.h"
#include "event.h"
#include "event_json.h"
#include "fen.h"
#include "movegen.h"
#include "notation.h"
#include "referee.h"
#include "ruleset.h"

void kg_action(struct action *a, int kind, int color, const char *text)
{
	ck_assert_msg(action_set(a, kind, color, text) == REF_OK, "bad action %d '%s'", kind,
	              text ? text : "");
}

/* The seek's accept: the game's id. */
static int64_t accept_seek(struct kp *black, json_t *r)
{
	json_int_t offer = json_integer_value(json_object_get(r, "offer"));
	r = kc_ok(black->c, kc_req(black->c, "accept", "{s:I}", "offer", offer));
	json_int_t game = json_integer_value(json_object_get(r, "game"));
	ck_assert_int_gt(game, 0);
	return (int64_t)game;
}

void kg_assert_ended(struct kc *c, int64_t game, const char *result, const char *reason)
{
	json_t *r = kc_ok(c, kc_req(c, "game", "{s:I}", "game", (json_int_t)game));
	ck_assert_msg(json_is_false(json_object_get(r, "live")), "game %lld is live", (long long)game);
	ck_assert_str_eq(json_string_value(json_object_get(r, "result")), result);
	ck_assert_str_eq(json_string_value(json_object_get(r, "reason")), reason);
}

int64_t kg_new_game(struct kp *white, struct kp *black)
{
	return accept_seek(black, kc_ok(white->c, kc_req(white->c, "seek", "{s:s}", "color", "white")));
}

int64_t kg_new_timed_game(struct kp *white, struct kp *black, int base_s, int inc_s)
{
	return accept_seek(black, kc_ok(white->c, kc_req(white->c, "seek", "{s:s, s:s, s:{s:i, s:i}}",
	                                                 "rules", "icc", "color", "white", "time",
	                                                 "base", base_s, "inc", inc_s)));
}

json_t *kg_fetch_events(struct kc *c, const char *type, int64_t game, const char *view,
                        char *code, size_t codelen)
{
	json_t *all = json_array();
	json_int_t from = 0;

	for (;;) {
		long long id = view != NULL
		    ? kc_req(c, type, "{s:I, s:s, s:I}", "game", (json_int_t)game, "view", view, "from", from)
		    : kc_req(c, type, "{s:I, s:I}", "game", (json_int_t)game, "from", from);
		json_t *r = kc_response(c, id);
		if (!json_is_true(json_object_get(r, "ok"))) {
			if (code != NULL)
				snprintf(code, codelen, "%s", json_string_value(json_object_get(
				                                      json_object_get(r, "error"), "code")) ?: "?");
			json_decref(all);
			return NULL;
		}
		json_t *ev = json_object_get(r, "events");
		ck_assert(json_is_array(ev));
		json_array_extend(all, ev);
		json_t *next = json_object_get(r, "next");
		if (next == NULL)
			break;
		ck_assert_int_gt(json_integer_value(next), from);
		from = json_integer_value(next);
	}
	return all;
}

char *kg_fetch_pgn(struct kc *c, int64_t game, const char *view, char *code, size_t len)
{
	size_t cap = 1, n = 0;
	char *all = calloc(1, 1);
	json_int_t from = 0;
	for (;;) {
		long long id = view != NULL
		    ? kc_req(c, "pgn", "{s:I, s:s, s:I}", "game", (json_int_t)game, "view", view, "from", from)
		    : kc_req(c, "pgn", "{s:I, s:I}", "game", (json_int_t)game, "from", from);
		json_t *r = kc_response(c, id);
		if (!json_is_true(json_object_get(r, "ok"))) {
			snprintf(code, len, "%s",
			         json_string_value(json_object_get(json_object_get(r, "error"), "code")));
			free(all);
			return NULL;
		}
		const char *t = json_string_value(json_object_get(r, "pgn"));
		ck_assert_ptr_nonnull(t);
		size_t tl = strlen(t);
		all = realloc(all, cap += tl);
		memcpy(all + n, t, tl + 1);
		n += tl;
		json_t *next = json_object_get(r, "next");
		if (next == NULL)
			break;
		from = json_integer_value(next);
	}
	return all;
}

/* Apply one action to the local referee, asserting the referee took it. */
static void apply(struct referee *r, const struct action *a, struct evlist *out)
{
	char label[96];

	action_label(a, label, sizeof label);
	int st = referee_apply(r, a, out);
	ck_assert_msg(st == REF_OK, "local replay refused %s (%s): %s", label,
	              a->color == WHITE ? "white" : a->color == BLACK ? "black" : "-",
	              referee_error(r));
}

/* A referee of `rules` after begin + acts[0..n); every event announced on
 * the way appended to keep, if given. */
static struct referee *replay(const char *rules, const struct action *acts, size_t n,
                              struct evlist *keep)
{
	char err[128];
	const struct ruleset *rs = ruleset_find(rules);
	ck_assert_ptr_nonnull(rs);
	struct referee *r = referee_new(rs, NULL, err, sizeof err);
	ck_assert_ptr_nonnull(r);
	struct evlist out;
	evlist_init(&out);
	struct action begin;
	kg_action(&begin, ACTION_BEGIN, -1, "");
	for (size_t i = 0; i <= n; i++) {
		apply(r, i == 0 ? &begin : &acts[i - 1], &out);
		if (keep != NULL)
			for (size_t k = 0; k < out.n; k++)
				evlist_push(keep, &out.v[k]);
		evlist_clear(&out);
	}
	evlist_free(&out);
	return r;
}

json_t *kg_expected(const char *rules, const struct action *acts, size_t n, int64_t game,
                    unsigned aud)
{
	char err[128];
	const struct ruleset *rs = ruleset_find(rules);
	ck_assert_ptr_nonnull(rs);
	struct referee *r = referee_new(rs, NULL, err, sizeof err);
	ck_assert_ptr_nonnull(r);
	struct evlist out;
	evlist_init(&out);
	struct action begin;
	kg_action(&begin, ACTION_BEGIN, -1, "");
	json_t *arr = json_array();
	for (size_t i = 0; i <= n; i++) {
		const struct action *a = i == 0 ? &begin : &acts[i - 1];
		apply(r, a, &out);
		for (size_t k = 0; k < out.n; k++) {
			if (!(out.v[k].audience & aud))
				continue;
			struct event told = out.v[k];   /* as sent: event_told's audience */
			told.audience = (uint8_t)event_told(&out, k);
			json_t *j = event_to_json(&told, rs, -1);
			ck_assert_ptr_nonnull(j);
			json_object_set_new(j, "game", json_integer((json_int_t)game));
			/* The server's additions, stated here on their own (announce.h):
			 * a game_over's final position and an umpire's reason. */
			if (out.v[k].type == EV_GAME_OVER) {
				char fen[FEN_MAX];
				struct action_umpire u;
				fen_format(referee_board(r), fen, sizeof fen);
				json_object_set_new(j, "fen", json_string(fen));
				if ((a->kind == ACTION_ADJUDGE || a->kind == ACTION_UABORT) &&
				    action_umpire_parse(a, &u) == REF_OK)
					json_object_set_new(j, "note", json_string(u.reason));
			}
			json_array_append_new(arr, j);
		}
		evlist_clear(&out);
	}
	evlist_free(&out);
	referee_free(r);
	return arr;
}

int kg_random_try(const char *rules, const struct action *acts, size_t n, unsigned *seed,
                  struct action *out)
{
	struct referee *r = replay(rules, acts, n, NULL);
	int color = -1;
	if (!referee_over(r)) {
		struct movelist ml;
		color = referee_side_to_move(r);
		referee_possible(r, color, &ml);
		ck_assert_int_gt(ml.n, 0);
		char buf[NOTATION_MAX];
		notation_uci(ml.m[rand_r(seed) % (unsigned)ml.n], buf);
		kg_action(out, ACTION_TRY, color, buf);
	}
	referee_free(r);
	return color;
}

int kg_over(const char *rules, const struct action *acts, size_t n)
{
	struct referee *r = replay(rules, acts, n, NULL);
	int over = referee_over(r);
	referee_free(r);
	return over;
}

const char *kg_kriegd_path(void)
{
	const char *p = getenv("KRIEGD");

	if (p != NULL && *p != '\0')
		return p;
	if (access("build/asan/bin/kriegd", X_OK) == 0)
		return "build/asan/bin/kriegd";
	return "bin/kriegd";
}

int kg_run_kriegd(char *const argv[], int timeout_ms, char *out, size_t outlen)
{
	return kg_run_kriegd_input(argv, NULL, timeout_ms, out, outlen);
}

int kg_run_kriegd_input(char *const argv[], const char *input, int timeout_ms, char *out,
                        size_t outlen)
{
	char logpath[] = "/tmp/kg-run-XXXXXX", inpath[] = "/tmp/kg-in-XXXXXX";
	int fd = mkstemp(logpath), in = -1;
	ck_assert_int_ge(fd, 0);
	if (input != NULL) {
		in = mkstemp(inpath);
		ck_assert_int_ge(in, 0);
		ck_assert(write(in, input, strlen(input)) == (ssize_t)strlen(input));
		lseek(in, 0, SEEK_SET);
	}
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *args[32];
		int i = 0;
		args[i++] = (char *)kg_kriegd_path();
		for (int k = 1; argv[k] != NULL && i < 31; k++)
			args[i++] = argv[k];
		args[i] = NULL;
		if (in >= 0) {
			dup2(in, 0);
			setsid();
		}
		dup2(fd, 1);
		dup2(fd, 2);
		execv(args[0], args);
		_exit(127);
	}
	if (in >= 0) {
		close(in);
		unlink(inpath);
	}
	int status = 0, waited = 0, rc = -1;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid) {
			rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			break;
		}
		if (waited >= timeout_ms) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		kt_sleep_ms(10);
		waited += 10;
	}
	ssize_t got = pread(fd, out, outlen - 1, 0);
	out[got > 0 ? got : 0] = '\0';
	close(fd);
	unlink(logpath);
	return rc;
}

int kg_user_argv(struct kd *d, const char *input, char *out, size_t outlen,
                 const char *const args[])
{
	char *argv[32] = { "kriegd", "--state-dir", (char *)kd_state_dir(d) };
	char spill[1024];
	int n = 3;

	/* The daemon's config: its password_cost is the cost of what user add
	 * and passwd hash (KD_BASE_CONFIG). */
	if (kd_config_path(d) != NULL) {
		argv[n++] = "--config";
		argv[n++] = (char *)kd_config_path(d);
	}
	argv[n++] = "user";

	for (int k = 0; args[k] != NULL; k++) {
		ck_assert_int_lt(n, 28);
		argv[n++] = (char *)args[k];
	}
	argv[n] = NULL;
	if (out == NULL) {
		out = spill;
		outlen = sizeof spill;
	}
	return kg_run_kriegd_input(argv, input != NULL ? input : "", KG_USER_TIMEOUT_MS, out,
	                           outlen);
}

void kg_user_add(struct kd *d, const char *name, const char *role, const char *password)
{
	char input[256], out[1024];

	snprintf(input, sizeof input, "%s\n", password);
	int rc = kg_user(d, input, out, sizeof out, "add", name, "--role", role, "--password-stdin");
	ck_assert_msg(rc == 0, "user add %s: exit %d: %s", name, rc, out);
}

struct kc *kg_login(struct kd *d, const char *name, const char *password, char *token,
                    size_t len)
{
	struct kc *c = kc_hello(d);
	json_t *r = kc_ok(c, kc_req(c, "login", "{s:s, s:s}", "user", name, "password", password));
	ck_assert_ptr_null(json_object_get(r, "must_change_password"));
	if (token != NULL)
		snprintf(token, len, "%s", json_string_value(json_object_get(r, "token")));
	return c;
}

void kp_login(struct kd *d, struct kp *p, const char *name, const char *password)
{
	p->c = kg_login(d, name, password, NULL, 0);
	snprintf(p->name, sizeof p->name, "%s", name);
}

struct sqlite3 *kg_held_in_turn(struct kd *d, struct kp *p1, int64_t g1, const char *m1,
                                struct kp *p2, int64_t g2, const char *m2, long long ids[2])
{
	struct sqlite3 *lock = kd_lock_db(d);
	int moves = kg_reads(d, "move");
	ids[0] = kc_req(p1->c, "move", "{s:I, s:s}", "game", (json_int_t)g1, "move", m1);
	kg_read(d, "move", moves);   /* read before m2 (another connection): with the writer, held */
	ids[1] = kc_req(p2->c, "move", "{s:I, s:s}", "game", (json_int_t)g2, "move", m2);
	kg_read(d, "move", moves + 1);   /* in the next commit, before what the caller sends */
	return lock;
}

/* The debug line dispatch logs for a request of type, read and run. */
static void read_needle(char *buf, size_t len, const char *type)
{
	snprintf(buf, len, " request type=%s\n", type);
}

int kg_reads(struct kd *d, const char *type)
{
	char needle[64];
	read_needle(needle, sizeof needle, type);
	return kd_log_count(d, needle);
}

void kg_read(struct kd *d, const char *type, int before)
{
	char needle[64];
	read_needle(needle, sizeof needle, type);
	ck_assert_msg(kd_log_wait_count(d, needle, before, KC_TIMEOUT_MS),
	              "the daemon never read request %s #%d (log_level = debug?)", type, before + 1);
}

int64_t kg_noted_game(struct kd *d, struct kp *w, struct kp *b, struct kp *u, int notes)
{
	int64_t game = kg_new_game(w, b);
	kc_ok(w->c, kc_req(w->c, "move", "{s:I, s:s}", "game", (json_int_t)game, "move", "e4"));
	kc_ok(u->c, kc_req(u->c, "umpire", "{s:I}", "game", (json_int_t)game));
	kg_notes(u, game, notes);
	return game;
}

void kg_notes(struct kp *u, int64_t game, int notes)
{
	for (int k = 0; k < notes; k += 100) {
		long long ids[100];
		int n = notes - k < 100 ? notes - k : 100;
		for (int i = 0; i < n; i++) {
			char text[16];
			snprintf(text, sizeof text, "n%d", k + i);
			ids[i] = kc_req(u->c, "note", "{s:I, s:s, s:b}", "game", (json_int_t)game, "text",
			                text, "public", (k + i) % 3 != 0);
		}
		for (int i = 0; i < n; i++)
			kc_ok(u->c, ids[i]);
	}
}

int64_t kg_long_record(struct kd *d, const char *umpire, int notes)
{
	struct kp w, b, u;

	kp_guest(d, &w);
	kp_guest(d, &b);
	kg_user_add(d, umpire, "umpire", "sesame-open");
	kp_login(d, &u, umpire, "sesame-open");
	int64_t game = kg_noted_game(d, &w, &b, &u, notes);
	kc_close(u.c);
	kc_ok(w.c, kc_req(w.c, "resign", "{s:I}", "game", (json_int_t)game));
	kc_close(w.c);
	kc_close(b.c);
	return game;
}
