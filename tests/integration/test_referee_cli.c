/*
 * test_referee_cli.c — the krieg-referee binary end to end: a child process
 * fed from a temporary file, its stdout and stderr captured, every run
 * bounded by RUN_TIMEOUT_MS.
 *
 *   icc_short_game          e4 d5 exd5: one JSON object per line, the exact
 *                           announcements of proto/PROTOCOL.md
 *   pov_filters             --pov P prints exactly the lines whose audience
 *                           holds P; black never sees White's moves or tries
 *   bad_input_changes_nothing  refused lines are error events and the game
 *                           goes on exactly as without them
 *   nul_and_keyword_words_refused  a line holding a NUL byte, and a
 *                           keyword with words after it ("draw please"),
 *                           are refused whole, saying why (topgn skips them)
 *   draw_offers_as_kriegd   "draw" is kriegd's: an offer, accepted by the
 *                           opponent's offering back, lapsing with its move
 *   rule_sets               every --rules NAME plays a small game, with its
 *                           own announcements; unknown rules and bad FENs
 *                           are exit status 2 with a message
 *   perft_counts            perft 3 = 8902, Kiwipete perft 2 = 2039
 *   pgn_round_trip          topgn then pgn - gives the direct run's bytes,
 *                           per rule set; tampered PGNs are refused
 *   pgn_several_games       a file of several games replays each in turn;
 *                           a refused one is named, the others printed,
 *                           also after one that does not read
 *   pgn_file_limit_no_game_and_resync  a file past PGN_INPUT_MAX is
 *                           refused, one of no game too; a first game that
 *                           does not read leaves the next replayed
 *   nost_lists_and_quiet    preference lists, all_illegal, illegal_count,
 *                           "if quiet" sequences and their stop
 *   ep_suffix_and_resign_side  "exd6 e.p." is one move; "resign white|black"
 *                           for either side, replayed from its PGN
 *   help_names_every_documented_option  every option krieg-referee(1)
 *                           names is in --help
 *
 * $KRIEG_REFEREE names the binary (set by `make integration`); else
 * build/asan/bin/krieg-referee, else bin/krieg-referee.
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "check_main.h"
#include "harness.h"
#include "pgn.h"
#include "proto.h"
#include "../unit/srcfile.h"

#define RUN_TIMEOUT_MS 20000
#define ARGS_MAX 16

static const char *referee_bin(void)
{
	const char *p = getenv("KRIEG_REFEREE");
	if (p != NULL && *p != '\0')
		return p;
	if (access("build/asan/bin/krieg-referee", X_OK) == 0)
		return "build/asan/bin/krieg-referee";
	return "bin/krieg-referee";
}

/* An unlinked temporary file holding len bytes of text, positioned at 0. */
static int temp_fd_n(const char *text, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	char path[256];
	snprintf(path, sizeof path, "%s/krieg-ref-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
	unlink(path);
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);
		ck_assert_msg(w > 0, "write: %s", strerror(errno));
		off += (size_t)w;
	}
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* An unlinked temporary file holding text (or empty), positioned at 0. */
static int temp_fd(const char *text)
{
	return temp_fd_n(text, text ? strlen(text) : 0);
}

static char *slurp_fd(int fd)
{
	off_t n = lseek(fd, 0, SEEK_END);
	ck_assert_int_ge(n, 0);
	char *s = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(s);
	ssize_t got = pread(fd, s, (size_t)n, 0);
	ck_assert_int_eq(got, n);
	s[n] = '\0';
	return s;
}

struct run {
	int status;   /* exit status, or 128 + signal */
	char *out;
	char *err;
};

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

/* Run krieg-referee with args (NULL-terminated) and len bytes of input
 * (NUL bytes too) on stdin. */
static void ref_run_n(struct run *r, const char *const *args, const char *input, size_t len)
{
	int in = temp_fd_n(input, len), out = temp_fd(NULL), err = temp_fd(NULL);
	char *argv[ARGS_MAX + 2];
	int n = 0;
	argv[n++] = (char *)referee_bin();
	for (; args != NULL && args[n - 1] != NULL; n++) {
		ck_assert_int_lt(n, ARGS_MAX + 1);
		argv[n] = (char *)args[n - 1];
	}
	argv[n] = NULL;

	pid_t parent = getpid();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(in, 0);
		dup2(out, 1);
		dup2(err, 2);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int status = 0, waited = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (waited >= RUN_TIMEOUT_MS) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			ck_abort_msg("krieg-referee did not finish within %d ms", RUN_TIMEOUT_MS);
		}
		kt_sleep_ms(2);
		waited += 2;
	}
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	r->out = slurp_fd(out);
	r->err = slurp_fd(err);
	close(in);
	close(out);
	close(err);
	ck_assert_msg(strstr(r->err, "Sanitizer") == NULL && strstr(r->err, "runtime error") == NULL,
	              "sanitizer report:\n%s", r->err);
	ck_assert_msg(r->status != 127, "could not run %s: %s", argv[0], r->err);
}

/* Run krieg-referee with args (NULL-terminated) and input on stdin. */
static void ref_run(struct run *r, const char *const *args, const char *input)
{
	ref_run_n(r, args, input, input ? strlen(input) : 0);
}

/* Run and assert exit status 0; returns stdout (free it). */
static char *ref_ok(const char *const *args, const char *input)
{
	struct run r;
	ref_run(&r, args, input);
	ck_assert_msg(r.status == 0, "krieg-referee exited %d:\n%s", r.status, r.err);
	free(r.err);
	return r.out;
}

static bool audience_has(json_t *o, const char *who)
{
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(o, "audience"), i, v)
		if (strcmp(json_string_value(v), who) == 0)
			return true;
	return false;
}

/*
 * Every line of out as a JSON object, checked for the shape all lines
 * share: "event" a string; an error has a code and a message and no
 * audience; every other line has a non-empty audience of known names
 * without repeats, a ply, and "by" (if any) white or black.
 */
static json_t *parse_lines(const char *out)
{
	static const char *const names[] = { "white", "black", "umpire", "spectator" };
	json_t *arr = json_array();
	const char *p = out;
	ck_assert_msg(*out == '\0' || out[strlen(out) - 1] == '\n', "last line unterminated");
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = (size_t)(nl - p);
		json_error_t je;
		json_t *o = json_loadb(p, len, JSON_REJECT_DUPLICATES, &je);
		ck_assert_msg(json_is_object(o), "not a JSON object: %.*s (%s)", (int)len, p, je.text);
		const char *ev = json_string_value(json_object_get(o, "event"));
		ck_assert_msg(ev != NULL, "no event: %.*s", (int)len, p);
		if (strcmp(ev, "error") == 0) {
			ck_assert(json_is_string(json_object_get(o, "code")));
			ck_assert(json_is_string(json_object_get(o, "message")));
			ck_assert(json_object_get(o, "audience") == NULL);
		} else if (strcmp(ev, "possible") != 0) {
			json_t *aud = json_object_get(o, "audience");
			ck_assert_msg(json_is_array(aud) && json_array_size(aud) > 0, "audience: %.*s",
			              (int)len, p);
			unsigned seen = 0;
			size_t i;
			json_t *v;
			json_array_foreach(aud, i, v) {
				unsigned bit = 0;
				for (unsigned k = 0; k < 4; k++)
					if (json_is_string(v) && strcmp(json_string_value(v), names[k]) == 0)
						bit = 1u << k;
				ck_assert_msg(bit != 0 && !(seen & bit), "bad audience: %.*s", (int)len, p);
				seen |= bit;
			}
			ck_assert(json_is_integer(json_object_get(o, "ply")));
			json_t *by = json_object_get(o, "by");
			ck_assert(by == NULL || (json_is_string(by) &&
			                         (strcmp(json_string_value(by), "white") == 0 ||
			                          strcmp(json_string_value(by), "black") == 0)));
			ck_assert(json_object_get(o, "game") == NULL);
		}
		json_array_append_new(arr, o);
		p = nl + 1;
	}
	return arr;
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static bool is(json_t *o, const char *event, const char *by)
{
	return strcmp(str(o, "event"), event) == 0 && (by == NULL || strcmp(str(o, "by"), by) == 0);
}

static size_t count_events(json_t *arr, const char *event, const char *by)
{
	size_t i, n = 0;
	json_t *o;
	json_array_foreach(arr, i, o)
		n += is(o, event, by);
	return n;
}

/* The "san" of every umpire_move, space-separated. */
static void umpire_sans(json_t *arr, char *buf, size_t len)
{
	size_t i, off = 0;
	json_t *o;
	buf[0] = '\0';
	json_array_foreach(arr, i, o) {
		if (!is(o, "umpire_move", NULL))
			continue;
		int k = snprintf(buf + off, len - off, "%s%s", off ? " " : "", str(o, "san"));
		ck_assert(k > 0 && (size_t)k < len - off);
		off += (size_t)k;
	}
}

/* The lines of out whose audience holds who (byte for byte). */
static char *filter_lines(const char *out, const char *who)
{
	char *res = calloc(1, strlen(out) + 1), *q = res;
	char needle[32];
	ck_assert_ptr_nonnull(res);
	snprintf(needle, sizeof needle, "\"%s\"", who);
	for (const char *p = out; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = (size_t)(nl - p) + 1;
		const char *aud = strstr(p, "\"audience\":[");
		if (aud != NULL && aud < nl) {
			const char *end = strchr(aud, ']');
			char *cut = strndup(aud, (size_t)(end - aud));
			if (strstr(cut, needle)) {
				memcpy(q, p, len);
				q += len;
			}
			free(cut);
		}
		p += len;
	}
	return res;
}

/* out without its error lines. */
static char *drop_errors(const char *out, size_t *nerr)
{
	char *res = calloc(1, strlen(out) + 1), *q = res;
	ck_assert_ptr_nonnull(res);
	*nerr = 0;
	for (const char *p = out; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = (size_t)(nl - p) + 1;
		if (strncmp(p, "{\"event\":\"error\"", 16) == 0) {
			(*nerr)++;
		} else {
			memcpy(q, p, len);
			q += len;
		}
		p += len;
	}
	return res;
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NOARGS ((const char *const[]){ NULL })

/* ------------------------------------------------------------------------- */

START_TEST(icc_short_game)
{
	/* proto/PROTOCOL.md, "Announcements": 1.e4 d5 2.exd5 under icc. */
	static const char *const want[] = {
		"{\"event\":\"pawn_tries\",\"by\":\"white\",\"ply\":2,\"audience\":[\"white\",\"black\",\"umpire\",\"spectator\"],\"count\":1,\"say\":\"White has 1 pawn try\"}",
		"{\"event\":\"move\",\"by\":\"white\",\"ply\":3,\"audience\":[\"white\"],\"move\":\"e4d5\",\"san\":\"exd5\",\"say\":\"White played exd5\"}",
		"{\"event\":\"moved\",\"by\":\"white\",\"ply\":3,\"audience\":[\"black\",\"spectator\"],\"say\":\"White has moved\"}",
		"{\"event\":\"umpire_move\",\"by\":\"white\",\"ply\":3,\"audience\":[\"umpire\"],\"move\":\"e4d5\",\"san\":\"exd5\",\"say\":\"White played exd5\"}",
		"{\"event\":\"capture\",\"by\":\"white\",\"ply\":3,\"audience\":[\"white\",\"black\",\"umpire\",\"spectator\"],\"square\":\"d5\",\"what\":\"pawn\",\"say\":\"Pawn captured on d5\"}",
		"{\"event\":\"pawn_tries\",\"by\":\"black\",\"ply\":3,\"audience\":[\"white\",\"black\",\"umpire\",\"spectator\"],\"count\":0,\"say\":\"Black has 0 pawn tries\"}",
	};
	char *out = ref_ok(NOARGS, "e4\nd5\nexd5\n");
	json_t *ev = parse_lines(out);

	/* 1 opening count + 3 moves x (move, moved, umpire_move, next count) + capture */
	ck_assert_int_eq(json_array_size(ev), 14);
	ck_assert_int_eq(count_events(ev, "error", NULL), 0);
	char sans[128];
	umpire_sans(ev, sans, sizeof sans);
	ck_assert_str_eq(sans, "e4 d5 exd5");
	json_t *first = json_array_get(ev, 0);
	ck_assert(is(first, "pawn_tries", "white"));
	ck_assert_int_eq(json_integer_value(json_object_get(first, "ply")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(first, "count")), 0);

	/* The last six lines, byte for byte. */
	const char *p = out;
	for (int skip = 0; skip < 8; skip++)
		p = strchr(p, '\n') + 1;
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const char *nl = strchr(p, '\n');
		ck_assert_ptr_nonnull(nl);
		ck_assert_msg(strlen(want[i]) == (size_t)(nl - p) && strncmp(p, want[i], (size_t)(nl - p)) == 0,
		              "line %zu:\n got  %.*s\n want %s", i + 9, (int)(nl - p), p, want[i]);
		p = nl + 1;
	}
	ck_assert_str_eq(p, "");
	json_decref(ev);
	free(out);
}
END_TEST

/* White tries an illegal and an impossible move, captures and checks. */
static const char pov_script[] =
    "e4\ne5\ne4e5\nd1d3\nQh5\nNc6\nBc4\nNf6\nQxf7\n";

/* A refused line's words are its mover's ("no own queen can move to
 * e3"): under --pov, the other side's view prints nothing of it (Black
 * read White's queen try: referee probe). */
START_TEST(pov_refusals_are_the_movers)
{
	char *out = ref_ok(ARGS("--pov", "black"), "e4\nd5\nQe3\n");
	ck_assert_msg(strstr(out, "\"error\"") == NULL && strstr(out, "queen") == NULL, "%s", out);
	free(out);
	out = ref_ok(ARGS("--pov", "spectator"), "e4\nd5\nQe3\n");
	ck_assert_msg(strstr(out, "\"error\"") == NULL, "%s", out);
	free(out);
	out = ref_ok(ARGS("--pov", "white"), "e4\nd5\nQe3\n");
	ck_assert_msg(strstr(out, "no own queen can move to e3") != NULL, "%s", out);
	free(out);
	out = ref_ok(ARGS("--pov", "umpire"), "e4\nd5\nQe3\n");
	ck_assert_msg(strstr(out, "no own queen can move to e3") != NULL, "%s", out);
	free(out);
}
END_TEST

/* Output that could not be written, or input that could not be read, is
 * exit 1 and said, not a quiet success with a truncated record; a usage
 * error says what was wrong before the usage (referee probe). */
START_TEST(output_and_usage_errors)
{
	const char *bin = referee_bin();
	ck_assert_int_eq(kt_sh("%s perft 1 > /dev/full 2>/dev/null", bin), 1);
	ck_assert_int_eq(kt_sh("printf 'e4\\n' | %s topgn > /dev/full 2>/dev/null", bin), 1);
	ck_assert_int_eq(kt_sh("printf 'e4\\n' | %s > /dev/full 2>/dev/null", bin), 1);
	ck_assert_int_eq(kt_sh("%s topgn < / > /dev/null 2>&1", bin), 1);
	ck_assert_int_eq(kt_sh("%s < / > /dev/null 2>&1", bin), 1);

	struct run r = { 0 };
	const struct {
		const char *const *args;
		const char *says;
	} bad[] = {
		{ ARGS("--bogus"), "krieg-referee: unknown option '--bogus'\nusage:" },
		{ ARGS("extra"), "krieg-referee: unexpected word 'extra'\nusage:" },
		{ ARGS("--rules"), "krieg-referee: a value is needed after '--rules'\nusage:" },
		{ ARGS("--pov", "foo"), "--pov is white, black, umpire or spectator, not 'foo'\nusage:" },
		{ ARGS("pgn", "--pov", "foo", "-"), "--pov is white, black, umpire or spectator, not 'foo'\nusage:" },
		{ ARGS("pgn", "--bogus", "-"), "krieg-referee: unknown option '--bogus'\nusage:" },
		{ ARGS("pgn", "a", "b"), "krieg-referee: unexpected word 'b'\nusage:" },
		{ ARGS("pgn"), "krieg-referee: pgn needs a FILE (- for standard input)\nusage:" },
		{ ARGS("topgn", "--white"), "krieg-referee: a value is needed after '--white'\nusage:" },
		{ ARGS("topgn", "--view", "foo"), "--view is white, black, umpire or spectator, not 'foo'\nusage:" },
		{ ARGS("topgn", "--bogus", "x"), "krieg-referee: unknown option '--bogus'\nusage:" },
		{ ARGS("topgn", "extra"), "krieg-referee: unexpected word 'extra'\nusage:" },
		{ ARGS("topgn", "--rules", "zz"), "unknown rule set \"zz\" (icc, english," },
		/* (the second PGN probe) a date PGN cannot hold; the word after --version */
		{ ARGS("topgn", "--date", "yesterday"), "--date is YYYY.MM.DD (a part unknown: ?\?), not 'yesterday'" },
		{ ARGS("topgn", "--date", "2026.13.45"), "not '2026.13.45'" },
		{ ARGS("topgn", "--date", "2026.1?.?\?"), "not '2026.1?.?\?'" },
		{ ARGS("--version", "extra"), "krieg-referee: unexpected word 'extra'\nusage:" },
		{ ARGS("perft"), "krieg-referee: perft needs a DEPTH\nusage:" },
		{ ARGS("perft", "1", "8/8/8/8/8/8/8/K6k w - - 0 1", "x"), "krieg-referee: unexpected word 'x'\nusage:" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ref_run(&r, bad[i].args, "");
		ck_assert_int_eq(r.status, 2);
		ck_assert_msg(strstr(r.err, bad[i].says) != NULL, "%s", r.err);
		run_free(&r);
	}
}
END_TEST

START_TEST(pov_filters)
{
	static const char *const povs[] = { "white", "black", "umpire", "spectator" };
	char *all = ref_ok(NOARGS, pov_script);
	json_t *ev = parse_lines(all);
	ck_assert_int_eq(count_events(ev, "illegal", "white"), 1);
	ck_assert_int_eq(count_events(ev, "impossible", "white"), 1);
	ck_assert_int_eq(count_events(ev, "check", "white"), 1);
	json_t *over = json_array_get(ev, json_array_size(ev) - 1);
	ck_assert(is(over, "game_over", "white"));
	ck_assert_str_eq(str(over, "reason"), "checkmate");
	ck_assert_str_eq(str(over, "result"), "1-0");
	json_decref(ev);

	for (size_t k = 0; k < 4; k++) {
		char *out = ref_ok(ARGS("--pov", povs[k]), pov_script);
		char *want = filter_lines(all, povs[k]);
		ck_assert_msg(strcmp(out, want) == 0, "--pov %s is not the %s lines of the full run",
		              povs[k], povs[k]);
		json_t *mine = parse_lines(out);
		size_t i;
		json_t *o;
		json_array_foreach(mine, i, o)
			ck_assert(audience_has(o, povs[k]));
		json_decref(mine);
		free(want);
		free(out);
	}

	/* Black's view: nothing of White's moves or tries. */
	char *out = ref_ok(ARGS("--pov", "black"), pov_script);
	json_t *b = parse_lines(out);
	size_t i;
	json_t *o;
	json_array_foreach(b, i, o) {
		if (strcmp(str(o, "by"), "white") != 0)
			continue;
		ck_assert_msg(!is(o, "move", NULL) && !is(o, "umpire_move", NULL) &&
		              !is(o, "illegal", NULL) && !is(o, "impossible", NULL),
		              "black got White's %s", str(o, "event"));
		ck_assert(json_object_get(o, "move") == NULL && json_object_get(o, "san") == NULL);
	}
	ck_assert_int_eq(count_events(b, "moved", "white"), 4);
	ck_assert_int_eq(count_events(b, "move", "black"), 3);
	ck_assert_ptr_null(strstr(out, "e4e5"));
	ck_assert_ptr_null(strstr(out, "d1d3"));
	ck_assert_ptr_null(strstr(out, "Qh5"));
	ck_assert_ptr_null(strstr(out, "Illegal"));
	ck_assert_ptr_null(strstr(out, "Impossible"));
	json_decref(b);
	free(out);

	/* A spectator gets no move at all. */
	out = ref_ok(ARGS("--pov", "spectator"), pov_script);
	ck_assert_ptr_null(strstr(out, "\"move\":"));
	ck_assert_ptr_null(strstr(out, "\"san\":"));
	free(out);
	free(all);

	struct run r;
	ref_run(&r, ARGS("--pov", "referee"), "e4\n");
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(r.out, "");
	run_free(&r);
}
END_TEST

START_TEST(bad_input_changes_nothing)
{
	static const char clean[] = "e4\nd5\nexd5\nQxd5\nNc3\nresign\n";
	char long_line[1500];
	memset(long_line, 'a', sizeof long_line - 1);
	long_line[sizeof long_line - 1] = '\0';
	char dirty[4096];
	/* 9 refused lines: syntax, no piece, a list and a quiet outside nost,
	 * "any" where icc has none, binary junk, a line over the limit, an
	 * out-of-place keyword, and a move after the end. */
	snprintf(dirty, sizeof dirty,
	         "hello\ne4\nNf3\nd5\ne4 d4\nexd5\nquiet Qd5\nany\nQxd5\n\x01\xff\xfe\n%s\n"
	         "Nc3\nO-O-O-O\nresign\ne4\n",
	         long_line);
	char *want = ref_ok(NOARGS, clean);
	char *got = ref_ok(NOARGS, dirty);
	size_t nerr;
	char *kept = drop_errors(got, &nerr);
	ck_assert_msg(strcmp(kept, want) == 0, "the refused lines changed the game:\n%s\nvs\n%s",
	              kept, want);
	ck_assert_int_eq(nerr, 9);

	json_t *ev = parse_lines(got);
	size_t i;
	json_t *o;
	int errors = 0;
	json_array_foreach(ev, i, o) {
		if (!is(o, "error", NULL))
			continue;
		const char *code = str(o, "code");
		ck_assert_msg(strcmp(code, "notation") == 0 || strcmp(code, "illegal_action") == 0 ||
		              strcmp(code, "bad_request") == 0 || strcmp(code, "game_over") == 0 ||
		              strcmp(code, "not_your_turn") == 0, "code %s", code);
		ck_assert_str_ne(str(o, "message"), "");
		errors++;
	}
	ck_assert_int_eq(errors, 9);
	/* The first refused line is answered at once, after the opening count. */
	ck_assert(is(json_array_get(ev, 1), "error", NULL));
	ck_assert_str_eq(str(json_array_get(ev, 1), "code"), "notation");
	/* The last: the game is over. */
	ck_assert_str_eq(str(json_array_get(ev, json_array_size(ev) - 1), "code"), "game_over");
	json_decref(ev);
	free(kept);
	free(got);

	/* A refusal answers the line just read to the side that acted (and
	 * the umpire): White's, not Black's (pov_refusals_are_the_movers). */
	got = ref_ok(ARGS("--pov", "white"), "Nf6\ne4\n");
	ev = parse_lines(got);
	ck_assert(is(json_array_get(ev, 1), "error", NULL));
	ck_assert_int_eq(count_events(ev, "error", NULL), 1);
	json_decref(ev);
	free(got);
	got = ref_ok(ARGS("--pov", "black"), "Nf6\ne4\n");
	ev = parse_lines(got);
	ck_assert_int_eq(count_events(ev, "error", NULL), 0);
	ck_assert_int_eq(count_events(ev, "moved", "white"), 1);
	json_decref(ev);
	free(got);
	free(want);
}
END_TEST

/* A line holding a NUL byte was cut there and played ("e4\0garbage" was
 * e4), and a keyword with words after it ("draw please") was read as a
 * preference list and refused as "this rule set takes one move at a
 * time".  Both are refused whole, saying what is wrong; nothing changes. */
START_TEST(nul_and_keyword_words_refused)
{
	static const char dirty[] = "e4\0garbage\ndraw please\nany x\npossible now\n"
	                            "resign white now\nd4\n";
	static const char *const why[] = {
		"line holds a NUL byte", "draw takes white or black", "any takes nothing after it",
		"possible takes nothing after it", "resign takes white or black",
	};
	struct run r;
	ref_run_n(&r, NOARGS, dirty, sizeof dirty - 1);
	ck_assert_int_eq(r.status, 0);
	char *want = ref_ok(NOARGS, "d4\n");
	size_t nerr;
	char *kept = drop_errors(r.out, &nerr);
	ck_assert_msg(strcmp(kept, want) == 0, "the refused lines changed the game:\n%s\nvs\n%s",
	              kept, want);
	ck_assert_uint_eq(nerr, sizeof why / sizeof why[0]);
	json_t *ev = parse_lines(r.out);
	size_t i, k = 0;
	json_t *o;
	json_array_foreach(ev, i, o) {
		if (!is(o, "error", NULL))
			continue;
		ck_assert_str_eq(str(o, "code"), "bad_request");
		ck_assert_str_eq(str(o, "message"), why[k]);
		k++;
	}
	json_decref(ev);
	free(kept);
	free(want);
	run_free(&r);

	/* topgn skips such lines, saying why: only d4 is recorded. */
	ref_run_n(&r, ARGS("topgn"), dirty, sizeof dirty - 1);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "1. d4 {") != NULL && strstr(r.out, "e4") == NULL, "%s", r.out);
	ck_assert_msg(strstr(r.err, "line 1: line holds a NUL byte, skipped") != NULL, "%s", r.err);
	ck_assert_msg(strstr(r.err, "line 2: not an action (draw takes white or black)") != NULL,
	              "%s", r.err);
	run_free(&r);
}
END_TEST

/* "draw" was an agreement with no offer standing, which kriegd never
 * records and `pgn` refuses.  It is kriegd's draw: an offer, which the
 * opponent's offering back accepts; it lapses when the side it was made
 * to moves; what kriegd refuses (an offer made twice) is refused. */
START_TEST(draw_offers_as_kriegd)
{
	char *got = ref_ok(NOARGS, "e4\ndraw\ndraw\ndraw white\n");
	json_t *ev = parse_lines(got);
	ck_assert_int_eq(count_events(ev, "error", NULL), 1);
	/* The offer is heard as kriegd's notice (it printed nothing: the
	 * referee probe), once: the refused second offer is not. */
	ck_assert_int_eq(count_events(ev, "draw_offer", "black"), 1);
	size_t i;
	json_t *o;
	json_array_foreach(ev, i, o) {
		if (is(o, "error", NULL)) {
			ck_assert_str_eq(str(o, "code"), "illegal_action");
			ck_assert_str_eq(str(o, "message"), "your draw offer stands already");
			/* The refused line is named (the third of the input). */
			ck_assert_int_eq(json_integer_value(json_object_get(o, "line")), 3);
		}
		if (is(o, "draw_offer", "black")) {
			ck_assert_int_eq(json_integer_value(json_object_get(o, "ply")), 1);
			ck_assert_str_eq(str(o, "say"), "Black offers a draw");
			ck_assert(audience_has(o, "white") && audience_has(o, "umpire"));
			ck_assert(!audience_has(o, "spectator"));
		}
	}
	o = json_array_get(ev, json_array_size(ev) - 1);
	ck_assert(is(o, "game_over", NULL));
	ck_assert_str_eq(str(o, "reason"), "agreement");
	json_decref(ev);
	free(got);

	/* White's offer lapses with Black's move: White's next "draw" is an
	 * offer again, and the record replays. */
	static const char script[] = "e4\ndraw white\nd5\ndraw\n";
	char *pgn = ref_ok(ARGS("topgn"), script);
	ck_assert_msg(strstr(pgn, "end agreement") == NULL && strstr(pgn, "Result \"*\""), "%s", pgn);
	char *replay = ref_ok(ARGS("pgn", "-"), pgn);
	char *direct = ref_ok(NOARGS, script);
	ck_assert_str_eq(replay, direct);   /* the notices too */
	ev = parse_lines(direct);
	ck_assert_int_eq(count_events(ev, "draw_offer", "white"), 2);
	json_decref(ev);
	free(replay);
	free(direct);
	/* The players and the umpire hear an offer; a spectator does not. */
	static const struct {
		const char *pov;
		size_t offers;
	} heard[] = { { "white", 2 }, { "black", 2 }, { "umpire", 2 }, { "spectator", 0 } };
	for (size_t k = 0; k < sizeof heard / sizeof heard[0]; k++) {
		direct = ref_ok(ARGS("--pov", heard[k].pov), script);
		replay = ref_ok(ARGS("pgn", "--pov", heard[k].pov, "-"), pgn);
		ck_assert_str_eq(replay, direct);
		ev = parse_lines(direct);
		ck_assert_int_eq(count_events(ev, "draw_offer", "white"), heard[k].offers);
		json_decref(ev);
		free(replay);
		free(direct);
	}
	free(pgn);
}
END_TEST

/* An impossible try sent again in the turn is refused as kriegd refuses
 * it (it was ruled again, and told again to the opponent where impossible
 * tries are public: the protocol probe). */
START_TEST(impossible_again_refused_as_kriegd)
{
	char *got = ref_ok(ARGS("--rules", "cincinnati"), "a1a5\nRa1a5\ne4\n");
	json_t *ev = parse_lines(got);
	ck_assert_int_eq(count_events(ev, "error", NULL), 1);
	ck_assert_int_eq(count_events(ev, "impossible", NULL), 2);   /* the mover's copy, the others' */
	size_t i;
	json_t *o;
	json_array_foreach(ev, i, o)
		if (is(o, "error", NULL)) {
			ck_assert_str_eq(str(o, "message"), "that try was refused already this turn");
			ck_assert_int_eq(json_integer_value(json_object_get(o, "line")), 2);
		}
	ck_assert_int_eq(count_events(ev, "move", "white"), 1);
	json_decref(ev);
	free(got);
	/* topgn records what kriegd would (it kept the repeat: a review);
	 * records made before, holding one, still read (fuzz_referee) */
	char *pgn = ref_ok(ARGS("topgn", "--rules", "cincinnati"), "a1a5\nRa1a5\ne4\n");
	ck_assert_msg(strstr(pgn, "a1a5") != NULL && strstr(pgn, "Ra1a5") == NULL, "%s", pgn);
	got = ref_ok(ARGS("pgn", "-"), pgn);
	ev = parse_lines(got);
	ck_assert_int_eq(count_events(ev, "impossible", NULL), 2);
	json_decref(ev);
	free(got);
	free(pgn);
}
END_TEST

/* A Result the record does not reach (another program's record of a
 * resignation, unwritten) replays, and is said (it was silent: the
 * referee probe); a record that ends the game says nothing. */
START_TEST(pgn_result_beyond_the_record_said)
{
	struct run r = { 0 };
	ref_run(&r, ARGS("pgn", "-"), "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n");
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.err, "Result \"1-0\" but the record does not end the game") != NULL, "%s",
	              r.err);
	ck_assert_msg(strstr(r.out, "Black played e5") != NULL, "%s", r.out);
	run_free(&r);
	char *pgn = ref_ok(ARGS("topgn"), "f3\ne5\ng4\nQh4\n");
	ck_assert_msg(strstr(pgn, "Result \"0-1\""), "%s", pgn);
	ref_run(&r, ARGS("pgn", "-"), pgn);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.err, "");
	run_free(&r);
	free(pgn);
}
END_TEST

START_TEST(rule_sets)
{
	static const struct {
		const char *name;
		bool opponent_hears_illegal;   /* a redacted copy of White's refused try */
		const char *turn_event;        /* said at every turn start, if any */
	} rs[] = {
		{ "icc", false, "pawn_tries" },
		{ "english", true, NULL },
		{ "insurance", true, NULL },
		{ "nost", false, "pawn_captures" },
		{ "gollon", true, NULL },
		{ "berkeley", true, NULL },
		{ "berkeley_any", true, NULL },
		{ "cincinnati", true, "pawn_captures" },
		{ "rand", true, "pawn_squares" },
		{ "crazykrieg", true, NULL },
	};
	for (size_t k = 0; k < sizeof rs / sizeof rs[0]; k++) {
		char *out = ref_ok(ARGS("--rules", rs[k].name), "e4\ne5\ne4e5\nNf3\nNc6\n");
		json_t *ev = parse_lines(out);
		char sans[128];
		umpire_sans(ev, sans, sizeof sans);
		ck_assert_msg(strcmp(sans, "e4 e5 Nf3 Nc6") == 0, "%s: moves %s", rs[k].name, sans);
		ck_assert_int_eq(count_events(ev, "error", NULL), 0);
		size_t mover = 0, redacted = 0, i;
		json_t *o;
		json_array_foreach(ev, i, o) {
			if (!is(o, "illegal", "white"))
				continue;
			if (json_object_get(o, "move") != NULL) {
				ck_assert_str_eq(str(o, "move"), "e4e5");
				ck_assert(audience_has(o, "white") && audience_has(o, "umpire"));
				ck_assert(!audience_has(o, "black") && !audience_has(o, "spectator"));
				mover++;
			} else {
				ck_assert(json_object_get(o, "san") == NULL);
				ck_assert(!audience_has(o, "white"));
				ck_assert(audience_has(o, "black"));
				redacted++;
			}
		}
		ck_assert_msg(mover == 1, "%s: %zu mover copies", rs[k].name, mover);
		ck_assert_msg(redacted == (rs[k].opponent_hears_illegal ? 1u : 0u),
		              "%s: %zu redacted copies", rs[k].name, redacted);
		/* 5 turn starts: before each move and after the last. */
		ck_assert_int_eq(count_events(ev, "pawn_tries", NULL),
		                 rs[k].turn_event && strcmp(rs[k].turn_event, "pawn_tries") == 0 ? 5 : 0);
		ck_assert_int_eq(count_events(ev, "pawn_captures", NULL),
		                 rs[k].turn_event && strcmp(rs[k].turn_event, "pawn_captures") == 0 ? 5 : 0);
		ck_assert_int_eq(count_events(ev, "pawn_squares", NULL),
		                 rs[k].turn_event && strcmp(rs[k].turn_event, "pawn_squares") == 0 ? 5 : 0);
		json_decref(ev);
		free(out);
	}

	/* A start position with Black to move. */
	char *out = ref_ok(ARGS("--fen", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
	                   "c5\nNf3\n");
	json_t *ev = parse_lines(out);
	char sans[64];
	umpire_sans(ev, sans, sizeof sans);
	ck_assert_str_eq(sans, "c5 Nf3");
	ck_assert(is(json_array_get(ev, 0), "pawn_tries", "black"));
	json_decref(ev);
	free(out);

	struct run r;
	ref_run(&r, ARGS("--rules", "blitz"), "e4\n");
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(r.out, "");
	ck_assert_msg(strstr(r.err, "unknown rule set \"blitz\"") != NULL, "%s", r.err);
	for (size_t k = 0; k < sizeof rs / sizeof rs[0]; k++)
		ck_assert_msg(strstr(r.err, rs[k].name) != NULL, "usage does not list %s", rs[k].name);
	run_free(&r);

	static const struct {
		const char *fen, *needle;
	} bad[] = {
		{ "8/8/8/8/8/8/8/8 w - - 0 1", "king" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move" },
		{ "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "rank" },
		{ "rnbqkbnr/ppppzppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "'z'" },
		{ "", "empty" },
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		ref_run(&r, ARGS("--fen", bad[k].fen), "e4\n");
		ck_assert_msg(r.status == 2, "--fen '%s': exit %d", bad[k].fen, r.status);
		ck_assert_str_eq(r.out, "");
		ck_assert_msg(strstr(r.err, "FEN") != NULL && strstr(r.err, bad[k].needle) != NULL,
		              "--fen '%s': message does not name the problem: %s", bad[k].fen, r.err);
		run_free(&r);
	}
	ref_run(&r, ARGS("--bogus"), "");
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "usage"));
	run_free(&r);
	/* asked for: on stdout, status 0 (it was a "--bogus" option) */
	ref_run(&r, ARGS("--version"), "");
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "krieg-referee " KRIEG_RELEASE " (protocol 1)\n");
	run_free(&r);
}
END_TEST

static void expect_nodes(const char *const *args, const char *nodes)
{
	char *out = ref_ok(args, "");
	char want[64];
	snprintf(want, sizeof want, "nodes %s\n", nodes);
	ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "perft printed:\n%s\nwanted %s", out,
	              want);
	free(out);
}

START_TEST(perft_counts)
{
	expect_nodes(ARGS("perft", "3"), "8902");
	expect_nodes(ARGS("perft", "0"), "1");
	expect_nodes(ARGS("perft", "2",
	                  "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
	             "2039");
	expect_nodes(ARGS("perft", "3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"), "2812");

	static const char *const bad_depth[] = { "11", "-1", "x", "" };
	struct run r;
	for (size_t k = 0; k < 4; k++) {
		ref_run(&r, ARGS("perft", bad_depth[k]), "");
		ck_assert_msg(r.status == 2, "perft '%s': exit %d", bad_depth[k], r.status);
		ck_assert_ptr_nonnull(strstr(r.err, "depth"));
		run_free(&r);
	}
	ref_run(&r, ARGS("perft", "1", "8/8/8/8/8/8/8/8 w - - 0 1"), "");
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "FEN"));
	run_free(&r);
}
END_TEST

/* Scripts without refused lines (topgn records only accepted actions). */
static const struct {
	const char *rules, *script, *result;
} games[] = {
	{ "icc", "e4\ne5\ne4e5\nd1d3\nQh5\nNc6\nBc4\nNf6\nQxf7\n", "1-0" },
	{ "english", "e4\nd5\nany\nexd5\nany\nQxd5\nNc3\nQe5\nQe2\nQxe2\nBxe2\ndraw\ndraw white\n", "1/2-1/2" },
	{ "insurance", "e4\nd5\nany\nexd5\nany\nQxd5\ne1e3\nNc3\nQe5\nQe2\nQxe2\nBxe2\nresign\n", "1-0" },
	{ "nost", "e4\ne5\na4\na5\ne4e5 a4a5\nd3\nquiet Nc6 Nf6 Bc5\nNf3\nNc3\nresign\n", "0-1" },
	{ "gollon", "e4\nd5\nany\nexd5\nd8d2\nany\nQxd5\nNc3\nQe5\nQe2\nQxe2\nBxe2\n", "*" },
	{ "berkeley", "e4\nd5\nexd5\nQxd5\ne1e3\nNc3\nQe5\nQe2\nQxe2\nBxe2\nresign\n", "1-0" },
	{ "berkeley_any", "e4\nd5\nany\nexd5\nany\nQxd5\nNc3\nQe5\nQe2\nQxe2\nBxe2\ndraw\ndraw white\n", "1/2-1/2" },
	{ "cincinnati", "e4\nd5\nexd5\nQxd5\nf1f3\nNc3\nQe5\nQe2\nQxe2\nBxe2\nresign\n", "1-0" },
	{ "rand", "e4\ne5\nQh5\nNc6\nBc4\nNf6\nexf5\nQe8\nQxf7\n", "1-0" },
	{ "crazykrieg", "e4\nd5\nany\nexd5\nany\nQxd5\nNc3\nQe5\nQe2\nQxe2\nBxe2\nP@d6\nQ@h5\nresign\n", "1-0" },
};

START_TEST(pgn_round_trip)
{
	struct run r;
	char *icc_pgn = NULL;
	for (size_t k = 0; k < sizeof games / sizeof games[0]; k++) {
		const char *rules = games[k].rules;
		char *direct = ref_ok(ARGS("--rules", rules), games[k].script);
		size_t nerr;
		free(drop_errors(direct, &nerr));
		ck_assert_msg(nerr == 0, "%s: the script has refused lines:\n%s", rules, direct);

		char *pgn = ref_ok(ARGS("topgn", "--rules", rules, "--white", "Alice", "--black", "Bob"),
		                   games[k].script);
		char tag[64], res[64];
		snprintf(tag, sizeof tag, "[KriegRules \"%s\"]\n", rules);
		snprintf(res, sizeof res, "[Result \"%s\"]\n", games[k].result);
		ck_assert_msg(strncmp(pgn, "[Event ", 7) == 0 && strstr(pgn, tag) && strstr(pgn, res) &&
		              strstr(pgn, "[White \"Alice\"]") && strstr(pgn, "[Black \"Bob\"]"),
		              "%s: PGN tags:\n%s", rules, pgn);

		char *replay = ref_ok(ARGS("pgn", "-"), pgn);
		ck_assert_msg(strcmp(replay, direct) == 0,
		              "%s: pgn replay differs from the direct run\nPGN:\n%s\nreplay:\n%s\ndirect:\n%s",
		              rules, pgn, replay, direct);
		free(replay);

		char *b_direct = ref_ok(ARGS("--rules", rules, "--pov", "black"), games[k].script);
		char *b_replay = ref_ok(ARGS("pgn", "--pov", "black", "-"), pgn);
		ck_assert_msg(strcmp(b_direct, b_replay) == 0, "%s: --pov black replay differs", rules);
		free(b_direct);
		free(b_replay);

		/* Refused lines in topgn's input are skipped, not recorded. */
		char dirty[1024];
		snprintf(dirty, sizeof dirty, "Nf6\n%szz9\n", games[k].script);
		ref_run(&r, ARGS("topgn", "--rules", rules, "--white", "Alice", "--black", "Bob"), dirty);
		ck_assert_int_eq(r.status, 0);
		ck_assert_msg(strcmp(r.out, pgn) == 0, "%s: refused lines entered the PGN", rules);
		ck_assert_ptr_nonnull(strstr(r.err, "line 1"));
		run_free(&r);

		if (strcmp(rules, "icc") == 0)
			icc_pgn = pgn;
		else
			free(pgn);
		free(direct);
	}

	/* The same from a file. */
	char path[256];
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/krieg-pgn-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, icc_pgn, strlen(icc_pgn)), (ssize_t)strlen(icc_pgn));
	close(fd);
	char *direct = ref_ok(NOARGS, games[0].script);
	char *replay = ref_ok(ARGS("pgn", path), "");
	ck_assert_str_eq(replay, direct);
	free(replay);
	free(direct);
	unlink(path);
	ref_run(&r, ARGS("pgn", path), "");
	ck_assert_int_ne(r.status, 0);
	ck_assert_str_eq(r.out, "");
	ck_assert_ptr_nonnull(strstr(r.err, path));
	run_free(&r);

	/* Tampered records: refused, nothing printed, the move named. */
	static const struct {
		const char *from, *to, *needle;
	} tamper[] = {
		{ "\"Pawn captured on f7\"", "\"Piece captured on f7\"", "Qxf7" },
		{ "[Result \"1-0\"]", "[Result \"0-1\"]", "" },
		{ "(K:e5,d1d3:)", "(K:e5:)", "Qh5" },
		{ "\"Black has 0 pawn tries\"} 2... Nc6", "\"Black has 1 pawn try\"} 2... Nc6", "Qh5" },
		{ "Nf6 {", "Nh6 {", "" },
		{ "\"Check along the short diagonal\"", "\"Check along the long diagonal\"", "Qxf7" },
		{ "[KriegRules \"icc\"]", "[KriegRules \"blitz\"]", "blitz" },
	};
	for (size_t k = 0; k < sizeof tamper / sizeof tamper[0]; k++) {
		char *p = strstr(icc_pgn, tamper[k].from);
		ck_assert_msg(p != NULL, "no '%s' in the PGN:\n%s", tamper[k].from, icc_pgn);
		char *bad = malloc(strlen(icc_pgn) + 64);
		ck_assert_ptr_nonnull(bad);
		sprintf(bad, "%.*s%s%s", (int)(p - icc_pgn), icc_pgn, tamper[k].to,
		        p + strlen(tamper[k].from));
		ref_run(&r, ARGS("pgn", "-"), bad);
		ck_assert_msg(r.status == 1, "tamper %zu: exit %d", k, r.status);
		ck_assert_msg(strcmp(r.out, "") == 0, "tamper %zu printed events", k);
		ck_assert_msg(strstr(r.err, "krieg-referee: -:") != NULL &&
		              strstr(r.err, tamper[k].needle) != NULL,
		              "tamper %zu: message does not name it: %s", k, r.err);
		run_free(&r);
		free(bad);
	}
	/* Cut short inside a comment. */
	char *cut = strndup(icc_pgn, (size_t)(strstr(icc_pgn, "Illegal: e5") - icc_pgn));
	ref_run(&r, ARGS("pgn", "-"), cut);
	ck_assert_int_eq(r.status, 1);
	ck_assert_str_eq(r.out, "");
	ck_assert_str_ne(r.err, "");
	run_free(&r);
	free(cut);
	free(icc_pgn);
}
END_TEST

/* Index of the first event named event by `by` at ply, or -1. */
static long find_at(json_t *ev, const char *event, const char *by, long ply)
{
	size_t i;
	json_t *o;
	json_array_foreach(ev, i, o)
		if (is(o, event, by) && json_integer_value(json_object_get(o, "ply")) == ply)
			return (long)i;
	return -1;
}

START_TEST(nost_lists_and_quiet)
{
	/* A list of two tries illegal on the board: both refused, the turn stays;
	 * then d3, and Black hears "two illegal tries" before "White has moved". */
	char *out = ref_ok(ARGS("--rules", "nost"), "e4\ne5\na4\na5\ne4e5 a4a5\nd3\n");
	json_t *ev = parse_lines(out);
	long i = find_at(ev, "illegal", "white", 4);
	ck_assert_int_ge(i, 0);
	ck_assert_str_eq(str(json_array_get(ev, (size_t)i), "move"), "e4e5");
	ck_assert(is(json_array_get(ev, (size_t)i + 1), "illegal", "white"));
	ck_assert_str_eq(str(json_array_get(ev, (size_t)i + 1), "move"), "a4a5");
	json_t *all = json_array_get(ev, (size_t)i + 2);
	ck_assert(is(all, "all_illegal", "white"));
	ck_assert(audience_has(all, "white") && audience_has(all, "umpire"));
	ck_assert(!audience_has(all, "black") && !audience_has(all, "spectator"));
	json_t *cnt = json_array_get(ev, (size_t)i + 3);
	ck_assert(is(cnt, "illegal_count", "white"));
	ck_assert_int_eq(json_integer_value(json_object_get(cnt, "count")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(cnt, "ply")), 5);
	ck_assert(!audience_has(cnt, "white") && audience_has(cnt, "black") &&
	          audience_has(cnt, "umpire") && audience_has(cnt, "spectator"));
	ck_assert(is(json_array_get(ev, (size_t)i + 4), "move", "white"));
	ck_assert_str_eq(str(json_array_get(ev, (size_t)i + 4), "san"), "d3");
	ck_assert(is(json_array_get(ev, (size_t)i + 5), "moved", "white"));
	ck_assert_int_eq(json_array_size(ev), (size_t)i + 8);
	json_decref(ev);
	free(out);
	out = ref_ok(ARGS("--rules", "nost", "--pov", "black"), "e4\ne5\na4\na5\ne4e5 a4a5\nd3\n");
	ck_assert_ptr_null(strstr(out, "e4e5"));
	ck_assert_ptr_null(strstr(out, "all_illegal"));
	ck_assert_ptr_nonnull(strstr(out, "\"event\":\"illegal_count\""));
	free(out);

	/* The first legal try of a list is played. */
	out = ref_ok(ARGS("--rules", "nost"), "e4\ne5\ne4e5 d4 Nf3\n");
	ev = parse_lines(out);
	char sans[128];
	umpire_sans(ev, sans, sizeof sans);
	ck_assert_str_eq(sans, "e4 e5 d4");
	ck_assert_int_eq(count_events(ev, "all_illegal", NULL), 0);
	i = find_at(ev, "illegal_count", "white", 3);
	ck_assert_int_ge(i, 0);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(ev, (size_t)i), "count")), 1);
	json_decref(ev);
	free(out);

	/* Lists and quiet sequences are nost's alone. */
	out = ref_ok(ARGS("--rules", "icc"), "e2e5 e4\nquiet e4 d4\n");
	ev = parse_lines(out);
	ck_assert_int_eq(count_events(ev, "error", NULL), 2);
	ck_assert_int_eq(count_events(ev, "impossible", NULL), 0);
	json_decref(ev);
	free(out);

	/* A quiet sequence played out: White's later moves follow Black's at once. */
	out = ref_ok(ARGS("--rules", "nost"), "a3\nh6\nquiet Nf3 Nc3 h3\ng6\n");
	ev = parse_lines(out);
	umpire_sans(ev, sans, sizeof sans);
	ck_assert_str_eq(sans, "a3 h6 Nf3 g6 Nc3");
	json_decref(ev);
	free(out);
	out = ref_ok(ARGS("--rules", "nost"), "a3\nh6\nquiet Nf3 Nc3 h3\ng6\nb6\n");
	ev = parse_lines(out);
	umpire_sans(ev, sans, sizeof sans);
	ck_assert_str_eq(sans, "a3 h6 Nf3 g6 Nc3 b6 h3");
	ck_assert_int_eq(count_events(ev, "quiet_ended", NULL), 0);
	ck_assert_int_eq(count_events(ev, "error", NULL), 0);
	json_t *last = json_array_get(ev, json_array_size(ev) - 1);
	ck_assert(is(last, "pawn_captures", "black"));
	ck_assert_int_eq(json_integer_value(json_object_get(last, "ply")), 7);
	json_decref(ev);
	free(out);

	/* It stops when a pawn capture is available (here Black's dxe4). */
	out = ref_ok(ARGS("--rules", "nost"), "e4\nd5\nquiet Nf3 Nc3 a3\ng6\n");
	ev = parse_lines(out);
	umpire_sans(ev, sans, sizeof sans);
	ck_assert_str_eq(sans, "e4 d5 Nf3 g6");
	i = find_at(ev, "quiet_ended", "white", 3);
	ck_assert_int_ge(i, 0);
	json_t *q = json_array_get(ev, (size_t)i);
	ck_assert_int_eq(json_integer_value(json_object_get(q, "count")), 2);
	ck_assert(audience_has(q, "white") && audience_has(q, "umpire"));
	ck_assert(!audience_has(q, "black") && !audience_has(q, "spectator"));
	/* Nothing of White follows g6: the turn is White's again. */
	last = json_array_get(ev, json_array_size(ev) - 1);
	ck_assert(is(last, "pawn_captures", "white"));
	ck_assert_int_eq(json_integer_value(json_object_get(last, "ply")), 4);
	json_decref(ev);
	free(out);
	out = ref_ok(ARGS("--rules", "nost", "--pov", "black"), "e4\nd5\nquiet Nf3 Nc3 a3\ng6\n");
	ck_assert_ptr_null(strstr(out, "quiet_ended"));
	ck_assert_ptr_null(strstr(out, "Nf3"));
	free(out);

	/* "quiet" with no move is refused. */
	out = ref_ok(ARGS("--rules", "nost"), "quiet\n");
	ev = parse_lines(out);
	ck_assert_int_eq(count_events(ev, "error", NULL), 1);
	json_decref(ev);
	free(out);
}
END_TEST

/* A spaced "e.p." belongs to the move before it; "resign white|black"
 * ends the game for either side, whoever is to move. */
START_TEST(ep_suffix_and_resign_side)
{
	static const char fen[] = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1";
	static const char *const forms[] = { "exd6 e.p.\n", "exd6 ep\n", "e5d6  e.p.\n", "exd6 e.p.+\n" };
	char sans[128];
	for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
		char *out = ref_ok(ARGS("--fen", fen), forms[k]);
		json_t *ev = parse_lines(out);
		ck_assert_msg(count_events(ev, "error", NULL) == 0, "%s:\n%s", forms[k], out);
		umpire_sans(ev, sans, sizeof sans);
		ck_assert_str_eq(sans, "exd6");
		json_decref(ev);
		free(out);
	}
	/* a nost preference list: one try per move, suffix or not */
	char *out = ref_ok(ARGS("--rules", "nost", "--fen", fen), "exf6 ep, exd6 e.p.\n");
	json_t *ev = parse_lines(out);
	ck_assert_msg(count_events(ev, "error", NULL) == 0, "%s", out);
	ck_assert_int_eq(count_events(ev, "illegal", "white"), 1);
	umpire_sans(ev, sans, sizeof sans);
	ck_assert_str_eq(sans, "exd6");
	json_decref(ev);
	free(out);
	/* a lone suffix is no move */
	out = ref_ok(ARGS("--fen", fen), "e.p.\n");
	ev = parse_lines(out);
	ck_assert_int_eq(count_events(ev, "error", NULL), 1);
	json_decref(ev);
	free(out);

	static const struct {
		const char *script, *by, *result;
	} resign[] = {
		{ "e4\nresign white\n", "white", "0-1" }, /* Black to move, White resigns */
		{ "e4\nresign black\n", "black", "1-0" },
		{ "e4\nresign\n", "black", "1-0" },       /* the side to move */
		{ "resign black\n", "black", "1-0" },
	};
	for (size_t k = 0; k < sizeof resign / sizeof resign[0]; k++) {
		out = ref_ok(NOARGS, resign[k].script);
		ev = parse_lines(out);
		ck_assert_int_eq(count_events(ev, "error", NULL), 0);
		json_t *last = json_array_get(ev, json_array_size(ev) - 1);
		ck_assert_msg(is(last, "game_over", resign[k].by), "%s:\n%s", resign[k].script, out);
		ck_assert_str_eq(str(last, "result"), resign[k].result);
		ck_assert_str_eq(str(last, "reason"), "resignation");
		json_decref(ev);
		free(out);

		/* the record replays: topgn then pgn gives the direct run */
		char *pgn = ref_ok(ARGS("topgn"), resign[k].script);
		char res[32];
		snprintf(res, sizeof res, "[Result \"%s\"]", resign[k].result);
		ck_assert_msg(strstr(pgn, res) != NULL, "%s", pgn);
		char *direct = ref_ok(NOARGS, resign[k].script);
		char *replay = ref_ok(ARGS("pgn", "-"), pgn);
		ck_assert_msg(strcmp(direct, replay) == 0, "replay differs:\n%s\nvs\n%s\nPGN:\n%s", replay,
		              direct, pgn);
		free(direct);
		free(replay);
		free(pgn);
	}
	out = ref_ok(NOARGS, "e4\nresign purple\nresign white black\nresign white\n");
	ev = parse_lines(out);
	ck_assert_int_eq(count_events(ev, "error", NULL), 2);
	ck_assert_int_eq(count_events(ev, "game_over", "white"), 1);
	json_decref(ev);
	free(out);

	struct run r;
	ref_run(&r, ARGS("--help"), "");
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strstr(r.out, "resign [white|black]") != NULL, "%s", r.out);   /* asked for: stdout */
	run_free(&r);
}
END_TEST

/* A list or quiet sequence holds 1 to 16 moves: a PGN edited to hold 17
 * in its [%krieg] command is refused whole (never cut to 16 and
 * replayed), exit 1, nothing printed, the move and the rule named. */
START_TEST(pgn_list_over_16_refused)
{
	static const char list16[] = "a3 b3 c3 d3 e3 f3 g3 h3 a4 b4 c4 d4 e4 f4 g4 h4";
	char script[128];
	snprintf(script, sizeof script, "%s\ne5\n", list16);
	char *pgn = ref_ok(ARGS("topgn", "--rules", "nost"), script);
	char *direct = ref_ok(ARGS("--rules", "nost"), script);
	char *replay = ref_ok(ARGS("pgn", "-"), pgn);
	ck_assert_str_eq(replay, direct);
	free(replay);
	free(direct);

	static const char *const kinds[] = { "list", "quiet" };
	for (size_t k = 0; k < 2; k++) {
		char from[96], to[96];
		snprintf(from, sizeof from, "[%%krieg list %s]", list16);
		snprintf(to, sizeof to, "[%%krieg %s %s Nf3]", kinds[k], list16);
		char *p = strstr(pgn, from);
		ck_assert_msg(p != NULL, "no '%s' in the PGN:\n%s", from, pgn);
		char *bad = malloc(strlen(pgn) + 64);
		ck_assert_ptr_nonnull(bad);
		sprintf(bad, "%.*s%s%s", (int)(p - pgn), pgn, to, p + strlen(from));
		struct run r;
		ref_run(&r, ARGS("pgn", "-"), bad);
		ck_assert_msg(r.status == 1, "%s of 17: exit %d", kinds[k], r.status);
		ck_assert_str_eq(r.out, "");
		ck_assert_msg(strstr(r.err, "krieg-referee: -: move 1. a3") != NULL &&
		              strstr(r.err, kinds[k]) != NULL && strstr(r.err, "1 to 16 moves") != NULL,
		              "%s of 17: message does not name it: %s", kinds[k], r.err);
		run_free(&r);
		free(bad);
	}
	free(pgn);
}
END_TEST

/* Lines in s. */
static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/*
 * A file of several games, PGN's export form (krieg-bot arena --pgn writes
 * one, and said each game reads back with `krieg-referee pgn`): every game
 * is replayed in turn, each headed by a {"game":N,"line":L,...} line, its
 * events those of the direct run.  A game whose replay is refused is named
 * (game N, and the file's line in a reading error) and the others are
 * still printed; the exit status says one was refused.
 */
START_TEST(pgn_several_games)
{
	struct run r;
	char *pgn[2], *direct[2], *bdirect[2];
	for (int k = 0; k < 2; k++) {
		pgn[k] = ref_ok(ARGS("topgn", "--rules", games[k].rules, "--white", k ? "Carol" : "Alice", "--black",
		                     k ? "Dave" : "Bob"),
		                games[k].script);
		direct[k] = ref_ok(ARGS("--rules", games[k].rules), games[k].script);
		bdirect[k] = ref_ok(ARGS("--rules", games[k].rules, "--pov", "black"), games[k].script);
	}
	int line2 = count_lines(pgn[0]) + 2;   /* after one blank line */
	size_t cap = strlen(pgn[0]) + strlen(pgn[1]) + strlen(direct[0]) + strlen(direct[1]) + 1024;
	char *file = malloc(cap), *want = malloc(cap), *bwant = malloc(cap);
	ck_assert(file && want && bwant);
	snprintf(file, cap, "%s\n%s", pgn[0], pgn[1]);
	static const char head1[] = "{\"game\":1,\"line\":1,\"white\":\"Alice\",\"black\":\"Bob\",\"round\":\"?\","
	                            "\"result\":\"1-0\"}\n";
	char head2[160];
	snprintf(head2, sizeof head2, "{\"game\":2,\"line\":%d,\"white\":\"Carol\",\"black\":\"Dave\","
	         "\"round\":\"?\",\"result\":\"1/2-1/2\"}\n", line2);
	snprintf(want, cap, "%s%s%s%s", head1, direct[0], head2, direct[1]);
	snprintf(bwant, cap, "%s%s%s%s", head1, bdirect[0], head2, bdirect[1]);

	ref_run(&r, ARGS("pgn", "-"), file);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	ck_assert_str_eq(r.out, want);
	ck_assert_str_eq(r.err, "");
	run_free(&r);
	ref_run(&r, ARGS("pgn", "--pov", "black", "-"), file);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, bwant);
	run_free(&r);

	/* the second game's record tampered: the first is still replayed */
	char *at = strstr(file + strlen(pgn[0]), "\"Capture on d5\"");
	ck_assert_ptr_nonnull(at);
	at[strlen("\"Capture on d")] = '4';
	ref_run(&r, ARGS("pgn", "-"), file);
	ck_assert_int_eq(r.status, 1);
	snprintf(want, cap, "%s%s", head1, direct[0]);
	ck_assert_str_eq(r.out, want);
	ck_assert_msg(strstr(r.err, "krieg-referee: -: game 2: move 2. exd5: PGN says \"Capture on d4\"") &&
	                      strstr(r.err, "krieg-referee: -: 1 of 2 games did not replay\n"),
	              "%s", r.err);
	run_free(&r);

	/* the first game's tampered instead: the second is still replayed */
	at[strlen("\"Capture on d")] = '5';
	at = strstr(file, "\"Black has 0 pawn tries\"");
	ck_assert_ptr_nonnull(at);
	at[strlen("\"Black has ")] = '4';
	ref_run(&r, ARGS("pgn", "-"), file);
	ck_assert_int_eq(r.status, 1);
	snprintf(want, cap, "%s%s", head2, direct[1]);
	ck_assert_str_eq(r.out, want);
	ck_assert_msg(strstr(r.err, "krieg-referee: -: game 1: move 1. e4: PGN says"), "%s", r.err);
	at[strlen("\"Black has ")] = '0';
	run_free(&r);

	/* a third that does not read: its line in the file; the fourth after
	 * it is still replayed (regression, the PGN probe: the rest of the
	 * file was dropped, "1 of 3 games did not replay"), found at its tags */
	size_t len = strlen(file);
	snprintf(file + len, cap - len, "\n[Event \"third\"]\n\n1. e4 1. d4) *\n\n%s", pgn[1]);
	ref_run(&r, ARGS("pgn", "-"), file);
	ck_assert_int_eq(r.status, 1);
	char line[160];
	snprintf(line, sizeof line, "krieg-referee: -: game 3: line %d: a ')' without its variation's '('\n",
	         line2 + count_lines(pgn[1]) + 3);
	ck_assert_msg(strstr(r.err, line) != NULL, "no \"%s\" in: %s", line, r.err);
	ck_assert_msg(strstr(r.err, "krieg-referee: -: 1 of 4 games did not replay\n"), "%s", r.err);
	char head4[160];
	snprintf(head4, sizeof head4, "{\"game\":4,\"line\":%d,\"white\":\"Carol\"",
	         line2 + count_lines(pgn[1]) + 5);
	const char *at4 = strstr(r.out, head4);
	ck_assert_msg(at4 != NULL, "no %s in:\n%s", head4, r.out);
	at4 = strchr(at4, '\n');
	ck_assert_ptr_nonnull(at4);
	ck_assert_str_eq(at4 + 1, direct[1]);
	run_free(&r);

	for (int k = 0; k < 2; k++) {
		free(pgn[k]);
		free(direct[k]);
		free(bdirect[k]);
	}
	free(file);
	free(want);
	free(bwant);
}
END_TEST

/*
 * Regression (the PGN probe), the file as `pgn` reads it: a file longer
 * than PGN_INPUT_MAX (8 MiB) was replayed up to 16 MiB (the limit was
 * checked on the buffer's size before it doubled); an empty or blank
 * file replayed as a game of no moves, exit 0; a first game that did not
 * read dropped the rest of the file.
 */
START_TEST(pgn_file_limit_no_game_and_resync)
{
	struct run r;
	static const char game[] = "[Event \"t\"]\n[Result \"*\"]\n\n1. e4 {(K::)} *\n";
	size_t most = PGN_INPUT_MAX;
	char *big = malloc(most + 2);
	ck_assert_ptr_nonnull(big);
	memcpy(big, game, sizeof game - 1);
	memset(big + sizeof game - 1, '\n', most + 1 - (sizeof game - 1));   /* blank lines after it */
	big[most + 1] = '\0';
	ref_run_n(&r, ARGS("pgn", "-"), big, most);   /* at the limit: read */
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	ck_assert_str_eq(r.err, "");
	run_free(&r);
	ref_run_n(&r, ARGS("pgn", "-"), big, most + 1);   /* a byte more: refused */
	ck_assert_int_eq(r.status, 1);
	ck_assert_str_eq(r.out, "");
	ck_assert_msg(strstr(r.err, "krieg-referee: -: longer than 8388608 bytes") == r.err, "%s", r.err);
	run_free(&r);
	free(big);

	static const char *const blank[] = { "", "\n\n   \n", "% an escape line alone\n" };
	for (size_t k = 0; k < sizeof blank / sizeof blank[0]; k++) {
		ref_run(&r, ARGS("pgn", "-"), blank[k]);
		ck_assert_int_eq(r.status, 1);
		ck_assert_str_eq(r.out, "");
		ck_assert_str_eq(r.err, "krieg-referee: -: no game in the text\n");
		run_free(&r);
	}

	/* The first game does not read: the second is replayed. */
	char file[512];
	snprintf(file, sizeof file, "[Event \"bad\"]\n\n1. e4 (1. d4 *\n\n%s", game);
	ref_run(&r, ARGS("pgn", "-"), file);
	ck_assert_int_eq(r.status, 1);
	ck_assert_str_eq(r.err, "krieg-referee: -: game 1: line 3: unterminated variation\n"
	                        "krieg-referee: -: 1 of 2 games did not replay\n");
	static const char head2[] = "{\"game\":2,\"line\":5,";
	ck_assert_msg(strncmp(r.out, head2, sizeof head2 - 1) == 0, "%s", r.out);
	run_free(&r);
}
END_TEST

/*
 * Regression (the documentation probe): --help left out topgn's --event,
 * --site and --date, which krieg-referee(1) documents and which work.
 * Every option the page names (but on a line about another program:
 * "krieg\-bot arena \-\-pgn") is in --help, whole.  The page is found from
 * the working directory up.
 */
START_TEST(help_names_every_documented_option)
{
	static const char *const where[] = { "client-cli/referee/krieg-referee.1",
	                                     "../client-cli/referee/krieg-referee.1",
	                                     "../../client-cli/referee/krieg-referee.1",
	                                     "../../../client-cli/referee/krieg-referee.1" };
	FILE *f = NULL;
	for (size_t i = 0; !f && i < sizeof where / sizeof where[0]; i++)
		f = fopen(where[i], "r");
	ck_assert_msg(f != NULL, "krieg-referee.1 not found from the working directory");
	struct run r;
	ref_run(&r, ARGS("--help"), "");
	ck_assert_int_eq(r.status, 0);
	char line[1024];
	int options = 0;
	while (fgets(line, sizeof line, f)) {
		if (strstr(line, "krieg\\-bot"))
			continue;
		for (const char *p = line; (p = strstr(p, "\\-\\-")) != NULL;) {
			char opt[64] = "--";
			size_t n = 2;
			p += 4;
			while (n + 1 < sizeof opt && ((*p >= 'a' && *p <= 'z') || strncmp(p, "\\-", 2) == 0)) {
				opt[n++] = *p == '\\' ? '-' : *p;
				p += *p == '\\' ? 2 : 1;
			}
			opt[n] = '\0';
			bool found = false;
			for (const char *q = r.out; !found && (q = strstr(q, opt)) != NULL; q++)
				found = !((q[n] >= 'a' && q[n] <= 'z') || q[n] == '-');
			ck_assert_msg(found, "--help does not name %s (krieg-referee.1 does):\n%s", opt, r.out);
			options++;
		}
	}
	fclose(f);
	ck_assert_int_ge(options, 11);
	run_free(&r);
}
END_TEST

/* PGN.md's example is what topgn writes for its printf (the second PGN
 * probe: it had gone stale, without the [%krieg try Qxd5] the tool writes). */
START_TEST(pgn_doc_example)
{
	char path[PATH_MAX];
	char *doc = srcfile_read("proto/PGN.md", "KRIEG_PGN_MD", __FILE__, path, sizeof path);
	ck_assert_msg(doc != NULL, "proto/PGN.md not found (%s)", path);
	const char *cmd = strstr(doc, "`printf '"), *end = cmd ? strstr(cmd, "' | krieg-referee topgn --white Alice --black Bob`") : NULL;
	ck_assert_msg(cmd && end, "%s: no example command", path);
	char input[256];
	size_t n = 0;
	for (const char *q = cmd + strlen("`printf '"); q < end && n + 1 < sizeof input; q++) {
		if (q[0] == '\\' && q[1] == 'n') {
			input[n++] = '\n';
			q++;
		} else {
			input[n++] = *q;
		}
	}
	input[n] = '\0';
	const char *open = strstr(end, "\n```\n"), *close = open ? strstr(open + 5, "\n```") : NULL;
	ck_assert_msg(open && close, "%s: no block after the example", path);
	char *want = strndup(open + 5, (size_t)(close - open - 5) + 1);
	struct run r;
	ref_run(&r, ARGS("topgn", "--white", "Alice", "--black", "Bob"), input);
	ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
	ck_assert_msg(strcmp(r.out, want) == 0, "%s's example is not what topgn writes:\n%s", path, r.out);
	free(want);
	run_free(&r);
	free(doc);
}
END_TEST

/* RULESETS.md's complete games, each "(`printf '...' | krieg-referee
 * --rules R`)" and the block after it, are what krieg-referee prints
 * (rules probe: the rand game's block had gone stale, the mover's
 * "Qf7" where the tool says "Qxf7#"). */
START_TEST(rulesets_doc_games)
{
	char path[PATH_MAX];
	char *doc = srcfile_read("proto/RULESETS.md", "KRIEG_RULESETS_MD", __FILE__, path, sizeof path);
	ck_assert_msg(doc != NULL, "proto/RULESETS.md not found (%s)", path);
	int found = 0;
	for (const char *p = doc; (p = strstr(p, "`printf '")) != NULL;) {
		p += strlen("`printf '");
		const char *end = strchr(p, '\'');
		ck_assert_ptr_nonnull(end);
		char input[512];
		size_t n = 0;
		for (const char *q = p; q < end && n + 1 < sizeof input; q++) {
			if (q[0] == '\\' && q[1] == 'n') {
				input[n++] = '\n';
				q++;
			} else if (*q != '\n') {   /* the doc wraps a long printf */
				input[n++] = *q;
			}
		}
		input[n] = '\0';
		const char *rules = strstr(end, "krieg-referee --rules ");
		ck_assert_ptr_nonnull(rules);
		rules += strlen("krieg-referee --rules ");
		char rs[32];
		ck_assert_int_eq(sscanf(rules, "%31[a-z_]", rs), 1);
		const char *open = strstr(rules, "\n```\n"), *close = open ? strstr(open + 5, "\n```") : NULL;
		ck_assert_msg(open && close, "%s: no block after the %s game", path, rs);
		char *want = strndup(open + 5, (size_t)(close - open - 5) + 1);   /* with its last newline */
		struct run r;
		ref_run(&r, (const char *const[]){ "--rules", rs, NULL }, input);
		ck_assert_msg(r.status == 0, "%s game: exit %d: %s", rs, r.status, r.err);
		if (strcmp(r.out, want) != 0) {   /* the first line that differs */
			size_t i = 0, line = 1;
			for (; r.out[i] && r.out[i] == want[i]; i++)
				line += r.out[i] == '\n';
			size_t from = i;
			while (from > 0 && r.out[from - 1] != '\n')
				from--;
			ck_abort_msg("%s: the %s game's line %zu is not what krieg-referee prints: %.300s", path, rs,
			             line, r.out + from);
		}
		free(want);
		run_free(&r);
		found++;
		p = close;
	}
	ck_assert_int_ge(found, 2);   /* rand's and crazykrieg's */
	free(doc);
}
END_TEST

static Suite *referee_cli_suite(void)
{
	Suite *s = suite_create("referee_cli");
	TCase *tc = tcase_create("referee_cli");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, icc_short_game);
	tcase_add_test(tc, rulesets_doc_games);
	tcase_add_test(tc, pgn_doc_example);
	tcase_add_test(tc, pov_filters);
	tcase_add_test(tc, pov_refusals_are_the_movers);
	tcase_add_test(tc, output_and_usage_errors);
	tcase_add_test(tc, bad_input_changes_nothing);
	tcase_add_test(tc, nul_and_keyword_words_refused);
	tcase_add_test(tc, draw_offers_as_kriegd);
	tcase_add_test(tc, impossible_again_refused_as_kriegd);
	tcase_add_test(tc, pgn_result_beyond_the_record_said);
	tcase_add_test(tc, rule_sets);
	tcase_add_test(tc, perft_counts);
	tcase_add_test(tc, pgn_round_trip);
	tcase_add_test(tc, nost_lists_and_quiet);
	tcase_add_test(tc, ep_suffix_and_resign_side);
	tcase_add_test(tc, pgn_list_over_16_refused);
	tcase_add_test(tc, pgn_several_games);
	tcase_add_test(tc, pgn_file_limit_no_game_and_resync);
	tcase_add_test(tc, help_names_every_documented_option);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(referee_cli_suite)
